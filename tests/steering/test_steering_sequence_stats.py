"""Cluster bootstrap, sequence-level comparison functions, Option A, and the AR(1) calibration."""

import math

import numpy as np
import pandas as pd
import pytest

from pipeline.errors import DataError
from pipeline.protocols.steering.calibration import ar1_errors, calibration_experiment
from pipeline.protocols.steering.predictions import aggregate_per_sequence, predictions_frame
from pipeline.protocols.steering.stats import (bootstrap_ci_sequences, cohens_d_paired_sequences,
                                               compare_models, multi_seed_analysis,
                                               permutation_test_sequences)
from pipeline.stats.resampling import (cluster_resample_counts, resampled_group_means,
                                       resampled_group_sums, summarize_replicates)


def _model(noise_scale, n_seq=12, length=40, seed=0):
    ids = np.repeat([f"s{i:02d}" for i in range(n_seq)], length)
    truth = np.sin(np.arange(ids.size) / 7.0)
    per_seq_scale = np.repeat(np.random.default_rng(99).uniform(0.5, 1.5, n_seq), length)
    rng = np.random.default_rng(seed)
    return predictions_frame(np.arange(ids.size), ids, truth,
                             truth + rng.normal(0, noise_scale, ids.size) * per_seq_scale)


def test_resample_counts_match_explicit_draws():
    counts = cluster_resample_counts(7, 50, seed=3)
    draws = np.random.default_rng(3).integers(0, 7, size=(50, 7))
    assert counts.shape == (50, 7) and np.all(counts.sum(axis=1) == 7)
    np.testing.assert_array_equal(counts[4], np.bincount(draws[4], minlength=7))
    values = np.arange(7.0)
    np.testing.assert_allclose(resampled_group_means(values, counts), values[draws].mean(axis=1))
    sums = np.column_stack([np.ones(7), values])
    np.testing.assert_allclose(resampled_group_sums(sums, counts)[:, 1], values[draws].sum(axis=1))


def test_pooled_bootstrap_equals_recomputation_on_drawn_samples():
    frame = _model(0.2)
    result = bootstrap_ci_sequences(frame, n_bootstrap=30, seed=5)
    counts = cluster_resample_counts(12, 30, seed=5)
    groups = dict(tuple(frame.groupby("sequence_id", sort=True)))
    names = sorted(groups)
    replicates = []
    for row in counts:
        drawn = pd.concat([groups[names[g]] for g in range(12) for _ in range(row[g])])
        replicates.append(np.sqrt(np.mean((drawn["y_pred"] - drawn["y_true"]) ** 2)))
    pooled = result["pooled"]["rmse"]
    assert pooled["mean"] == pytest.approx(np.mean(replicates))
    assert pooled["std"] == pytest.approx(np.std(replicates, ddof=1))
    assert pooled["ci_low"] == pytest.approx(np.percentile(replicates, 2.5))
    per_seq = aggregate_per_sequence(frame)["rmse"].to_numpy()
    assert result["per_sequence_mean"]["rmse"]["estimate"] == pytest.approx(per_seq.mean())
    assert result["per_sequence_mean"]["rmse"]["mean"] == pytest.approx(
        np.mean(counts @ per_seq / 12))
    per_seq_r2 = aggregate_per_sequence(frame)["r2"].to_numpy()
    assert result["per_sequence_mean"]["r2"]["estimate"] == pytest.approx(per_seq_r2.mean())
    assert result["per_sequence_mean"]["r2"]["mean"] == pytest.approx(np.mean(counts @ per_seq_r2 / 12))


def test_summarize_ignores_non_finite_replicates():
    summary = summarize_replicates(1.0, np.array([1.0, 2.0, np.nan, 3.0]))
    assert summary.mean == 2.0 and summary.n_resamples == 4


def test_comparison_detects_a_real_difference_and_signs_it():
    worse, better = _model(0.3, seed=1), _model(0.2, seed=2)
    block = compare_models(worse, better, n_bootstrap_effect=500, n_bootstrap_ci=200,
                           n_permutations=2000)
    rmse = block["effect_size"]["rmse"]
    assert rmse["mean_diff"] > 0 and rmse["g"] > 0.8 and rmse["category"] == "large"
    assert block["permutation"]["rmse"]["p_value"] < 0.01
    delta = block["delta_bootstrap"]["per_sequence_mean"]["rmse"]
    assert delta["estimate"] == pytest.approx(rmse["mean_diff"])
    assert delta["ci_low"] > 0
    # identical models: no difference at all
    same = compare_models(worse, worse.copy(), n_bootstrap_effect=200, n_bootstrap_ci=50,
                          n_permutations=500)
    assert same["effect_size"]["rmse"]["d"] == 0.0 and same["permutation"]["rmse"]["p_value"] == 1.0


def test_per_sequence_functions_inner_join_and_validate():
    seq_a = aggregate_per_sequence(_model(0.3, seed=1))
    seq_b = aggregate_per_sequence(_model(0.2, seed=2))
    sampled = permutation_test_sequences(seq_a, seq_b, n_permutations=4095)
    assert sampled["exact"] is False and sampled["n_permutations"] == 4095
    exact = permutation_test_sequences(seq_a, seq_b, n_permutations=4096)
    assert exact["exact"] and exact["n_permutations"] == 2 ** 12
    assert exact["p_value"] == pytest.approx(sampled["p_value"], abs=0.01)
    with pytest.raises(DataError, match="lack a rmse value"):
        cohens_d_paired_sequences(seq_a, seq_b.iloc[1:], n_bootstrap=100)
    part = cohens_d_paired_sequences(seq_a, seq_b.iloc[1:], n_bootstrap=100, allow_missing=True)
    assert part["n"] == 11
    with pytest.raises(DataError, match="fewer than 2"):
        permutation_test_sequences(seq_a.iloc[:1], seq_b.iloc[:1])


def test_multi_seed_option_a():
    blocks = {}
    for seed, shift in ((1, 0.0), (2, 0.05), (3, 0.1)):
        blocks[seed] = compare_models(_model(0.3 + shift, seed=seed), _model(0.2, seed=seed + 10),
                                      n_bootstrap_effect=200, n_bootstrap_ci=100,
                                      n_permutations=1000)
    agg = multi_seed_analysis(blocks, "rmse")
    ds = [blocks[s]["effect_size"]["rmse"]["d"] for s in (1, 2, 3)]
    assert agg["n_seeds"] == 3 and agg["mean_d"] == pytest.approx(np.mean(ds))
    assert agg["std_d"] == pytest.approx(np.std(ds, ddof=1))
    assert agg["min_d"] == min(ds) and agg["max_d"] == max(ds)
    p = [blocks[s]["permutation"]["rmse"]["p_value"] for s in (1, 2, 3)]
    assert agg["n_significant"] == sum(v < 0.05 for v in p)
    assert agg["median_p"] == pytest.approx(np.median(p))
    single = multi_seed_analysis({1: blocks[1]}, "mae")
    assert math.isnan(single["std_d"]) and single["n_seeds"] == 1


def test_ar1_errors_have_the_stationary_variance():
    paths = ar1_errors(np.random.default_rng(0), (400,), 200, 0.9)
    assert paths.var() == pytest.approx(1 / (1 - 0.81), rel=0.1)
    lag1 = np.mean([np.corrcoef(p[:-1], p[1:])[0, 1] for p in paths[:100]])
    assert lag1 == pytest.approx(0.9, abs=0.05)


def test_calibration_sample_level_is_anticonservative_sequence_level_is_not():
    """The small form of the calibration (docs/steering.md): phi = 0.9, 30 sequences x 100 samples,
    200 repeats, B = 199."""
    result = calibration_experiment(0.9, n_sequences=30, length=100, n_repeats=200,
                                    n_permutations=199, seed=0)
    assert result["fpr_sample_level"] > 0.25
    assert 0.01 <= result["fpr_sequence_level"] <= 0.10


def _drawn(counts_row, names, groups):
    return pd.concat([groups[names[g]] for g in range(len(names)) for _ in range(counts_row[g])])


def test_paired_delta_of_pooled_r2_and_accuracy_equals_recomputation_on_drawn_samples():
    """Known answer: each bootstrap replicate of the pooled Δ equals sklearn's R² (and the accuracy
    share) recomputed on the samples of the drawn sequences, duplicates included."""
    from sklearn.metrics import r2_score

    from pipeline.protocols.steering.predictions import pair_predictions
    from pipeline.protocols.steering.stats import paired_bootstrap_delta

    worse, better = _model(0.3, seed=1), _model(0.2, seed=2)
    paired = pair_predictions(worse, better)
    result = paired_bootstrap_delta(paired, n_bootstrap=25, seed=7, eps=0.2)["pooled"]
    truth, pred_a, pred_b = paired["y_true"], paired["y_true"] + paired["error_a"], paired["y_true"] + paired["error_b"]
    assert result["r2"]["estimate"] == pytest.approx(r2_score(truth, pred_a) - r2_score(truth, pred_b))
    assert result["accuracy"]["estimate"] == pytest.approx(
        100 * (np.mean(np.abs(paired["error_a"]) <= 0.2) - np.mean(np.abs(paired["error_b"]) <= 0.2)))
    counts = cluster_resample_counts(12, 25, seed=7)
    groups = dict(tuple(paired.groupby("sequence_id", sort=True)))
    names = sorted(groups)
    r2_reps, acc_reps = [], []
    for row in counts:
        drawn = _drawn(row, names, groups)
        y = drawn["y_true"]
        r2_reps.append(r2_score(y, y + drawn["error_a"]) - r2_score(y, y + drawn["error_b"]))
        acc_reps.append(100 * (np.mean(np.abs(drawn["error_a"]) <= 0.2) - np.mean(np.abs(drawn["error_b"]) <= 0.2)))
    for name, reps in (("r2", r2_reps), ("accuracy", acc_reps)):
        assert result[name]["mean"] == pytest.approx(np.mean(reps))
        assert result[name]["std"] == pytest.approx(np.std(reps, ddof=1))
        assert [result[name]["ci_low"], result[name]["ci_high"]] == pytest.approx(np.percentile(reps, [2.5, 97.5]))
    assert result["r2"]["ci_high"] < 0 < result["rmse"]["ci_low"]     # A is worse on both


def test_per_sequence_r2_delta_skips_constant_sequences():
    """A sequence with constant targets has no R²: it is left out of the per-sequence mean, in the
    estimate and in every resample, while MAE still counts it."""
    from sklearn.metrics import r2_score

    from pipeline.protocols.steering.predictions import pair_predictions
    from pipeline.protocols.steering.stats import paired_bootstrap_delta

    worse, better = _model(0.3, seed=1), _model(0.2, seed=2)
    for frame in (worse, better):
        constant = frame["sequence_id"] == "s03"
        frame.loc[constant, "y_pred"] += 0.5 - frame.loc[constant, "y_true"]
        frame.loc[constant, "y_true"] = 0.5
        frame["abs_error"] = (frame["y_true"] - frame["y_pred"]).abs()
    paired = pair_predictions(worse, better)
    result = paired_bootstrap_delta(paired, n_bootstrap=40, seed=3)["per_sequence_mean"]
    diffs = {}
    for name, group in paired.groupby("sequence_id", sort=True):
        y = group["y_true"]
        if name != "s03":
            diffs[name] = r2_score(y, y + group["error_a"]) - r2_score(y, y + group["error_b"])
    assert result["r2"]["estimate"] == pytest.approx(np.mean(list(diffs.values())))
    names = sorted(paired["sequence_id"].unique())
    values = np.array([diffs.get(n, np.nan) for n in names])
    counts = cluster_resample_counts(12, 40, seed=3)
    expected = [np.mean(np.repeat(values, row)[~np.isnan(np.repeat(values, row))]) for row in counts]
    assert result["r2"]["mean"] == pytest.approx(np.mean(expected))
    per_seq_a = aggregate_per_sequence(worse)
    assert math.isnan(per_seq_a.loc[per_seq_a["sequence_id"] == "s03", "r2"].item())
    assert np.isfinite(result["mae"]["estimate"])


def test_delta_over_seeds_averages_the_estimates():
    from pipeline.protocols.steering.stats import delta_over_seeds

    blocks = {seed: compare_models(_model(0.3, seed=seed), _model(0.2, seed=seed + 10), n_bootstrap_effect=50,
                                   n_bootstrap_ci=60, n_permutations=100) for seed in (1, 2, 3)}
    summary = delta_over_seeds(blocks, "pooled")
    for metric in ("mae", "rmse", "accuracy", "r2"):
        per_seed = [blocks[s]["delta_bootstrap"]["pooled"][metric] for s in (1, 2, 3)]
        assert summary[metric]["mean"] == pytest.approx(np.mean([p["estimate"] for p in per_seed]))
        assert summary[metric]["std"] == pytest.approx(np.std([p["estimate"] for p in per_seed], ddof=1))
        assert summary[metric]["n_seeds"] == 3
    agg = multi_seed_analysis(blocks, "rmse")
    assert agg["mean_delta"] == pytest.approx(delta_over_seeds(blocks, "per_sequence_mean")["rmse"]["mean"])


def _runs(seeds=(1, 2, 3)):
    from pipeline.protocols.steering.stats import paired_run

    return {seed: paired_run(_model(0.3, seed=seed), _model(0.2, seed=seed + 10)) for seed in seeds}


def test_seed_averaged_interval_is_the_interval_of_the_seed_mean():
    from pipeline.protocols.steering.stats import compare_paired, seed_averaged_intervals

    runs = _runs()
    result = seed_averaged_intervals(list(runs.values()), n_bootstrap=200, seed=5)
    blocks = {s: compare_paired(run, n_bootstrap_effect=50, n_bootstrap_ci=200, n_permutations=100, seed=5)
              for s, run in runs.items()}
    counts = cluster_resample_counts(12, 200, seed=5)
    differences = [run.differences("rmse") for run in runs.values()]
    # the replicate of the seed mean: every seed evaluated on the same drawn sequences, then averaged
    replicates = np.mean([counts @ d / 12 for d in differences], axis=0)
    expected = summarize_replicates(np.mean([d.mean() for d in differences]), replicates)
    assert result["per_sequence_mean"]["rmse"]["ci_low"] == pytest.approx(expected.low)
    assert result["per_sequence_mean"]["rmse"]["ci_high"] == pytest.approx(expected.high)
    assert result["per_sequence_mean"]["rmse"]["estimate"] == pytest.approx(
        multi_seed_analysis(blocks, "rmse")["mean_delta"])
    assert result["g"]["rmse"]["estimate"] == pytest.approx(multi_seed_analysis(blocks, "rmse")["mean_g"])
    for metric in ("mae", "rmse", "accuracy", "r2"):
        assert result["pooled"][metric]["estimate"] == pytest.approx(
            np.mean([b["delta_bootstrap"]["pooled"][metric]["estimate"] for b in blocks.values()]))
    # Hedges' g of every drawn resample, recomputed from the repeated differences, averaged over seeds
    def drawn_g(d, row):
        drawn = np.repeat(d, row)
        return (1 - 3 / (4 * 11 - 1)) * drawn.mean() / drawn.std(ddof=1)

    g_replicates = np.mean([[drawn_g(d, row) for row in counts] for d in differences], axis=0)
    g_expected = summarize_replicates(0.0, g_replicates)
    assert result["g"]["rmse"]["ci_low"] == pytest.approx(g_expected.low)
    assert result["g"]["rmse"]["ci_high"] == pytest.approx(g_expected.high)


def test_seed_averaged_interval_of_one_seed_is_that_seeds_interval_and_none_without_common_sequences():
    from pipeline.protocols.steering.stats import compare_paired, paired_run, seed_averaged_intervals

    run = _runs((4,))[4]
    block = compare_paired(run, n_bootstrap_effect=50, n_bootstrap_ci=150, n_permutations=100, seed=9)
    single = seed_averaged_intervals([run], n_bootstrap=150, seed=9)
    for scope in ("pooled", "per_sequence_mean"):
        for metric in ("mae", "rmse", "accuracy", "r2"):
            assert single[scope][metric] == pytest.approx(block["delta_bootstrap"][scope][metric], nan_ok=True)
    fewer = paired_run(_model(0.3, n_seq=10, seed=1), _model(0.2, n_seq=10, seed=11))
    assert seed_averaged_intervals([run, fewer], n_bootstrap=50) is None
