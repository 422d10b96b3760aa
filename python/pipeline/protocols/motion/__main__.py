"""``python -m pipeline.protocols.motion``: see :mod:`pipeline.protocols.motion.cli`."""

from ...cli import run_main
from .cli import main

if __name__ == "__main__":
    raise SystemExit(run_main(main))
