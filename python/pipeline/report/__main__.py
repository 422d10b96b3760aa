"""``python -m pipeline.report html RESULTS_DIR``: the results explorer of a results folder.

One self-contained HTML page per grid (``explorer_kgrid.html``, ``explorer_pgrid.html``), opened
from disk with no server and no network: curves per dataset with a metric selector, the sortable
score tables with the marks of the LaTeX tables, average ranks and critical differences, the tuning
report, failed and degenerate outcomes, provenance and the underlying table as CSV (docs/explorer.md).
This module only reads the command line: :func:`pipeline.report_api.html` writes the pages.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..cli import run_main
from ..evaluation.metrics import METRICS
from ..results.layout import GRIDS
from ..stats.fold_tests import FOLD_TESTS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.report", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("html", help="write the results explorer (explorer_<grid>.html)",
                            description=" ".join(__doc__.split("\n\n")[1].split()))
    p.add_argument("results_dir", metavar="RESULTS_DIR", help="results/<RUN> with one folder per method")
    p.add_argument("--ref-method", required=True, help="reference method (marks, W/T/L, Bonferroni-Dunn)")
    p.add_argument("--out-dir", default=None, help="folder of the pages (default: RESULTS_DIR)")
    p.add_argument("--grid", nargs="+", choices=GRIDS, default=None, dest="grids",
                   help="one page per grid (default: every grid with metrics files)")
    p.add_argument("--methods", nargs="+", default=None,
                   help="methods and their order (default: every method folder, A-Z ignoring case)")
    p.add_argument("--datasets", nargs="+", default=None, help="datasets and their order (default: every one found)")
    p.add_argument("--metrics", nargs="+", choices=METRICS, default=None, metavar="METRIC",
                   help=f"metrics shown (default: all {len(METRICS)})")
    p.add_argument("--display-map", default=None, help="JSON object: internal name -> display name")
    p.add_argument("--p-target", type=float, default=None,
                   help="operating point of the p-grid tables (default: that of python -m pipeline.tables)")
    p.add_argument("--folds", type=int, default=None,
                   help="expected folds 0..N-1 per dataset (default: union of folds found)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="average cells over the folds they have (listed as missing) instead of failing")
    p.add_argument("--fold-test", choices=FOLD_TESTS, default=FOLD_TESTS[0],
                   help="per-dataset marks against the reference, as in python -m pipeline.tables")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = vars(build_parser().parse_args(argv))
    del arguments["command"]
    from ..report_api import html

    results_dir = arguments.pop("results_dir")
    given = list(sys.argv[1:] if argv is None else argv)
    for page in html(results_dir, command=["python", "-m", "pipeline.report", *given], **arguments):
        print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
