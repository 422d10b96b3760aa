"""From prediction files to ``results/bootstrap/sequence_level_*`` (spec sections 2.7 and 2.10).

For every seed, every comparison of the family is analysed on its own (same split for all seeds);
the seeds are then summarised per comparison (Option A) and rendered as a LaTeX (booktabs) and a
Markdown table: RMSE is the primary metric, MAE goes to an appendix table.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

from ...errors import ConfigError, DataError
from ...fileio import atomic_write_json, atomic_write_text, dumps_json
from ...report.latex import latex_environment
from ...report.tables import check_label, markdown_escape
from ...stats.multiple import holm_adjust
from ...stats.paired import effect_category
from .models import MODEL_SPECS
from .predictions import DEFAULT_EPS, find_predictions, pooled_metrics, read_predictions, run_dir
from .stats import bootstrap_ci_sequences, compare_models, multi_seed_analysis

#: The spec's comparison family (section 2.7), ``(A, B)`` with differences ``A - B``.
COMPARISONS = (("M1", "M3"), ("M2", "M5"), ("M3", "M5"), ("M3", "M4"), ("M5", "M6"), ("M5", "M7"),
               ("M5", "M8"), ("M6", "M7"), ("M6", "M8"), ("M7", "M8"))
TRAINING_SEEDS = (42, 94, 123, 7, 2024)
PRIMARY_METRIC, APPENDIX_METRIC = "rmse", "mae"
TEMPLATE_DIR = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class AnalysisSettings:
    """Knobs of the statistics; the defaults are the spec's."""

    eps: float = DEFAULT_EPS
    n_bootstrap_effect: int = 5000
    n_bootstrap_ci: int = 1000
    n_permutations: int = 10000
    alpha: float = 0.05
    seed: int = 42
    allow_missing: bool = False


def comparison_key(model_a: str, model_b: str) -> str:
    return f"{model_a}_vs_{model_b}"


def parse_comparison(text: str) -> tuple[str, str]:
    """``"M2:M5"`` or ``"M2_vs_M5"`` -> ``("M2", "M5")``."""
    parts = text.split(":") if ":" in text else text.split("_vs_")
    if len(parts) != 2 or not all(parts):
        raise ConfigError("cannot read a comparison", field="comparison",
                          expected="A:B, e.g. M2:M5", found=text)
    return parts[0], parts[1]


def _read_run_extras(path: Path) -> dict:
    """The optional ``{model}_metrics.json`` beside a prediction file (parameters, latency)."""
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON ({exc})", file=path) from exc


def _model_block(frame, extras: dict, settings: AnalysisSettings) -> dict:
    metrics = pooled_metrics(frame, settings.eps)
    block = {"source": frame.attrs["source"], "pooled": metrics,
             "bootstrap": bootstrap_ci_sequences(frame, n_bootstrap=settings.n_bootstrap_ci,
                                                 seed=settings.seed, eps=settings.eps)}
    for key in ("n_params", "parameter_efficiency"):  # latency stays in metrics.json: not reproducible
        if key in extras:
            block[key] = extras[key]
    return block


def analyze_runs(results_dir: str | Path, variant: str, seeds: Sequence[int],
                 comparisons: Sequence[tuple[str, str]] = COMPARISONS,
                 settings: AnalysisSettings = AnalysisSettings()) -> dict:
    """Read every needed prediction file and compute per-seed blocks and the Option-A summary.

    A Holm-Bonferroni adjustment over the comparison family within each seed is stored as
    ``p_holm`` next to each raw p-value.
    """
    if not comparisons or not seeds:
        raise ConfigError("nothing to analyse", expected="at least one comparison and one seed")
    model_ids = sorted({m for pair in comparisons for m in pair})
    models: dict[str, dict] = {m: {} for m in model_ids}
    per_comparison = {comparison_key(a, b): {} for a, b in comparisons}
    for seed in seeds:
        frames = {m: read_predictions(find_predictions(results_dir, variant, m, seed))
                  for m in model_ids}
        for m, frame in frames.items():
            extras = _read_run_extras(run_dir(results_dir, variant, m, seed) / f"{m}_metrics.json")
            models[m][str(seed)] = _model_block(frame, extras, settings)
        for a, b in comparisons:
            per_comparison[comparison_key(a, b)][seed] = compare_models(
                frames[a], frames[b], eps=settings.eps, n_bootstrap_effect=settings.n_bootstrap_effect,
                n_bootstrap_ci=settings.n_bootstrap_ci, n_permutations=settings.n_permutations,
                alpha=settings.alpha, seed=settings.seed, allow_missing=settings.allow_missing)
        _add_holm(per_comparison, seed)
    return {
        "variant": variant, "seeds": [int(s) for s in seeds], "settings": asdict(settings),
        "sign_convention": "differences are A - B; positive for an error metric means B is better",
        "comparison_order": list(per_comparison),  # the JSON sorts keys; tables keep this order
        "models": models,
        "comparisons": {key: {"model_a": a, "model_b": b,
                              "per_seed": {str(s): blk for s, blk in per_comparison[key].items()},
                              "option_a": {m: multi_seed_analysis(per_comparison[key], m,
                                                                  settings.alpha)
                                           for m in (PRIMARY_METRIC, APPENDIX_METRIC)}}
                        for key, (a, b) in zip(per_comparison, comparisons)},
    }


def _add_holm(per_comparison: dict, seed: int) -> None:
    """Holm-adjusted p-values over the comparison family of one seed, per metric."""
    blocks = [per_comparison[key][seed] for key in per_comparison]
    for metric in (PRIMARY_METRIC, APPENDIX_METRIC):
        raw = [blk["permutation"][metric]["p_value"] for blk in blocks]
        adjusted = holm_adjust(raw)
        for blk, p in zip(blocks, adjusted):
            blk["permutation"][metric]["p_holm"] = float(p)


def format_number(value: float) -> str:
    """Three decimals; ``n/a`` for a missing or non-finite value."""
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.3f}"


def format_p(value: float, latex: bool) -> str:
    """p with three decimals, or scientific notation (two decimals) below 1e-3."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if value >= 1e-3:
        return f"{value:.3f}"
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"${mantissa}\\times 10^{{{int(exponent)}}}$" if latex else f"{mantissa}e{int(exponent)}"


def table_rows(results: dict, metric: str) -> list[dict]:
    """Pre-formatted table cells of each comparison for ``metric`` (seed-averaged, Option A)."""
    rows = []
    for key in results["comparison_order"]:
        entry = results["comparisons"][key]
        agg = entry["option_a"][metric]
        lo, hi = agg["delta_ci_mean"]
        g_lo, g_hi = agg["g_ci_mean"]
        rows.append({
            "comparison": f"{entry['model_a']} vs {entry['model_b']}",
            "delta": f"{format_number(agg['mean_delta'])} [{format_number(lo)}, {format_number(hi)}]",
            "g": f"{format_number(agg['mean_g'])} [{format_number(g_lo)}, {format_number(g_hi)}]",
            "category": effect_category(agg["mean_g"] if agg["mean_g"] is not None else math.nan),
            "median_p": format_p(agg["median_p"], latex=False),
            "median_p_tex": format_p(agg["median_p"], latex=True),
            "significant": f"{agg['n_significant']}/{agg['n_seeds']}",
        })
    return rows


_CAPTIONS = {
    PRIMARY_METRIC: "Sequence-level comparison, RMSE (differences A - B; mean over seeds)",
    APPENDIX_METRIC: "Appendix: sequence-level comparison, MAE (differences A - B; mean over seeds)",
}


def render_tables(results: dict) -> dict[str, str]:
    """``{file name: text}`` of the LaTeX (RMSE, MAE appendix) and Markdown tables."""
    env = latex_environment(TEMPLATE_DIR)
    env.filters["md"] = markdown_escape
    env.filters["label"] = check_label
    tables = [{"metric_label": metric.upper(), "caption": _CAPTIONS[metric],
               "label": f"tab:sequence-level-{metric}", "rows": table_rows(results, metric)}
              for metric in (PRIMARY_METRIC, APPENDIX_METRIC)]
    tex = env.get_template("sequence_level_table.tex.j2")
    return {
        "sequence_level_table.tex": tex.render(**tables[0]),
        "sequence_level_table_mae.tex": tex.render(**tables[1]),
        "sequence_level_table.md": env.get_template("sequence_level_table.md.j2").render(tables=tables),
    }


def write_outputs(results: dict, out_dir: str | Path) -> list[Path]:
    """Write ``sequence_level_results.json`` and the tables atomically into ``out_dir``."""
    out_dir = Path(out_dir)
    written = [atomic_write_json(out_dir / "sequence_level_results.json", results)]
    for name, text in render_tables(json.loads(dumps_json(results))).items():
        written.append(atomic_write_text(out_dir / name, text))
    return written


def available_comparisons(model_ids: Sequence[str],
                          comparisons: Sequence[tuple[str, str]] = COMPARISONS) -> list[tuple[str, str]]:
    """The comparisons of the family whose two models are both in ``model_ids``."""
    present = set(model_ids)
    return [(a, b) for a, b in comparisons if a in present and b in present]


def check_model_ids(model_ids: Sequence[str]) -> list[str]:
    unknown = [m for m in model_ids if m not in MODEL_SPECS]
    if unknown:
        raise ConfigError("unknown model ids", field="models", expected=f"some of {sorted(MODEL_SPECS)}",
                          found=", ".join(unknown))
    return list(model_ids)
