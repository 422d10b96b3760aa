#!/usr/bin/env python3
"""Render one page of the compiled paper tables as a PNG (README's picture; ``make docs-img``).

A synthetic result set of 12 methods x 17 datasets (named set01 ... set17: the numbers are made
up) x 5 folds, with all-features reference files and engine records, from
``tests/report/results_factory.py``, goes through ``python -m pipeline.tables --no-figures
--columns 2 --pdf``; ``pdftoppm`` renders the page that holds the Micro-F1 table.

    python scripts/paper_tables_png.py docs/img/paper_tables.png [--page N] [--dpi 80]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "report"))

from results_factory import write_all_features, write_ranking_records, write_result_set  # noqa: E402

from pipeline import tables  # noqa: E402
from pipeline.cli import run_main  # noqa: E402
from pipeline.errors import ConfigError  # noqa: E402

DATASETS = [f"set{i:02d}" for i in range(1, 18)]
METHODS = ["DAGFS", "LRMFS", "MIFS", "SCLS", "GRRO", "LRDG", "SRFS", "CSFS", "MDFS", "RFNM", "VARIANCE", "RANDOM"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("png", type=Path, help="the PNG to write")
    parser.add_argument("--page", type=int, default=2, help="PDF page to render (default 2: Micro-F1)")
    parser.add_argument("--dpi", type=int, default=80, help="resolution (default 80)")
    args = parser.parse_args(argv)
    if shutil.which("pdftoppm") is None:
        raise ConfigError("pdftoppm not found: run `make latex` (poppler-utils)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        results = write_result_set(root / "results", METHODS, DATASETS, folds=5, seed=3)
        write_all_features(results, DATASETS, folds=5, seed=4)
        write_ranking_records(results, {"DAGFS": "python", **{m: "octave" for m in METHODS[1:]}})
        out = root / "tables"
        tables.main(["--results-dir", str(results), "--methods", *METHODS, "--ref-method", "DAGFS", "--out-dir",
                     str(out), "--no-figures", "--columns", "2", "--pdf"])
        stem = root / "page"
        subprocess.run(["pdftoppm", "-png", "-gray", "-r", str(args.dpi), "-f", str(args.page), "-l",
                        str(args.page), "-singlefile", str(out / "main.pdf"), str(stem)], check=True)
        args.png.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f"{stem}.png", args.png)
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
