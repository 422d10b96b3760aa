"""The combined comparison table over every ``*_evaluation.json`` in a folder.

One row per (dataset, model) over the grid of datasets and models found, three columns per metric
(accuracy, macro F1, weighted F1) with one decimal, ``N/A`` where a metric does not apply and
``—`` where a result file is missing; then one mean row per model over the datasets it has.
Written as Markdown and LaTeX (every name and cell escaped for its format) and as CSV.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from ...errors import ConfigError, DataError
from ...fileio import atomic_write_text, csv_cell
from ...report.latex import latex_environment
from ...report.tables import markdown_escape
from .evaluate import METRIC_KEYS
from .files import read_json

TEMPLATE_DIR = Path(__file__).parent / "templates"
DATASET_ORDER = ("motionsense", "realworld", "mobiact", "vttconiot")
MODEL_ORDER = ("tsfm", "lanhar", "limubert", "moment", "crosshar")
UPSTREAM_KEYS = {"1pct_supervised": "supervised_1pct", "10pct_supervised": "supervised_10pct"}
SCORES = (("accuracy", "acc"), ("f1_macro", "f1m"), ("f1_weighted", "f1w"))
METRIC_TITLES = {"zero_shot_open_set": "Zero-shot open", "zero_shot_closed_set": "Zero-shot closed",
                 "supervised_1pct": "1% labels", "supervised_10pct": "10% labels", "linear_probe": "Linear probe"}
MISSING = "—"
NOT_APPLICABLE = "N/A"


@dataclass(frozen=True)
class ResultTable:
    """Header names and rows of cell strings; ``mean_rows`` follow the per-dataset ``rows``."""

    columns: list[str]
    rows: list[list[str]]
    mean_rows: list[list[str]]


def _order_key(name: str, known: tuple[str, ...]) -> tuple[int, str]:
    folded = re.sub(r"[^a-z0-9]", "", name.lower())
    return (known.index(folded), "") if folded in known else (len(known), name.lower())


def read_results(folder: str | Path) -> tuple[dict[tuple[str, str], dict], list[str]]:
    """Load every ``*_evaluation.json``; malformed or oversized files are skipped with a warning.

    Returns ``{(dataset, model): metrics}`` (upstream metric keys renamed) and the warnings.
    """
    results, warnings = {}, []
    for path in sorted(Path(folder).glob("*_evaluation.json")):
        try:
            document = read_json(path)
            key = (str(document["dataset"]), str(document["model"]))
            metrics = {UPSTREAM_KEYS.get(name, name): value for name, value in document["metrics"].items()}
            if not all(isinstance(value, dict) for value in metrics.values()):
                raise TypeError("metric entries must be objects")
        except (DataError, OSError, KeyError, TypeError, AttributeError) as exc:
            warnings.append(f"{path}: skipped malformed result ({exc})")
            continue
        results[key] = metrics
    return results, warnings


def _cell(entry: dict | None, score: str) -> str:
    if entry is None:
        return MISSING
    if entry.get("applicable") is False:
        return NOT_APPLICABLE
    value = entry.get(score)
    return f"{value:.1f}" if isinstance(value, (int, float)) else MISSING


def _mean_cell(entries: list[dict | None], score: str) -> str:
    values = [e[score] for e in entries
              if e is not None and e.get("applicable") is not False and isinstance(e.get(score), (int, float))]
    if values:
        return f"{sum(values) / len(values):.1f} ({len(values)})"
    if any(e is not None and e.get("applicable") is False for e in entries):
        return NOT_APPLICABLE
    return MISSING


def build_table(results: dict[tuple[str, str], dict]) -> ResultTable:
    """Arrange results in the protocol's dataset and model order."""
    datasets = sorted({d for d, _ in results}, key=lambda n: _order_key(n, DATASET_ORDER))
    models = sorted({m for _, m in results}, key=lambda n: _order_key(n, MODEL_ORDER))
    columns = ["dataset", "model"] + [f"{metric}_{short}" for metric in METRIC_KEYS for _, short in SCORES]
    rows = []
    for dataset in datasets:
        for model in models:
            metrics = results.get((dataset, model))
            rows.append([dataset, model] + [_cell(None if metrics is None else metrics.get(metric), score)
                                            for metric in METRIC_KEYS for score, _ in SCORES])
    mean_rows = []
    for model in models:
        per_dataset = [results.get((dataset, model)) for dataset in datasets]
        mean_rows.append(["mean over datasets", model] + [
            _mean_cell([None if m is None else m.get(metric) for m in per_dataset], score)
            for metric in METRIC_KEYS for score, _ in SCORES])
    return ResultTable(columns=columns, rows=rows, mean_rows=mean_rows)


def to_markdown(table: ResultTable) -> str:
    """A GitHub Markdown table; every header and cell goes through ``markdown_escape``."""
    def line(cells):
        return "| " + " | ".join(markdown_escape(cell) for cell in cells) + " |"

    lines = [line(table.columns), "|" + "---|" * len(table.columns)]
    lines += [line(row) for row in table.rows + table.mean_rows]
    return "\n".join(lines) + "\n"


def to_csv(table: ResultTable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows([csv_cell(cell) for cell in row] for row in [table.columns, *table.rows, *table.mean_rows])
    return buffer.getvalue()


def to_latex(table: ResultTable) -> str:
    """A booktabs ``tabular``; every name and cell goes through the ``latex`` escape filter."""
    def tex(row):
        return ["---" if cell == MISSING else cell for cell in row]

    template = latex_environment(TEMPLATE_DIR).get_template("har_results_table.tex.j2")
    return template.render(metrics=[METRIC_TITLES[m] for m in METRIC_KEYS], scores=[s for _, s in SCORES],
                           rows=[tex(r) for r in table.rows], mean_rows=[tex(r) for r in table.mean_rows])


def write_tables(folder: str | Path, output_dir: str | Path | None = None) -> tuple[list[Path], list[str]]:
    """Write ``results_table.{md,csv,tex}`` for the results in ``folder``; return paths and warnings.
    ConfigError when no result could be read: three empty tables would read as a table of nothing."""
    results, warnings = read_results(folder)
    if not results:
        raise ConfigError("no result to tabulate: no table written", file=folder,
                          expected="*_evaluation.json files (python -m pipeline.protocols.har evaluate)",
                          found=f"{len(warnings)} malformed, first: {warnings[0]}" if warnings
                          else "no *_evaluation.json file")
    table = build_table(results)
    target = Path(output_dir) if output_dir is not None else Path(folder)
    paths = [atomic_write_text(target / "results_table.md", to_markdown(table)),
             atomic_write_text(target / "results_table.csv", to_csv(table)),
             atomic_write_text(target / "results_table.tex", to_latex(table))]
    return paths, warnings
