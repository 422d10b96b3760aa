"""`python -m pipeline.evaluate`: score rankings that already exist (e.g. produced elsewhere)."""

from __future__ import annotations

from typing import Sequence

from .cli import exit_process, run_main
from .suite_cli import main as suite_main


def main(argv: Sequence[str] | None = None) -> int:
    return suite_main(argv, prog="python -m pipeline.evaluate", mode=None, rank=False)


if __name__ == "__main__":
    exit_process(run_main(main))
