"""Sequence-level statistics for comparing two models (``docs/steering.md``, "Statistics").

The unit of analysis is the sequence: its samples are autocorrelated, sequences are independent.
Every test or interval therefore works on one number per sequence (or resamples whole
sequences), never on the raw samples. Differences are ``A - B``, so for an error metric a
positive difference means model B is better.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ...errors import DataError
from ...stats.paired import hedges_correction, paired_effect_size, sign_flip_test
from ...stats.resampling import cluster_resample_counts, resampled_group_sums, summarize_replicates
from .predictions import DEFAULT_EPS, aggregate_per_sequence, pair_predictions, sequence_sums

METRICS = ("mae", "rmse", "accuracy", "r2")


def paired_sequence_values(seq_a: pd.DataFrame, seq_b: pd.DataFrame, metric: str = "rmse", *,
                           allow_missing: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inner-join two per-sequence tables on ``sequence_id``: ``(ids, a, b)`` sorted by id.

    Sequences in only one table raise DataError unless ``allow_missing``; fewer than two shared
    sequences always raise.
    """
    for table in (seq_a, seq_b):
        for column in ("sequence_id", metric):
            if column not in table.columns:
                raise DataError("per-sequence table lacks a column", field=column,
                                found=", ".join(map(str, table.columns)))
    joined = seq_a[["sequence_id", metric]].merge(seq_b[["sequence_id", metric]], on="sequence_id",
                                                  how="outer", suffixes=("_a", "_b"))
    missing = joined[joined[[f"{metric}_a", f"{metric}_b"]].isna().any(axis=1)]
    if len(missing) and not allow_missing:
        raise DataError(f"{len(missing)} sequences lack a {metric} value for one of the models",
                        field="sequence_id", found=", ".join(map(str, missing["sequence_id"][:5])))
    joined = joined.dropna().sort_values("sequence_id", kind="stable")
    if len(joined) < 2:
        raise DataError("fewer than 2 paired sequences: sequence-level statistics are undefined",
                        field="sequence_id", found=len(joined))
    return (joined["sequence_id"].to_numpy(str), joined[f"{metric}_a"].to_numpy(float),
            joined[f"{metric}_b"].to_numpy(float))


def cohens_d_paired_sequences(seq_a: pd.DataFrame, seq_b: pd.DataFrame, metric: str = "rmse", *,
                              n_bootstrap: int = 5000, confidence: float = 0.95, seed: int = 42,
                              allow_missing: bool = False) -> dict:
    """Cohen's d_z and Hedges' g (df = n - 1) of ``d_i = m_A,i - m_B,i`` with BCa/percentile CIs.

    Inputs are per-sequence tables from :func:`aggregate_per_sequence`. Returns the fields of
    :class:`pipeline.stats.paired.PairedEffectSize` plus ``metric``, ``mean_a``, ``mean_b``.
    """
    _, a, b = paired_sequence_values(seq_a, seq_b, metric, allow_missing=allow_missing)
    result = paired_effect_size(a - b, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)
    return {"metric": metric, "mean_a": float(a.mean()), "mean_b": float(b.mean()),
            **result.to_dict()}


def permutation_test_sequences(seq_a: pd.DataFrame, seq_b: pd.DataFrame, metric: str = "rmse", *,
                               n_permutations: int = 10000, alpha: float = 0.05, seed: int = 42,
                               allow_missing: bool = False) -> dict:
    """Paired sign-flip test of ``mean(m_A,i - m_B,i) = 0`` over sequences (exact when 2**n <= B).

    Returns ``observed_diff, p_value, significant, n_sequences, n_permutations, exact, alpha``.
    """
    _, a, b = paired_sequence_values(seq_a, seq_b, metric, allow_missing=allow_missing)
    result = sign_flip_test(a - b, n_permutations=n_permutations, alpha=alpha, seed=seed)[0]
    return {"metric": metric, **result.to_dict()}


def _metrics_from_sums(sums: np.ndarray) -> dict[str, np.ndarray]:
    """MAE, RMSE, accuracy % and R² from summed rows ``(..., 6)`` of :func:`sequence_sums`."""
    n, sum_abs, sum_sq, hits, sum_y, sum_y2 = np.moveaxis(sums, -1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ss_tot = sum_y2 - sum_y ** 2 / n
        r2 = np.where(ss_tot > 0, 1 - sum_sq / np.where(ss_tot > 0, ss_tot, 1.0), np.nan)
    return {"mae": sum_abs / n, "rmse": np.sqrt(sum_sq / n), "accuracy": 100 * hits / n, "r2": r2}


def _per_sequence_values(frame: pd.DataFrame, eps: float) -> dict[str, np.ndarray]:
    """Each metric per sequence (sorted by id, as :func:`sequence_sums`); R² NaN for constant targets."""
    table = aggregate_per_sequence(frame, eps)
    return {m: table[m].to_numpy(float) for m in METRICS}


def _finite_mean(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else math.nan


def _resampled_finite_means(values: Mapping[str, np.ndarray], counts: np.ndarray) -> dict[str, np.ndarray]:
    """Per metric, the mean over each resample's drawn sequences of its defined (finite) values.

    ``values`` maps metric -> ``(G,)``; returns metric -> ``(B,)`` from one matrix product. Equal
    to :func:`resampled_group_means` when every value is finite; a resample that drew only
    undefined sequences gets NaN (and is left out of the summary).
    """
    matrix = np.column_stack(list(values.values()))
    finite = np.isfinite(matrix)
    totals = counts @ np.hstack([np.where(finite, matrix, 0.0), finite])
    with np.errstate(divide="ignore", invalid="ignore"):
        means = totals[:, :matrix.shape[1]] / totals[:, matrix.shape[1]:]
    return dict(zip(values, means.T))


def _summaries(estimates: Mapping[str, float], replicates: Mapping[str, np.ndarray],
               confidence: float) -> dict:
    return {name: summarize_replicates(estimates[name], replicates[name], confidence).to_dict()
            for name in replicates}


def bootstrap_ci_sequences(frame: pd.DataFrame, *, n_bootstrap: int = 1000, seed: int = 42,
                           eps: float = DEFAULT_EPS, confidence: float = 0.95) -> dict:
    """Cluster-bootstrap CIs of one model's metrics, resampling whole sequences.

    For every resample: (a) the mean over drawn sequences of the per-sequence MAE, RMSE,
    accuracy and R² (R² over the sequences where it is defined); (b) the pooled MAE, RMSE,
    accuracy and R² over all samples of the drawn sequences, duplicates counted with
    multiplicity. Returns ``{"per_sequence_mean": {metric: summary}, "pooled": {metric: summary}}``;
    a summary holds estimate, mean, std, ci_low, ci_high.
    """
    sums = sequence_sums(frame, eps).to_numpy()
    counts = cluster_resample_counts(sums.shape[0], n_bootstrap, seed)
    per_sequence = _per_sequence_values(frame, eps)
    return {"n_sequences": int(sums.shape[0]), "n_bootstrap": n_bootstrap, "seed": seed,
            "per_sequence_mean": _summaries(
                {m: _finite_mean(v) for m, v in per_sequence.items()},
                _resampled_finite_means(per_sequence, counts), confidence),
            "pooled": _summaries(_metrics_from_sums(sums.sum(axis=0)),
                                 _metrics_from_sums(resampled_group_sums(sums, counts)), confidence)}


def paired_bootstrap_delta(paired: pd.DataFrame, *, n_bootstrap: int = 1000, seed: int = 42,
                           eps: float = DEFAULT_EPS, confidence: float = 0.95) -> dict:
    """Paired cluster bootstrap of Δ = A - B for MAE, RMSE, accuracy and R².

    ``paired`` comes from :func:`pair_predictions`; both models are evaluated on the same drawn
    sequences in every resample. ``per_sequence_mean`` is the mean over drawn sequences of the
    per-sequence differences (for R² over sequences with non-constant targets, which are the same
    for both models); ``pooled`` is the difference of the metrics pooled over all samples of the
    drawn sequences. Accuracy differences are in percentage points.
    """
    frames = _prediction_frames(paired)
    tables = [aggregate_per_sequence(frame, eps) for frame in frames]
    return _bootstrap_delta([sequence_sums(frame, eps).to_numpy() for frame in frames], tables,
                            n_bootstrap=n_bootstrap, seed=seed, confidence=confidence)


def _delta_replicates(sums: Sequence[np.ndarray], tables: Sequence[pd.DataFrame],
                      counts: np.ndarray) -> tuple[dict, dict]:
    """Estimates and bootstrap replicates (rows of ``counts``) of Δ = A - B per scope
    (``per_sequence_mean``, ``pooled``) and metric, from the per-sequence sums
    (:func:`sequence_sums`) of A and B and their per-sequence tables (:func:`aggregate_per_sequence`)."""
    per_seq = [{m: table[m].to_numpy(float) for m in METRICS} for table in tables]
    delta_seq = {m: per_seq[0][m] - per_seq[1][m] for m in METRICS}
    pooled = [_metrics_from_sums(s.sum(axis=0)) for s in sums]
    pooled_boot = [_metrics_from_sums(resampled_group_sums(s, counts)) for s in sums]
    estimates = {"per_sequence_mean": {m: _finite_mean(v) for m, v in delta_seq.items()},
                 "pooled": {m: pooled[0][m] - pooled[1][m] for m in METRICS}}
    replicates = {"per_sequence_mean": _resampled_finite_means(delta_seq, counts),
                  "pooled": {m: pooled_boot[0][m] - pooled_boot[1][m] for m in METRICS}}
    return estimates, replicates


def _bootstrap_delta(sums: Sequence[np.ndarray], tables: Sequence[pd.DataFrame], *, n_bootstrap: int,
                     seed: int, confidence: float) -> dict:
    """:func:`paired_bootstrap_delta` from the per-sequence sums and tables of A and B."""
    counts = cluster_resample_counts(sums[0].shape[0], n_bootstrap, seed)
    estimates, replicates = _delta_replicates(sums, tables, counts)
    return {"n_sequences": int(sums[0].shape[0]), "n_bootstrap": n_bootstrap, "seed": seed,
            **{scope: _summaries(estimates[scope], replicates[scope], confidence) for scope in estimates}}


def _as_predictions(paired: pd.DataFrame, error_column: str) -> pd.DataFrame:
    return pd.DataFrame({"sequence_id": paired["sequence_id"], "y_true": paired["y_true"],
                         "y_pred": paired["y_true"] + paired[error_column]})


def _prediction_frames(paired: pd.DataFrame) -> list[pd.DataFrame]:
    """The prediction tables of models A and B from :func:`pair_predictions`."""
    return [_as_predictions(paired, column) for column in ("error_a", "error_b")]


@dataclass(frozen=True)
class PairedRun:
    """One seed's paired sequences of models A and B: sorted ids, per-sequence sums
    (:func:`sequence_sums`, rows aligned with ``ids``) and per-sequence metric tables."""

    ids: np.ndarray
    sums: tuple[np.ndarray, np.ndarray]
    tables: tuple[pd.DataFrame, pd.DataFrame]

    def differences(self, metric: str) -> np.ndarray:
        """Per-sequence ``m_A,i - m_B,i`` ``(n,)``."""
        return self.tables[0][metric].to_numpy(float) - self.tables[1][metric].to_numpy(float)


def paired_run(frame_a: pd.DataFrame, frame_b: pd.DataFrame, *, eps: float = DEFAULT_EPS,
               allow_missing: bool = False) -> PairedRun:
    """Pair two prediction tables by ``(sequence_id, sample_idx)`` and aggregate per sequence."""
    paired = pair_predictions(frame_a, frame_b, allow_missing=allow_missing)
    frames = _prediction_frames(paired)
    tables = [aggregate_per_sequence(frame, eps) for frame in frames]
    if len(tables[0]) < 2:
        raise DataError("fewer than 2 shared sequences", file=frame_a.attrs.get("source"),
                        field="sequence_id", found=len(tables[0]))
    return PairedRun(ids=tables[0]["sequence_id"].to_numpy(str),
                     sums=tuple(sequence_sums(frame, eps).to_numpy() for frame in frames),
                     tables=tuple(tables))


def compare_models(frame_a: pd.DataFrame, frame_b: pd.DataFrame, *, metrics=("rmse", "mae"),
                   eps: float = DEFAULT_EPS, n_bootstrap_effect: int = 5000,
                   n_bootstrap_ci: int = 1000, n_permutations: int = 10000, alpha: float = 0.05,
                   seed: int = 42, allow_missing: bool = False) -> dict:
    """All sequence-level statistics of one seed for models A and B (sections 2.4-2.6).

    Pairs the prediction tables by ``(sequence_id, sample_idx)``, aggregates per sequence and
    returns ``{"n_sequences", "effect_size": {metric: ...}, "permutation": {metric: ...},
    "delta_bootstrap": ...}``.
    """
    return compare_paired(paired_run(frame_a, frame_b, eps=eps, allow_missing=allow_missing), metrics=metrics,
                          n_bootstrap_effect=n_bootstrap_effect, n_bootstrap_ci=n_bootstrap_ci,
                          n_permutations=n_permutations, alpha=alpha, seed=seed)


def compare_paired(run: PairedRun, *, metrics=("rmse", "mae"),
                   n_bootstrap_effect: int = 5000, n_bootstrap_ci: int = 1000, n_permutations: int = 10000,
                   alpha: float = 0.05, seed: int = 42) -> dict:
    """:func:`compare_models` of an already paired run."""
    seq_a, seq_b = run.tables
    return {
        "n_sequences": int(len(seq_a)),
        "effect_size": {m: cohens_d_paired_sequences(seq_a, seq_b, m, n_bootstrap=n_bootstrap_effect,
                                                     seed=seed) for m in metrics},
        "permutation": {m: permutation_test_sequences(seq_a, seq_b, m, n_permutations=n_permutations,
                                                      alpha=alpha, seed=seed) for m in metrics},
        "delta_bootstrap": _bootstrap_delta(run.sums, run.tables, n_bootstrap=n_bootstrap_ci, seed=seed,
                                            confidence=0.95),
    }


def _resampled_hedges_g(differences: np.ndarray, counts: np.ndarray) -> tuple[float, np.ndarray]:
    """Hedges' g (df = n - 1) of ``differences`` ``(n,)`` and of each resample (rows of ``counts``);
    NaN where the drawn differences have no spread."""
    n = differences.size
    j = hedges_correction(n - 1)
    means = np.r_[differences.mean(), counts @ differences / n]
    squares = np.r_[(differences ** 2).sum(), counts @ differences ** 2]
    variances = (squares - n * means ** 2) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(variances > 1e-15 * np.maximum(means ** 2, 1e-300), j * means / np.sqrt(variances), np.nan)
    return float(g[0]), g[1:]


def seed_averaged_intervals(runs: Sequence[PairedRun], *, effect_metrics=("rmse", "mae"), n_bootstrap: int = 1000,
                            seed: int = 42, confidence: float = 0.95) -> dict | None:
    """Percentile intervals of the seed-averaged differences, resampling sequences (seeds held fixed).

    Every resample draws one set of test sequences, used for every seed and both models; each
    statistic is computed per seed on that draw and averaged over the seeds. The interval is the
    one of ``mean over seeds of Δ_s`` as an estimate over the population of sequences, for these
    trained models; the seed-to-seed spread is reported beside it (std, min, max), not inside it.
    Returns ``{"per_sequence_mean": {metric: summary}, "pooled": {metric: summary},
    "g": {metric: summary}}``, or None when the seeds were analysed on different sequences
    (``allow_missing``), where no common resample exists.
    """
    if any(not np.array_equal(run.ids, runs[0].ids) for run in runs):
        return None
    counts = cluster_resample_counts(runs[0].ids.size, n_bootstrap, seed)
    estimates: dict[str, dict[str, list]] = {"per_sequence_mean": {}, "pooled": {}, "g": {}}
    replicates: dict[str, dict[str, list]] = {"per_sequence_mean": {}, "pooled": {}, "g": {}}
    for run in runs:
        run_estimates, run_replicates = _delta_replicates(run.sums, run.tables, counts)
        run_estimates["g"], run_replicates["g"] = {}, {}
        for m in effect_metrics:
            run_estimates["g"][m], run_replicates["g"][m] = _resampled_hedges_g(run.differences(m), counts)
        for scope, values in run_estimates.items():
            for m, value in values.items():
                estimates[scope].setdefault(m, []).append(value)
                replicates[scope].setdefault(m, []).append(run_replicates[scope][m])
    return {"n_seeds": len(runs), "n_sequences": int(runs[0].ids.size), "n_bootstrap": n_bootstrap, "seed": seed,
            **{scope: {m: summarize_replicates(float(np.mean(estimates[scope][m])),
                                               np.mean(replicates[scope][m], axis=0), confidence).to_dict()
                       for m in estimates[scope]} for scope in estimates}}


def _spread(values: list[float]) -> dict:
    """mean, std (ddof = 1; NaN for one value), min, max of finite values."""
    finite = np.array([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if finite.size == 0:
        return {"mean": math.nan, "std": math.nan, "min": math.nan, "max": math.nan}
    return {"mean": float(finite.mean()),
            "std": float(finite.std(ddof=1)) if finite.size > 1 else math.nan,
            "min": float(finite.min()), "max": float(finite.max())}


def multi_seed_analysis(per_seed: Mapping[int, Mapping], metric: str = "rmse",
                        alpha: float = 0.05) -> dict:
    """Option A: aggregate one comparison's per-seed results (same split) without pooling seeds.

    ``per_seed`` maps seed -> block of :func:`compare_models`. Returns ``mean_d, std_d, min_d,
    max_d`` (same for ``g`` and the mean difference ``delta``), ``n_significant`` (seeds with
    p < alpha), ``n_seeds``, ``frac_significant`` and ``median_p``. The interval of the seed
    average is :func:`seed_averaged_intervals` (averaging the per-seed bounds would not give one).
    """
    blocks = [per_seed[s] for s in sorted(per_seed)]
    if not blocks:
        raise ValueError("multi_seed_analysis needs at least one seed")
    effects = [b["effect_size"][metric] for b in blocks]
    p_values = [b["permutation"][metric]["p_value"] for b in blocks]
    out = {"metric": metric, "seeds": sorted(int(s) for s in per_seed), "n_seeds": len(blocks),
           "n_significant": int(sum(p < alpha for p in p_values)),
           "median_p": float(np.median(p_values)), "alpha": alpha}
    out["frac_significant"] = out["n_significant"] / out["n_seeds"]
    for name, values in (("d", [e["d"] for e in effects]), ("g", [e["g"] for e in effects]),
                         ("delta", [e["mean_diff"] for e in effects])):
        out.update({f"{stat}_{name}": value for stat, value in _spread(values).items()})
    return out


def delta_over_seeds(per_seed: Mapping[int, Mapping], scope: str = "pooled") -> dict:
    """Option A for the bootstrapped differences Δ = A - B of every metric in :data:`METRICS`.

    ``scope`` is ``"pooled"`` or ``"per_sequence_mean"`` (see :func:`paired_bootstrap_delta`).
    Returns per metric ``mean, std, min, max`` of the per-seed estimates (std NaN for one seed) and
    ``n_seeds``; the interval of the mean is :func:`seed_averaged_intervals`.
    """
    summaries = [per_seed[s]["delta_bootstrap"][scope] for s in sorted(per_seed)]
    return {m: {**_spread([b[m]["estimate"] for b in summaries]), "n_seeds": len(summaries)} for m in METRICS}
