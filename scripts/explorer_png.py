#!/usr/bin/env python3
"""Screenshot the results explorer of a paper-sized result set (docs/explorer.md's picture; ``make docs-img``).

The synthetic result set of ``scripts/paper_tables_png.py`` (12 methods x 17 datasets named set01 ...
set17, 5 folds, all-features reference; the numbers are made up) goes through
``python -m pipeline.report html``; headless chromium (``tests/report/headless_browser.py``, no
network) opens the page from disk and captures its first screen. The page's size, the bound of the
full paper, is printed.

    python scripts/explorer_png.py docs/img/explorer.png [--metric hamming_loss]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "report"))
sys.path.insert(0, str(REPO / "scripts"))

from headless_browser import Browser, chromium_path  # noqa: E402
from paper_tables_png import DATASETS, METHODS  # noqa: E402
from results_factory import write_all_features, write_ranking_records, write_result_set  # noqa: E402

from pipeline import report_api  # noqa: E402
from pipeline.cli import run_main  # noqa: E402
from pipeline.errors import ConfigError  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("png", type=Path, help="the PNG to write")
    parser.add_argument("--metric", default="micro_f1", help="metric the curves show (default micro_f1)")
    args = parser.parse_args(argv)
    if chromium_path() is None:
        raise ConfigError("chromium not found: run `make chromium`")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        results = write_result_set(root / "results", METHODS, DATASETS, folds=5, seed=3)
        write_all_features(results, DATASETS, folds=5, seed=4)
        write_ranking_records(results, {"DAGFS": "python", **{m: "octave" for m in METHODS[1:]}})
        (page,) = report_api.html(results, root / "out", ref_method="DAGFS", methods=METHODS)
        print(f"{page.name}: {page.stat().st_size / 2 ** 20:.2f} MiB for {len(METHODS)} methods x "
              f"{len(DATASETS)} datasets x 5 folds")
        with Browser(root / "profile", width=1200, height=860) as browser:
            browser.open(page.as_uri())
            browser.evaluate(f"(() => {{ const select = document.getElementById('metric-select'); "
                             f"select.value = {json.dumps(args.metric)}; select.dispatchEvent(new Event('change')); }})()")
            if browser.errors:
                raise RuntimeError(f"the page reported errors: {browser.errors}")
            args.png.parent.mkdir(parents=True, exist_ok=True)
            browser.screenshot(args.png)
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
