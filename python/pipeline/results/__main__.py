"""``python -m pipeline.results``: one tidy table of a results folder, or several folders merged into one.

    python -m pipeline.results export RESULTS_DIR --to FILE.parquet|FILE.csv
    python -m pipeline.results merge SOURCE [SOURCE ...] --into RESULTS_DIR [--on-conflict refuse|keep-newest|keep-both]

``export`` writes one row per method x dataset x fold x grid point x metric (docs/results-schema.md,
"The tidy table"). ``merge`` copies the tasks of results folders made elsewhere (another machine,
another cluster job) into one, after checking they were made with the same settings from the same
fold files; a task present in two folders with different results is a conflict, reported and
never overwritten silently (docs/results-schema.md, "Merging results folders"). Exit codes: 0
done, 1 conflicts left unmerged, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..cli import exit_process, run_main


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.results", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write the tidy table of a results folder")
    export.add_argument("results_dir", metavar="RESULTS_DIR", help="a results folder (as --results-dir wrote it)")
    export.add_argument("--to", required=True, metavar="FILE",
                        help="the table to write: FILE.parquet (needs pyarrow) or FILE.csv")
    merge = commands.add_parser("merge", help="merge results folders made elsewhere into one")
    merge.add_argument("sources", nargs="+", metavar="SOURCE", help="results folders to take tasks from")
    merge.add_argument("--into", required=True, metavar="RESULTS_DIR",
                       help="the results folder to merge into (created if absent)")
    merge.add_argument("--on-conflict", choices=("refuse", "keep-newest", "keep-both"), default="refuse",
                       help="a task with other results in two folders: refuse (default: report every conflict, "
                            "copy nothing), keep-newest (the task whose metrics files were written last), "
                            "keep-both (the incoming copy under METHOD__merged_<i>, i the source's position)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "export":
        from .tidy import export_table

        path, rows = export_table(args.results_dir, args.to)
        print(f"{rows} rows -> {path}")
        return 0
    from .merge import merge_folders

    report = merge_folders(args.sources, args.into, args.on_conflict)
    print(report.summary())
    for line in report.conflict_lines():
        print(line, file=sys.stderr)
    return 1 if report.unmerged else 0


if __name__ == "__main__":
    exit_process(run_main(main))
