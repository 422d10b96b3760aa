"""``compare_models`` and ``--compare-with``: several runs (or published references) in one table.

A *source* is an experiment directory written by ``run_benchmark`` or the name of a shipped
reference (:mod:`.reference`). Rows are the (benchmark, dataset) pairs that the experiment
sources actually hold -- each benchmark lists its own datasets only -- and a reference fills the
rows whose dataset it has. With references alone, rows are their own Chronos I/II datasets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd

from ...errors import ConfigError, DataError
from ...fileio import csv_safe_frame
from ...limits import FORECAST_MAX_CONFIG_BYTES, FORECAST_MAX_TABLE_BYTES
from ...report.latex import latex_escape
from ...report.tables import format_number, markdown_escape
from ..user_files import open_input_file, read_json_bounded
from .aggregate import BOOTSTRAP, leaderboard
from .metrics import NUMERIC_METRICS
from .reference import is_reference, reference_scores


def load_results(results_dir: str | Path) -> dict[str, pd.DataFrame]:
    """Per-benchmark tables of one experiment directory, found through its ``config.json``."""
    folder = Path(results_dir)
    config_file = folder / "config.json"
    if not config_file.is_file():
        raise DataError("not an experiment directory or reference name (config.json missing)", file=folder)
    config = read_json_bounded(config_file, FORECAST_MAX_CONFIG_BYTES)
    files = config.get("result_files", {})
    tables = {}
    for name in config["benchmarks"]:
        csv = folder / f"{files.get(name, name)}.csv"
        if not csv.is_file():
            raise DataError("benchmark table missing", file=csv)
        with open_input_file(csv, "a benchmark table (CSV)", FORECAST_MAX_TABLE_BYTES) as handle:
            try:
                tables[name] = pd.read_csv(handle)
            except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
                raise DataError(f"cannot parse CSV: {' '.join(str(exc).split())[:200]}", file=csv) from None
    return tables


def _check_request(sources: Sequence, model_names: Sequence[str], metrics: Sequence[str]) -> None:
    if len(sources) != len(model_names):
        raise ConfigError("need one model name per results directory", field="--model-names",
                          expected=len(sources), found=len(model_names))
    if len(set(model_names)) != len(model_names) or not all(model_names):
        raise ConfigError("model names must be distinct and non-empty", field="--model-names", found=list(model_names))
    unknown = sorted(set(metrics) - set(NUMERIC_METRICS))
    if unknown:
        raise ConfigError("unknown metric", field="--metrics", expected=list(NUMERIC_METRICS), found=unknown)


def compare_tables(sources: Sequence[str | Path], model_names: Sequence[str],
                   metrics: Sequence[str] = ("MASE", "WQL")) -> pd.DataFrame:
    """One row per (benchmark, dataset) that a source holds, one column ``metric[model]`` per model."""
    _check_request(sources, model_names, metrics)
    runs, references = [], []
    for source, model in zip(sources, model_names):
        if is_reference(source):
            references.append((str(source), model))
            continue
        for bench, table in load_results(source).items():
            runs.append(table.reindex(columns=["dataset", *metrics]).assign(benchmark=bench, model=model))
    if runs:
        pairs = pd.concat(runs)[["benchmark", "dataset"]].drop_duplicates()
    else:
        pairs = pd.concat([reference_scores(name)[["benchmark", "dataset"]] for name, _ in references])
        pairs = pairs.drop_duplicates()
    for name, model in references:
        scores = reference_scores(name).drop(columns="benchmark").reindex(columns=["dataset", *metrics])
        runs.append(pairs.merge(scores, on="dataset", how="left").assign(model=model))
    merged = pd.concat(runs, ignore_index=True)
    wide = merged.set_index(["benchmark", "dataset", "model"])[list(metrics)].unstack("model")
    wide.columns = [f"{metric}[{model}]" for metric, model in wide.columns]
    ordered = [f"{metric}[{model}]" for metric in metrics for model in model_names]
    return wide.reindex(columns=ordered).reset_index().sort_values(["benchmark", "dataset"], kind="stable")


MISSING = "—"
"""What a table shows for a value that is not there (a missing or failed task, a count not taken)."""


LEADERBOARD_COLUMNS = ["metric", "model", "skill_score", "skill_score_lower", "skill_score_upper",
                       "win_rate", "win_rate_lower", "win_rate_upper", "n_tasks"]


def leaderboard_table(frame: pd.DataFrame, model_names: Sequence[str], metrics: Sequence[str],
                      baseline: str) -> pd.DataFrame:
    """fev's leaderboard of a comparison table, per metric: skill score against ``baseline`` and
    win rate with their bootstrap 95 % CIs, over the (benchmark, dataset) rows every model has
    (empty when no row has them all)."""
    if baseline not in model_names:
        raise ConfigError("the baseline must be one of the compared models", field="--baseline",
                          expected=list(model_names), found=baseline)
    boards = []
    for metric in metrics:
        errors = frame.set_index(["benchmark", "dataset"])[[f"{metric}[{m}]" for m in model_names]]
        errors = errors.set_axis(list(model_names), axis=1).dropna().astype(float)
        if len(errors):
            board = leaderboard(errors, baseline, n_resamples=BOOTSTRAP["n_resamples"], seed=BOOTSTRAP["seed"])
            boards.append(board.assign(metric=metric))
    if not boards:
        return pd.DataFrame(columns=LEADERBOARD_COLUMNS)
    return pd.concat(boards, ignore_index=True)[LEADERBOARD_COLUMNS]


def leaderboard_caption(baseline: str) -> str:
    return (f"Skill score (1 - gmean of errors relative to {baseline}, clipped to [0.01, 100]) and win "
            f"rate with 95 % percentile-bootstrap CIs over tasks ({BOOTSTRAP['n_resamples']} resamples, "
            f"seed {BOOTSTRAP['seed']}; fev's leaderboard), over the rows every model has.")


def format_value(value: object, missing: str = MISSING) -> str:
    """4 decimals for floats (never ``-0.0000``), ``missing`` for NaN/NA/None, text otherwise."""
    if value is None or value is pd.NA or value is pd.NaT:
        return missing
    if isinstance(value, float):
        return format_number(value, 4, missing)
    return str(value)


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (floats with 4 decimals, text escaped)."""
    header = "| " + " | ".join(markdown_escape(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(markdown_escape(format_value(v)) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def format_comparison(frame: pd.DataFrame, board: pd.DataFrame, fmt: str, baseline: str) -> str:
    """The per-dataset table followed by the leaderboard with its CIs (``markdown``, ``latex``);
    ``csv`` holds the per-dataset table only (one table per CSV file)."""
    text = format_table(frame, fmt)
    if fmt == "csv":
        return text
    if board.empty:
        note = "No (benchmark, dataset) row has a score of every model: no leaderboard."
        return text + (f"\n{note}\n" if fmt == "markdown" else f"% {note}\n")
    caption = leaderboard_caption(baseline)
    if fmt == "markdown":
        return f"{text}\n{markdown_escape(caption)}\n\n{format_table(board, fmt)}"
    return f"{text}% {caption}\n{format_table(board, fmt)}"


def format_table(frame: pd.DataFrame, fmt: str) -> str:
    """Render a comparison table as ``markdown``, ``csv`` or ``latex`` (names escaped)."""
    if fmt == "markdown":
        return markdown_table(frame) + "\n"
    if fmt == "csv":
        return csv_safe_frame(frame).to_csv(index=False, float_format="%.10g")
    if fmt == "latex":
        header = " & ".join(latex_escape(str(c)) for c in frame.columns) + r" \\"
        rows = [" & ".join(latex_escape(format_value(v, "--")) for v in row) + r" \\"
                for row in frame.itertuples(index=False)]
        alignment = "l" * 2 + "r" * (len(frame.columns) - 2)
        return "\n".join([rf"\begin{{tabular}}{{{alignment}}}", r"\hline", header, r"\hline", *rows, r"\hline",
                          r"\end{tabular}", ""])
    raise ConfigError("unknown output format", field="--format", expected="markdown, csv or latex", found=fmt)
