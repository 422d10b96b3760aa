"""``sequence_level_*`` outputs: the results JSON and the LaTeX (booktabs) and Markdown tables.

Every table has one block per comparison: first the summary over seeds (Option A), then one row
per training seed, so the seed-to-seed spread is visible beside the aggregate. A seed whose
prediction file was missing (``--allow-missing``) gets a row saying so.

* effect tables (RMSE primary, MAE appendix): Δ of the per-sequence metric with its paired
  cluster-bootstrap CI, Hedges' g with its CI, category, p, significance;
* the Δ table: pooled MAE, RMSE, accuracy (percentage points) and R² differences with their
  paired cluster-bootstrap CIs;
* the model table: parameters, accuracy, parameter efficiency and p95 latency per model.

The summary row's interval is that of the seed average itself (:func:`.stats.seed_averaged_intervals`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ...fileio import atomic_write_text, dumps_json
from ...report.latex import latex_environment
from ...report.tables import check_label, markdown_escape
from ...stats.paired import effect_category
from .analysis import APPENDIX_METRIC, EFFECT_METRICS, PRIMARY_METRIC
from .stats import METRICS

TEMPLATE_DIR = Path(__file__).parent / "templates"
METRIC_LABELS = {"mae": "MAE", "rmse": "RMSE", "accuracy": "Accuracy (pp)", "r2": "R²"}
METRIC_LABELS_TEX = {"mae": "MAE", "rmse": "RMSE", "accuracy": "Acc.\\ (pp)", "r2": "$R^2$"}
_CAPTIONS = {
    PRIMARY_METRIC: "Sequence-level comparison, RMSE",
    APPENDIX_METRIC: "Appendix: sequence-level comparison, MAE",
    "delta": "Paired differences of the pooled test metrics",
    "models": "Model size, efficiency and latency",
}
_SEED_AVERAGE = ("mean over the seeds analysed with the 95% interval of that mean (test sequences resampled, "
                 "one draw shared by all seeds; the seeds held fixed; n/a when seeds were analysed on different "
                 "sequences)")
_EFFECT_NOTE = ("Differences are A - B. First row of each comparison: " + _SEED_AVERAGE
                + ", median p, seeds with p < {alpha:g}; then one row per training seed.")
_DELTA_NOTE = "Differences are A - B; accuracy in percentage points. First row of each comparison: " + _SEED_AVERAGE \
    + "; then one row per training seed."
_MODELS_NOTE = ("Mean over the seeds analysed of each run's pooled test accuracy (|error| <= {eps:g}), parameter "
                "efficiency (accuracy % per 100k parameters) and single-sample CPU p95 latency (n/a without a "
                "metrics file).")


def format_number(value: float | None) -> str:
    """Three decimals; ``n/a`` for a missing or non-finite value."""
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.3f}"


def format_p(value: float | None, latex: bool) -> str:
    """p with three decimals, or scientific notation (two decimals) below 1e-3."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if value >= 1e-3:
        return f"{value:.3f}"
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"${mantissa}\\times 10^{{{int(exponent)}}}$" if latex else f"{mantissa}e{int(exponent)}"


def _interval(estimate: float | None, low: float | None, high: float | None) -> str:
    return f"{format_number(estimate)} [{format_number(low)}, {format_number(high)}]"


def effect_blocks(results: dict, metric: str) -> list[dict]:
    """Rows of the effect table for ``metric``: per comparison the Option-A row, then each seed."""
    blocks = []
    for key in results["comparison_order"]:
        entry = results["comparisons"][key]
        agg = entry["option_a"][metric]
        pooled = entry.get("seed_averaged") or {}
        rows = [{"seed": f"mean of {agg['n_seeds']}",
                 "delta": _interval(agg["mean_delta"], *_bounds(pooled, "per_sequence_mean", metric)),
                 "g": _interval(agg["mean_g"], *_bounds(pooled, "g", metric)),
                 "category": effect_category(agg["mean_g"] if agg["mean_g"] is not None else math.nan),
                 "p": format_p(agg["median_p"], latex=False), "p_tex": format_p(agg["median_p"], latex=True),
                 "significant": f"{agg['n_significant']}/{agg['n_seeds']}", "missing": False}]
        for seed in map(str, results["seeds"]):
            rows.append(_effect_seed_row(entry, seed, metric) if seed in entry["per_seed"] else _missing_row(seed))
        blocks.append({"comparison": f"{entry['model_a']} vs {entry['model_b']}", "rows": rows})
    return blocks


def _effect_seed_row(entry: dict, seed: str, metric: str) -> dict:
    block = entry["per_seed"][seed]
    effect, test = block["effect_size"][metric], block["permutation"][metric]
    delta = block["delta_bootstrap"]["per_sequence_mean"][metric]
    return {"seed": seed, "delta": _interval(delta["estimate"], delta["ci_low"], delta["ci_high"]),
            "g": _interval(effect["g"], *effect["g_ci"]), "category": effect["category"],
            "p": format_p(test["p_value"], latex=False), "p_tex": format_p(test["p_value"], latex=True),
            "significant": "yes" if test["significant"] else "no", "missing": False}


def _bounds(seed_averaged: dict, scope: str, metric: str) -> tuple[float | None, float | None]:
    """The 95% bounds of a seed-averaged statistic, or (None, None) when there is no common resample."""
    summary = seed_averaged.get(scope, {}).get(metric)
    return (None, None) if summary is None else (summary["ci_low"], summary["ci_high"])


def model_rows(results: dict) -> list[dict]:
    """Rows of the model table: per model its parameters, mean accuracy, efficiency and p95 latency."""
    return [{"model": model, "n_params": "n/a" if row["n_params"] is None else f"{row['n_params']:,}",
             "accuracy": format_number(row["accuracy"]),
             "efficiency": format_number(row["parameter_efficiency"]),
             "latency": format_number(row["p95_latency_ms"]), "n_seeds": str(row["n_seeds"])}
            for model, row in results["model_summary"].items()]


def _missing_row(seed: str) -> dict:
    """The row of a seed skipped because a prediction file was missing."""
    return {"seed": seed, "missing": True}


def delta_blocks(results: dict) -> list[dict]:
    """Rows of the Δ table: pooled differences of every metric, Option-A row then each seed."""
    blocks = []
    for key in results["comparison_order"]:
        entry = results["comparisons"][key]
        summary = entry["delta_over_seeds"]["pooled"]
        pooled = entry.get("seed_averaged") or {}
        rows = [{"seed": f"mean of {summary[METRICS[0]]['n_seeds']}",
                 "cells": [_interval(summary[m]["mean"], *_bounds(pooled, "pooled", m)) for m in METRICS],
                 "missing": False}]
        for seed in map(str, results["seeds"]):
            if seed not in entry["per_seed"]:
                rows.append(_missing_row(seed))
                continue
            pooled = entry["per_seed"][seed]["delta_bootstrap"]["pooled"]
            rows.append({"seed": seed, "cells": [_interval(pooled[m]["estimate"], pooled[m]["ci_low"],
                                                           pooled[m]["ci_high"]) for m in METRICS],
                         "missing": False})
        blocks.append({"comparison": f"{entry['model_a']} vs {entry['model_b']}", "rows": rows})
    return blocks


def render_tables(results: dict) -> dict[str, str]:
    """``{file name: text}`` of the LaTeX tables (RMSE, MAE appendix, Δ) and the Markdown file."""
    env = latex_environment(TEMPLATE_DIR)
    env.filters["md"] = markdown_escape
    env.filters["label"] = check_label
    effect = [{"metric": metric, "metric_label": METRIC_LABELS[metric], "caption": _CAPTIONS[metric],
               "note": _EFFECT_NOTE.format(alpha=results["settings"]["alpha"]), "label": f"tab:sequence-level-{metric}", "blocks": effect_blocks(results, metric)}
              for metric in EFFECT_METRICS]
    delta = {"caption": _CAPTIONS["delta"], "note": _DELTA_NOTE, "label": "tab:sequence-level-delta",
             "labels": [METRIC_LABELS[m] for m in METRICS], "labels_tex": [METRIC_LABELS_TEX[m] for m in METRICS],
             "blocks": delta_blocks(results)}
    models = {"caption": _CAPTIONS["models"], "note": _MODELS_NOTE.format(eps=results["settings"]["eps"]),
              "label": "tab:sequence-level-models", "rows": model_rows(results)}
    effect_tex = env.get_template("sequence_level_table.tex.j2")
    return {
        "sequence_level_table.tex": effect_tex.render(**effect[0]),
        "sequence_level_table_mae.tex": effect_tex.render(**effect[1]),
        "sequence_level_table_delta.tex": env.get_template("sequence_level_delta.tex.j2").render(**delta),
        "sequence_level_table_models.tex": env.get_template("sequence_level_models.tex.j2").render(**models),
        "sequence_level_table.md": env.get_template("sequence_level_table.md.j2").render(effect=effect, delta=delta,
                                                                                        models=models),
    }


def write_outputs(results: dict, out_dir: str | Path) -> list[Path]:
    """Write ``sequence_level_results.json`` and the tables atomically into ``out_dir``."""
    out_dir = Path(out_dir)
    results_json = dumps_json(results)
    written = [atomic_write_text(out_dir / "sequence_level_results.json", results_json)]
    for name, text in render_tables(json.loads(results_json)).items():
        written.append(atomic_write_text(out_dir / name, text))
    return written
