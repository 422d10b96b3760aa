"""``python -m pipeline.tables``: regenerate the paper tables, statistics, report and figures.

From one results directory (k-grid or p-grid metrics files) it writes into ``--out-dir``:

* ``table_<metric>.tex`` per metric (``table_microf1.tex``, ``table_hamming.tex``, ...): datasets
  x methods, mean +- sample std over folds, best bold, second underlined (as printed), marks of
  significance against the reference per dataset, the all-features reference when its files
  exist, average-rank and W/T/L rows;
* ``table_time.tex``: ranking time in seconds, mean +- sample std over folds, with each method's engine;
  ``table_tuning_time.tex`` (when a method was tuned): its tuning seconds per outer fold, the same way;
* ``table_ranks.tex``: average rank of every method per metric, with the Friedman and
  Iman–Davenport p values;
* ``table_stats.tex``: Friedman / Iman–Davenport / Nemenyi and Bonferroni–Dunn CDs per metric,
  Wilcoxon + Holm per method against the reference;
* ``table_datasets.tex`` (with ``--folds-dir``): the datasets' characteristics from the fold files;
* ``table_seed_spread.tex`` (with ``--seed-spread``): std over seeds of the seed-averaged methods;
* ``benchmark_means_<grid>.csv`` (tidy: dataset, method, metric, mean, std, n_folds),
  ``stats_<grid>.json`` (every number of the statistics), ``report.md`` (the same as Markdown);
* ``figures/``: curves per dataset and averaged over datasets, Nemenyi and Bonferroni–Dunn CD
  diagrams (PNG + PDF; drawn at the printed width, type at least 7 pt, fonts embedded as TrueType);
* ``main.tex``: a document that inputs every table and figure (``--pdf`` compiles it).

This module only reads the command line: :func:`pipeline.report.build.build_report` makes the report.
"""

from __future__ import annotations

import argparse
from typing import Sequence

from .cli import run_main
from .evaluation.metrics import METRICS
from .report.build import build_report
from .report.options import CHOICES, DEFAULTS, ReportOptions


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m pipeline.tables", description=__doc__.splitlines()[0])
    p.add_argument("--results-dir", required=True, help="results/<RUN> with one folder per method")
    p.add_argument("--methods", nargs="+", default=None,
                   help="column order (default: every method folder with metrics files, A-Z ignoring case)")
    p.add_argument("--datasets", nargs="+", default=None,
                   help="rows, in this order (default: every dataset found, A-Z ignoring case)")
    p.add_argument("--ref-method", required=True, help="reference method (Wilcoxon, W/T/L, gain)")
    p.add_argument("--metrics", nargs="+", choices=CHOICES["metrics"], default=None, metavar="METRIC",
                   help=f"metrics to tabulate and test, in this order "
                        f"(default: all {len(METRICS)}: {' '.join(METRICS)})")
    p.add_argument("--out-dir", default=DEFAULTS["out_dir"])
    p.add_argument("--display-map", default=None, help="JSON object: internal name -> display name")
    p.add_argument("--grid", choices=CHOICES["grid"], default=DEFAULTS["grid"])
    p.add_argument("--p-target", type=float, default=DEFAULTS["p_target"], help="operating point of the p-grid tables")
    p.add_argument("--folds", type=int, default=None,
                   help="expected folds 0..N-1 per dataset (default: union of folds found)")
    p.add_argument("--separate-settings", action="store_true",
                   help="results made with different grid or ML-kNN settings get one set of tables each, in "
                        "OUT_DIR/settings<i>/ (without it they are refused)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="average cells over the folds they have (flagged) instead of failing")
    p.add_argument("--label-suffix", default=DEFAULTS["label_suffix"], help="appended as _SUFFIX to every LaTeX label")
    p.add_argument("--caption-note", default=DEFAULTS["caption_note"], help="sentence appended to every caption")
    p.add_argument("--bayesian-rope", type=float, default=None,
                   help="add the Bayesian signed-rank P(ref better) column with this rope")
    p.add_argument("--fold-test", choices=CHOICES["fold_test"], default=DEFAULTS["fold_test"],
                   help="per-dataset marks against the reference: corrected, the corrected resampled t-test "
                        "(Nadeau and Bengio 2003; default), or paired, the plain paired t-test, which ignores "
                        "that the folds' training sets overlap")
    p.add_argument("--fit-width", action=argparse.BooleanOptionalAction, default=DEFAULTS["fit_width"],
                   help=r"shrink a table part wider than the line to fit, to 7 pt type at the least: wider or "
                        r"taller tables are split into parts (default; needs \usepackage{graphicx}); "
                        "--no-fit-width: parts fit at the tables' type size (--font-size), never shrunk")
    p.add_argument("--layout", choices=CHOICES["layout"], default=DEFAULTS["layout"],
                   help="split: wide tables become several floats spanning the text width (default); landscape: "
                        r"rotated floats, a page each, split only beyond the page height (needs \usepackage{rotating})")
    p.add_argument("--columns", type=int, choices=CHOICES["columns"], default=DEFAULTS["columns"],
                   help="columns of the target document: the width tables are split for and figures drawn at "
                        "(on letter paper at 10 pt: 345 pt for 1, default; 469 pt for 2, where table* and figure* "
                        "span both) and main.tex's class option")
    p.add_argument("--paper-size", choices=CHOICES["paper_size"], default=DEFAULTS["paper_size"],
                   help="paper of the target document (main.tex's class option; the text width and height "
                        "tables and figures are laid out for)")
    p.add_argument("--font-size", choices=CHOICES["font_size"], default=DEFAULTS["font_size"],
                   help="base font size of the target document (main.tex's class option): tables are set in "
                        "its footnote size (8, 9 or 10 pt), shrunk to 7 pt at the least")
    p.add_argument("--table-width", type=float, default=None, metavar="PT",
                   help="width a table part may take, in pt (default: the text width of the document, or its "
                        "text height less 30 pt in the landscape layout)")
    p.add_argument("--folds-dir", default=None,
                   help="folder of the fold files the results were made from (<DIR>/<DATASET>/fold<i>.mat): adds "
                        "table_datasets.tex (default: no dataset table)")
    p.add_argument("--pdf", action="store_true", help="compile main.tex into main.pdf with pdflatex")
    p.add_argument("--include-tables", nargs="+", default=DEFAULTS["include_tables"], metavar="DIR",
                   help="folders whose .tex tables main.tex also inputs, e.g. the parameter report of "
                        "pipeline.paper (default: none)")
    p.add_argument("--seed-spread", action="store_true",
                   help="add table_seed_spread.tex: std over seeds of the seed-averaged methods")
    p.add_argument("--no-figures", action="store_true", help="skip curves and CD diagrams")
    p.add_argument("--jobs", type=int, default=DEFAULTS["jobs"], help="processes drawing the figures in parallel")
    p.add_argument("--all-curve-metrics", action="store_true",
                   help=f"plot all {len(METRICS)} metrics in the curve figures (default: the three main ones)")
    return p



def main(argv: Sequence[str] | None = None) -> int:
    options = ReportOptions(**vars(build_parser().parse_args(argv)))
    build_report(options, on_part=lambda part: print(part.describe()))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
