"""`python -m pipeline.pgrid`: rank features and score them with ML-kNN over the p-grid."""

from __future__ import annotations

from typing import Sequence

from .cli import exit_process, run_main
from .suite_cli import main as suite_main


def main(argv: Sequence[str] | None = None) -> int:
    return suite_main(argv, prog="python -m pipeline.pgrid", mode="pgrid", rank=True)


if __name__ == "__main__":
    exit_process(run_main(main))
