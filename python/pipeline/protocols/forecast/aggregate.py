"""Aggregation of per-task scores (docs/forecast.md, "Aggregation"): means, relative scores, fev-style leaderboard.

Inputs are pandas frames indexed by task (dataset) with one column per model (errors, lower is
better). Missing or failed tasks are NaN and handled by an explicit policy:
``error`` (default, raise), ``drop`` (remove the task for every model) or ``impute`` (use the
baseline's error, i.e. relative error 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import ConfigError, DataError
from ...stats.resampling import cluster_resample_counts

MISSING_POLICIES = ("error", "drop", "impute")
CLIP_RANGE = (0.01, 100.0)


def apply_missing_policy(errors: pd.DataFrame, baseline: str, policy: str = "error") -> pd.DataFrame:
    """Return ``errors`` (tasks x models) with NaN entries handled by ``policy``."""
    if policy not in MISSING_POLICIES:
        raise ConfigError("unknown missing-task policy", field="--on-missing", expected=MISSING_POLICIES,
                          found=policy)
    if baseline not in errors.columns:
        raise ConfigError("baseline model has no scores", field="baseline", expected=baseline,
                          found=list(errors.columns))
    missing = errors.isna()
    if not missing.to_numpy().any():
        return errors
    if missing[baseline].any():
        raise DataError("the baseline has missing tasks, nothing to compare against",
                        field=baseline, found=list(errors.index[missing[baseline]]))
    if policy == "error":
        pairs = [f"{model}@{task}" for task, row in missing.iterrows() for model in row.index[row]]
        raise DataError("missing or failed task results (choose --on-missing drop or impute)",
                        found=", ".join(pairs))
    if policy == "drop":
        return errors.loc[~missing.any(axis=1)]
    return errors.apply(lambda column: column.fillna(errors[baseline]))


def mean_summary(table: pd.DataFrame) -> dict:
    """``avg_mase``, ``avg_wql`` and ``n_datasets`` over the scored rows of a per-dataset table.

    Imputed rows (no absolute score, only a relative one) do not enter these means.
    """
    scored = table[table["MASE"].notna()]
    return {"avg_mase": float(scored["MASE"].mean()), "avg_wql": float(scored["WQL"].mean()),
            "n_datasets": int(len(scored))}


def geometric_mean(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """``exp(mean(log values))``."""
    return np.exp(np.mean(np.log(values), axis=axis))


def relative_errors(errors: pd.DataFrame, baseline: str, clip: tuple[float, float] | None = None) -> pd.DataFrame:
    """Errors divided by the baseline's error on the same task, optionally clipped."""
    relative = errors.div(errors[baseline], axis=0)
    return relative.clip(*clip) if clip else relative


def gmean_relative(errors: pd.DataFrame, baseline: str) -> pd.Series:
    """Chronos aggregate: geometric mean over tasks of ``error / baseline error`` per model."""
    relative = relative_errors(errors, baseline)
    return pd.Series(geometric_mean(relative.to_numpy()), index=errors.columns)


def _pairwise_wins(values: np.ndarray) -> np.ndarray:
    """``(T, M, M)``: 1 where model a beats b on task t, 0.5 on ties, 0 otherwise."""
    a, b = values[:, :, None], values[:, None, :]
    return (a < b) + 0.5 * (a == b)


def leaderboard(errors: pd.DataFrame, baseline: str, *, policy: str = "error", n_resamples: int = 1000,
                seed: int = 123, clip: tuple[float, float] = CLIP_RANGE) -> pd.DataFrame:
    """fev-style leaderboard: skill score, win rates and bootstrap 95 % CIs.

    ``skill_score = 1 - gmean(clip(error / baseline error))``; ``win_rate`` of a model is the mean
    over the other models of the fraction of tasks it beats them on (ties 0.5);
    ``win_rate_vs_baseline`` is the same against the baseline only. CIs: ``n_resamples`` bootstrap
    resamples of tasks with ``np.random.default_rng(seed)``, percentile bounds 2.5 % / 97.5 %.
    With the defaults this reproduces ``fev.analysis.leaderboard`` (fev 0.10.0) including the CIs.
    """
    # tasks in name order, as fev does, so that the same seed draws the same resamples
    errors = apply_missing_policy(errors, baseline, policy).sort_index()
    if errors.empty:
        raise DataError("no task left to aggregate")
    models = list(errors.columns)
    log_relative = np.log(relative_errors(errors, baseline, clip).to_numpy())
    wins = _pairwise_wins(errors.to_numpy())
    n_tasks, n_models = log_relative.shape
    others = ~np.eye(n_models, dtype=bool)

    def statistics(task_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Skill and win rate per resample; ``task_weights`` is (B, T) counts of each task."""
        total = task_weights.sum(axis=1, keepdims=True)
        skill = 1.0 - np.exp(task_weights @ log_relative / total)
        pair_rate = np.einsum("bt,tij->bij", task_weights, wins) / total[:, :, None]
        win_rate = (pair_rate * others).sum(axis=2) / max(n_models - 1, 1)
        return skill, win_rate

    skill, win_rate = statistics(np.ones((1, n_tasks)))
    # tasks drawn with replacement, as multiplicities (same draws as rng.integers(0, T, (B, T)))
    boot_skill, boot_win = statistics(cluster_resample_counts(n_tasks, n_resamples, seed).astype(float))
    skill_ci = np.quantile(boot_skill, [0.025, 0.975], axis=0)
    win_ci = np.quantile(boot_win, [0.025, 0.975], axis=0)
    base = models.index(baseline)
    vs_baseline = _pairwise_wins(errors.to_numpy())[:, :, base].mean(axis=0)
    frame = pd.DataFrame({
        "model": models,
        "skill_score": skill[0], "skill_score_lower": skill_ci[0], "skill_score_upper": skill_ci[1],
        "win_rate": win_rate[0], "win_rate_lower": win_ci[0], "win_rate_upper": win_ci[1],
        "win_rate_vs_baseline": vs_baseline,
        "gmean_relative_error": geometric_mean(np.exp(log_relative)),
        "n_tasks": n_tasks,
    })
    return frame.sort_values(["skill_score", "model"], ascending=[False, True], kind="stable").reset_index(drop=True)


BOOTSTRAP = {"level": 0.95, "n_resamples": 1000, "seed": 123,
             "method": "percentile bootstrap over tasks, as fev.analysis.leaderboard"}


def baseline_skill(relative: pd.Series) -> dict:
    """Skill score against the baseline, ``1 - gmean(clip(relative error))``, with its bootstrap 95 % CI
    and the win rate over the baseline (with CI), from per-task relative errors (task-indexed)."""
    errors = pd.DataFrame({"model": relative.to_numpy(dtype=float), "baseline": 1.0}, index=relative.index)
    row = leaderboard(errors, "baseline", n_resamples=BOOTSTRAP["n_resamples"],
                      seed=BOOTSTRAP["seed"]).set_index("model").loc["model"]
    return {"skill_score": float(row["skill_score"]), "skill_score_lower": float(row["skill_score_lower"]),
            "skill_score_upper": float(row["skill_score_upper"]), "win_rate": float(row["win_rate"]),
            "win_rate_lower": float(row["win_rate_lower"]), "win_rate_upper": float(row["win_rate_upper"]),
            "n_tasks": int(row["n_tasks"])}
