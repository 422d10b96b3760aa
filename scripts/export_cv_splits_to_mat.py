#!/usr/bin/env python3
"""Export stratified folds as .mat files: a thin wrapper of ``python -m pipeline.export_splits``.

Kept under the reference's script name; it takes the same arguments (see ``--help``).
"""

from pipeline.cli import run_main
from pipeline.export_splits import main

if __name__ == "__main__":
    raise SystemExit(run_main(main))
