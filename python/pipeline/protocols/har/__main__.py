"""``python -m pipeline.protocols.har``: see :mod:`pipeline.protocols.har.cli`."""

from ...cli import run_main
from .cli import main

if __name__ == "__main__":
    raise SystemExit(run_main(main))
