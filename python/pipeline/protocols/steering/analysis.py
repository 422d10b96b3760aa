"""From prediction files to the per-seed statistics and their Option-A summary over seeds.

For every training seed, every comparison of the family is analysed on its own (all seeds share
one split); the seeds are then summarised per comparison without pooling predictions. With
``allow_missing`` a missing prediction file skips that model's seed (recorded and counted in
``missing_runs``) instead of stopping the analysis. :mod:`.tables` renders the result.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path
from typing import Sequence

import pandas as pd

from ...errors import ConfigError, DataError
from ...stats.multiple import holm_adjust
from .checks import open_interval, positive_int
from .files import read_json_file
from .models import MODEL_SPECS, parameter_efficiency
from .predictions import (DEFAULT_EPS, existing_predictions, find_predictions, pooled_metrics,
                          predictions_path, read_predictions, run_dir)
from .stats import (bootstrap_ci_sequences, compare_paired, delta_over_seeds, multi_seed_analysis, paired_run,
                    seed_averaged_intervals)

#: The comparison family, ``(A, B)`` with differences ``A - B`` (see ``docs/steering.md``).
COMPARISONS = (("M1", "M3"), ("M2", "M5"), ("M3", "M5"), ("M3", "M4"), ("M5", "M6"), ("M5", "M7"),
               ("M5", "M8"), ("M6", "M7"), ("M6", "M8"), ("M7", "M8"))
TRAINING_SEEDS = (42, 94, 123, 7, 2024)
PRIMARY_METRIC, APPENDIX_METRIC = "rmse", "mae"
EFFECT_METRICS = (PRIMARY_METRIC, APPENDIX_METRIC)


@dataclass(frozen=True)
class AnalysisSettings:
    """Knobs of the statistics (defaults as documented in ``docs/steering.md``)."""

    eps: float = DEFAULT_EPS
    n_bootstrap_effect: int = 5000
    n_bootstrap_ci: int = 1000
    n_permutations: int = 10000
    alpha: float = 0.05
    seed: int = 42
    allow_missing: bool = False

    def __post_init__(self) -> None:
        for name in ("n_bootstrap_effect", "n_bootstrap_ci", "n_permutations"):
            positive_int(getattr(self, name), name)
        open_interval(self.alpha, 0, 1, "alpha")
        if not self.eps >= 0:
            raise ConfigError("accuracy tolerance must be >= 0", field="eps", found=self.eps)


def comparison_key(model_a: str, model_b: str) -> str:
    return f"{model_a}_vs_{model_b}"


def parse_comparison(text: str) -> tuple[str, str]:
    """``"M2:M5"`` or ``"M2_vs_M5"`` -> ``("M2", "M5")``."""
    parts = text.split(":") if ":" in text else text.split("_vs_")
    if len(parts) != 2 or not all(parts):
        raise ConfigError("cannot read a comparison", field="comparison",
                          expected="A:B, e.g. M2:M5", found=text)
    return parts[0], parts[1]


def _check_request(seeds: Sequence[int], comparisons: Sequence[tuple[str, str]]) -> None:
    if not comparisons or not seeds:
        raise ConfigError("nothing to analyse", expected="at least one comparison and one seed")
    if len(set(seeds)) < len(seeds):
        raise ConfigError("a seed is listed twice", field="seeds", found=list(seeds))
    if len(set(comparisons)) < len(comparisons):
        raise ConfigError("a comparison is listed twice", field="comparisons",
                          found=[comparison_key(a, b) for a, b in comparisons])
    same = [a for a, b in comparisons if a == b]
    if same:
        raise ConfigError("a model cannot be compared with itself", field="comparisons", found=same[0])


def _read_run_extras(path: Path) -> dict:
    """The optional ``{model}_metrics.json`` beside a prediction file (parameters, latency)."""
    if not path.is_file():
        return {}
    extras = read_json_file(path)
    if not isinstance(extras, dict):
        raise DataError("run metrics must be a JSON object", file=path, found=type(extras).__name__)
    return extras


def _model_block(model: str, frame: pd.DataFrame, extras: dict, settings: AnalysisSettings) -> dict:
    """Pooled metrics and their cluster-bootstrap CIs of one run, its parameter count and efficiency
    (accuracy of this file over the zoo's parameter count, or the metrics file's count for a model
    outside the zoo) and its single-sample CPU p95 latency (from the metrics file; None without one)."""
    pooled = pooled_metrics(frame, settings.eps)
    n_params = MODEL_SPECS[model].expected_params if model in MODEL_SPECS else extras.get("n_params")
    latency = extras.get("latency")
    return {"source": frame.attrs["source"], "pooled": pooled,
            "bootstrap": bootstrap_ci_sequences(frame, n_bootstrap=settings.n_bootstrap_ci,
                                                seed=settings.seed, eps=settings.eps),
            "n_params": n_params,
            "parameter_efficiency": None if n_params is None else parameter_efficiency(pooled["accuracy"], n_params),
            "p95_latency_ms": latency.get("p95_ms") if isinstance(latency, dict) else None}


def _mean_or_none(values: list) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def model_summary(models: dict[str, dict]) -> dict[str, dict]:
    """Per model over its seeds: parameter count, mean parameter efficiency, mean p95 latency (ms)."""
    return {model: {"n_seeds": len(blocks), "n_params": next(iter(blocks.values()))["n_params"] if blocks else None,
                    "parameter_efficiency": _mean_or_none([b["parameter_efficiency"] for b in blocks.values()]),
                    "p95_latency_ms": _mean_or_none([b["p95_latency_ms"] for b in blocks.values()]),
                    "accuracy": _mean_or_none([b["pooled"]["accuracy"] for b in blocks.values()])}
            for model, blocks in models.items()}


def _locate_runs(results_dir: str | Path, variant: str, seeds: Sequence[int], comparisons: Sequence[tuple[str, str]],
                 allow_missing: bool) -> tuple[dict[tuple[str, int], Path], list[dict]]:
    """Find every prediction file before any statistics run.

    Returns ``{(model, seed): path}`` of the files found and the missing runs. A missing file is an
    error unless ``allow_missing``; a comparison left without any seed is always an error.
    """
    found, missing = {}, []
    for seed in seeds:
        for model in sorted({m for pair in comparisons for m in pair}):
            path = existing_predictions(results_dir, variant, model, seed)
            if path is None and not allow_missing:
                find_predictions(results_dir, variant, model, seed)  # raises, naming the file
            if path is None:
                missing.append({"model": model, "seed": int(seed),
                                "expected": str(predictions_path(results_dir, variant, model, seed))})
            else:
                found[model, seed] = path
    empty = [comparison_key(a, b) for a, b in comparisons
             if not any((a, s) in found and (b, s) in found for s in seeds)]
    if empty:
        raise DataError("no seed has the prediction files of both models", field="comparisons",
                        found=", ".join(empty))
    return found, missing


def analyze_runs(results_dir: str | Path, variant: str, seeds: Sequence[int],
                 comparisons: Sequence[tuple[str, str]] = COMPARISONS,
                 settings: AnalysisSettings = AnalysisSettings()) -> dict:
    """Read every needed prediction file and compute per-seed blocks and the Option-A summary.

    Within each seed, Holm-adjusted p-values over the comparisons analysed in that seed are
    stored as ``p_holm`` next to each raw p-value. With ``settings.allow_missing`` a missing
    prediction file skips its model's seed; a comparison with no seed at all raises.
    """
    _check_request(seeds, comparisons)
    found, missing_runs = _locate_runs(results_dir, variant, seeds, comparisons, settings.allow_missing)
    models: dict[str, dict] = {m: {} for m in sorted({m for pair in comparisons for m in pair})}
    per_comparison: dict[str, dict] = {comparison_key(a, b): {} for a, b in comparisons}
    paired_runs: dict[str, list] = {key: [] for key in per_comparison}
    for seed in seeds:
        frames = {m: read_predictions(path) for (m, s), path in found.items() if s == seed}
        for model, frame in frames.items():
            extras = _read_run_extras(run_dir(results_dir, variant, model, seed) / f"{model}_metrics.json")
            models[model][str(seed)] = _model_block(model, frame, extras, settings)
        present = [(a, b) for a, b in comparisons if a in frames and b in frames]
        runs = [paired_run(frames[a], frames[b], eps=settings.eps, allow_missing=settings.allow_missing)
                for a, b in present]
        blocks = [compare_paired(run, n_bootstrap_effect=settings.n_bootstrap_effect,
                                 n_bootstrap_ci=settings.n_bootstrap_ci, n_permutations=settings.n_permutations,
                                 alpha=settings.alpha, seed=settings.seed) for run in runs]
        _add_holm(blocks)
        for (a, b), block, run in zip(present, blocks, runs):
            per_comparison[comparison_key(a, b)][seed] = block
            paired_runs[comparison_key(a, b)].append(run)
    return {
        "variant": variant, "seeds": [int(s) for s in seeds], "settings": asdict(settings),
        "sign_convention": "differences are A - B; positive for an error metric means B is better",
        "comparison_order": list(per_comparison),  # the JSON sorts keys; tables keep this order
        "models": models, "model_summary": model_summary(models), "missing_runs": missing_runs, "n_missing_runs": len(missing_runs),
        "comparisons": {key: _comparison_entry(a, b, per_comparison[key], seeds, settings.alpha)
                        | {"seed_averaged": seed_averaged_intervals(paired_runs[key], effect_metrics=EFFECT_METRICS,
                                                                    n_bootstrap=settings.n_bootstrap_ci,
                                                                    seed=settings.seed)}
                        for key, (a, b) in zip(per_comparison, comparisons)},
    }


def _comparison_entry(model_a: str, model_b: str, blocks: dict, seeds: Sequence[int], alpha: float) -> dict:
    return {"model_a": model_a, "model_b": model_b,
            "per_seed": {str(s): block for s, block in blocks.items()},
            "skipped_seeds": [int(s) for s in seeds if s not in blocks],
            "option_a": {m: multi_seed_analysis(blocks, m, alpha) for m in EFFECT_METRICS},
            "delta_over_seeds": {scope: delta_over_seeds(blocks, scope) for scope in ("pooled", "per_sequence_mean")}}


def _add_holm(blocks: list[dict]) -> None:
    """Holm-adjusted p-values over the comparisons of one seed, per metric."""
    for metric in EFFECT_METRICS:
        adjusted = holm_adjust([block["permutation"][metric]["p_value"] for block in blocks])
        for block, p in zip(blocks, adjusted):
            block["permutation"][metric]["p_holm"] = float(p)


def missing_run_warnings(results: dict) -> list[str]:
    """One line per skipped run and a count, for the command line (empty when nothing is missing)."""
    lines = []
    for run in results["missing_runs"]:
        skipped = [key for key, entry in results["comparisons"].items()
                   if run["model"] in (entry["model_a"], entry["model_b"])]
        lines.append(f"{run['expected']}: prediction file missing; seed {run['seed']} skipped for "
                     f"{', '.join(skipped)}")
    if lines:
        n_pairs = sum(len(entry["skipped_seeds"]) for entry in results["comparisons"].values())
        lines.append(f"{len(lines)} prediction file(s) missing; {n_pairs} comparison-seed pair(s) skipped")
    return lines


def available_comparisons(model_ids: Sequence[str],
                          comparisons: Sequence[tuple[str, str]] = COMPARISONS) -> list[tuple[str, str]]:
    """The comparisons of the family whose two models are both in ``model_ids``."""
    present = set(model_ids)
    return [(a, b) for a, b in comparisons if a in present and b in present]


def default_comparisons(model_ids: Sequence[str]) -> list[tuple[str, str]]:
    """The comparisons of the family among ``model_ids``, or every pair of them if the family has none."""
    return available_comparisons(model_ids) or list(combinations(sorted(model_ids), 2))


def find_variant(results_dir: str | Path) -> str:
    """The one variant folder of ``results_dir`` (a folder holding ``{model}/seed_{seed}/``)."""
    results_dir = Path(results_dir)
    variants = sorted(p.name for p in results_dir.iterdir() if p.is_dir() and run_models(p)) \
        if results_dir.is_dir() else []
    if len(variants) != 1:
        raise ConfigError("cannot tell which variant to analyse" if variants else "no runs found",
                          file=results_dir, field="--variant",
                          expected="one folder {variant}/{model}/seed_{seed}/ (or choose one with --variant)",
                          found=", ".join(variants) or "none")
    return variants[0]


def run_models(variant_dir: Path) -> list[str]:
    """Models with at least one ``seed_{seed}`` folder under ``variant_dir``, sorted."""
    return sorted(p.name for p in variant_dir.iterdir() if p.is_dir() and _seed_dirs(p))


def _seed_dirs(model_dir: Path) -> list[Path]:
    return [p for p in model_dir.glob("seed_*") if p.is_dir() and p.name[5:].lstrip("-").isdigit()]


def seeds_present(results_dir: str | Path, variant: str, models: Sequence[str]) -> list[int]:
    """Training seeds with a run folder of any of ``models``, in the order of TRAINING_SEEDS, then ascending."""
    found = {int(p.name[5:]) for m in models for p in _seed_dirs(Path(results_dir) / variant / m)}
    return [s for s in TRAINING_SEEDS if s in found] + sorted(found - set(TRAINING_SEEDS))


def check_model_ids(model_ids: Sequence[str]) -> list[str]:
    unknown = [m for m in model_ids if m not in MODEL_SPECS]
    if unknown:
        raise ConfigError("unknown model ids", field="models", expected=f"some of {sorted(MODEL_SPECS)}",
                          found=", ".join(unknown))
    return list(model_ids)

