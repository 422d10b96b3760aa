"""``python -m pipeline.stats``: compare methods over blocks from a CSV score table.

The CSV has a header row; its first column names the blocks (data sets) and every other column is
one method. The command prints one JSON object (see ``Comparison.to_dict``) and can draw the
critical-difference diagram.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Sequence

import pandas as pd

from ..cli import run_main
from ..errors import ConfigError, DataError
from ..fileio import dumps_json, read_regular_file
from ..limits import MAX_HEADER_CHARS, MAX_SCORE_BYTES
from ..report.output import prepare_output_folder
from .ranks import average_ranks, check_score_matrix



def read_score_csv(path: str | Path) -> pd.DataFrame:
    """Read a blocks x methods score table (first column = block names) or raise DataError."""
    path = Path(path)
    raw = read_regular_file(path, "score file", MAX_SCORE_BYTES, DataError)
    _check_header(path, raw)
    try:
        table = pd.read_csv(io.BytesIO(raw), index_col=0)
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataError(f"cannot parse CSV: {exc}", file=path) from None
    if pd.api.types.is_numeric_dtype(table.index):  # the first method would silently name the blocks
        raise DataError("the first column must name the data sets (blocks), one per row", file=path,
                        field=str(table.index.name), expected="names such as emotions, yeast",
                        found=f"numbers ({table.index[0]}, ...): is the column of data-set names missing?")
    non_numeric = [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c])]
    if non_numeric:
        raise DataError("method columns must be numeric", file=path, field=str(non_numeric[0]))
    if table.index.has_duplicates or table.columns.has_duplicates:
        raise DataError("block names and method names must be unique", file=path)
    check_score_matrix(table.to_numpy(), min_blocks=2, min_methods=2, source=str(path))
    return table


def _check_header(path: Path, raw: bytes) -> None:
    """DataError for a header (of the file ``path``, whose bytes are ``raw``) that names a method
    twice (pandas would silently rename the second column ``A.1`` and report it as another method)."""
    try:
        text = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", newline="")
        header = next(csv.reader([text.readline(MAX_HEADER_CHARS)]), [])
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DataError(f"cannot read the header row: {exc}", file=path) from None
    names = [name.strip() for name in header[1:]]
    if "" in names:  # pandas would call it "Unnamed: 2" and report it as a method
        raise DataError("a method column has no name in the header row", file=path,
                        field=f"column {names.index('') + 2}", expected="a method name")
    repeated = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if repeated is not None:
        raise DataError("a method column is named twice", file=path, field=repeated,
                        expected="one column per method")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.stats", description=__doc__.splitlines()[0])
    parser.add_argument("--scores", required=True, help="CSV: one row per data set, one column per method")
    parser.add_argument("--lower-is-better", action="store_true", help="scores are losses (rank 1 = lowest)")
    parser.add_argument("--ref", default=None, help="reference method for Wilcoxon + Holm "
                        "(default: the method with the best average rank)")
    parser.add_argument("--alpha", type=float, nargs="+", default=[0.05, 0.10],
                        help="levels for the Nemenyi critical difference")
    parser.add_argument("--bayesian-rope", type=float, default=None,
                        help="also run the Bayesian signed-rank test with this rope (needs baycomp)")
    parser.add_argument("--cd-diagram", default=None, metavar="STEM",
                        help="write the CD diagram (alpha = first --alpha) to STEM.png and STEM.pdf")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not all(0 < a < 1 for a in args.alpha):
        raise ConfigError("every --alpha must lie in (0, 1)", field="--alpha", found=args.alpha)
    if args.bayesian_rope is not None and not args.bayesian_rope >= 0:
        raise ConfigError("--bayesian-rope must be >= 0", field="--bayesian-rope", found=args.bayesian_rope)
    if args.cd_diagram:
        prepare_output_folder(Path(args.cd_diagram).parent, option="--cd-diagram")
    table = read_score_csv(args.scores)
    if args.ref is None:
        ranks = average_ranks(table.to_numpy(), lower_is_better=args.lower_is_better)
        reference = str(table.columns[int(ranks.argmin())])
    else:
        reference = args.ref
    from .compare import compare_methods  # SciPy's statistics: only for a table that was read

    result = compare_methods(table.to_numpy(), table.columns, blocks=table.index,
                             lower_is_better=args.lower_is_better, reference=reference,
                             alphas=args.alpha, bayesian_rope=args.bayesian_rope)
    if args.cd_diagram:
        from ..report.figures import plot_cd_diagram

        alpha = float(args.alpha[0])
        plot_cd_diagram(dict(zip(result.methods, result.avg_ranks)), result.nemenyi_cd[alpha],
                        args.cd_diagram, cliques=result.cliques[alpha], alpha=alpha)
    sys.stdout.write(dumps_json(result.to_dict()))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
