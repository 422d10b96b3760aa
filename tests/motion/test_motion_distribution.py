"""FID and diversity with known answers; constant reference dimensions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist

from pipeline.errors import DataError
from pipeline.protocols.motion import (EvalSettings, MotionDataWarning, MotionEvaluator, MotionSet,
                                       constant_dimensions, frechet_distance,
                                       normalize_to_reference, pairwise_diversity,
                                       sampled_diversity)
from test_motion_features import dancing, rest_pose

RNG = np.random.default_rng(0)


def test_fid_of_a_set_with_itself_is_zero():
    features = RNG.normal(size=(300, 12)) @ RNG.normal(size=(12, 12))
    assert abs(frechet_distance(features, features)) < 1e-8


@pytest.mark.parametrize("shift", [0.1, 0.5, 2.0])
def test_fid_grows_as_squared_mean_shift_for_equal_covariances(shift):
    features = RNG.normal(size=(200, 6))
    delta = shift * np.arange(1, 7) / 6
    assert frechet_distance(features + delta, features) == pytest.approx(np.sum(delta ** 2), rel=1e-6)


def test_fid_of_gaussians_with_known_covariances():
    # Σ_X = I, Σ_Y = 4 I (exactly, by construction), equal means: FID = D (1 + 4 − 2·2) = D
    base = RNG.normal(size=(500, 3))
    whitened = (base - base.mean(0)) @ np.linalg.inv(np.linalg.cholesky(np.cov(base, rowvar=False))).T
    assert frechet_distance(whitened, 2 * whitened) == pytest.approx(3.0, rel=1e-8)


def test_fid_survives_singular_covariance_and_rejects_tiny_sets():
    features = np.zeros((10, 4))
    features[:, 0] = np.arange(10)
    with pytest.warns(RuntimeWarning, match="singular"):
        assert frechet_distance(features[:3], features[:3]) == pytest.approx(0.0, abs=1e-6)
    assert np.isfinite(frechet_distance(features, features + 1))
    with pytest.raises(DataError, match="at least 2 rows"):
        frechet_distance(features[:1], features)


def test_normalization_uses_the_reference_statistics():
    reference = RNG.normal(3.0, 2.0, size=(1000, 2))
    features = reference + 2.0
    gen, ref = normalize_to_reference(features, reference)
    np.testing.assert_allclose(ref.mean(0), 0.0, atol=1e-12)
    np.testing.assert_allclose(ref.std(0), 1.0, atol=1e-9)
    np.testing.assert_allclose(gen.mean(0), 2.0 / reference.std(0), rtol=1e-9)


def test_pairwise_diversity_known_value():
    square = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert pairwise_diversity(square) == pytest.approx((4 * 1 + 2 * np.sqrt(2)) / 6)


@pytest.mark.parametrize("block", [1, 7, 50, 2 ** 22])
def test_blocked_pairwise_diversity_equals_the_mean_of_all_pairs(block):
    features = RNG.normal(size=(23, 5))
    assert pairwise_diversity(features, block=block) == pytest.approx(np.mean(pdist(features)),
                                                                      rel=1e-12)


def test_sampled_diversity_is_seeded_and_unbiased_for_large_sets():
    embeddings = RNG.normal(size=(2000, 8))
    first = sampled_diversity(embeddings, times=300, seed=10)
    assert first == sampled_diversity(embeddings, times=300, seed=10)
    assert first != sampled_diversity(embeddings, times=300, seed=11)
    assert first == pytest.approx(np.mean(pdist(embeddings[:400])), rel=0.05)
    # times is capped at N − 1; two motions → one pair drawn from {0, 1} twice
    assert sampled_diversity(np.array([[0.0], [3.0]]), times=300, seed=1) in (0.0, 3.0)


def test_constant_reference_dimensions_include_rounding_noise_of_identical_values():
    reference = RNG.normal(size=(50, 4))
    reference[:, 1] = 0.7  # 50 copies of 0.7: numpy's mean is off by one ulp, std 2.2e-16
    reference[:, 3] = 0.0
    assert reference[:, 1].std() > 0
    assert constant_dimensions(reference).tolist() == [False, True, False, True]
    reference[0, 1] = 0.7 + 1e-9  # a genuine (tiny) variation is kept
    assert not constant_dimensions(reference)[1]


def test_fid_g_excludes_dimensions_constant_in_the_ground_truth():
    """Still ground-truth bodies make every motion relation (12 of 32) constantly false, and every
    kinetic feature zero; a dancing generated set then drives Bailando's z-scored FID_g to
    ~1e20. The evaluator excludes those dimensions, says how many, and keeps FID_g finite."""
    rng = np.random.default_rng(5)
    still = np.repeat(rest_pose(24)[None, None] + rng.normal(0, 0.08, (40, 1, 24, 3)), 30, axis=1)
    lengths = np.full(40, 30)
    generated = dancing(6, n_motions=40, n_frames=30)
    evaluator = MotionEvaluator(EvalSettings())
    with pytest.warns(MotionDataWarning, match=r"FID_g/Div_g: \d+ of 32 geometric dimensions"):
        metrics = evaluator.evaluate(MotionSet(generated, lengths), MotionSet(still, lengths))
    excluded = metrics["excluded_dims"]["g"]
    assert {0, 1, 4, 5, 9, 10, 11, 12, 13, 21, 22, 31} <= set(excluded) and len(excluded) < 32
    assert np.isfinite(metrics["FID_g"]) and 0 < metrics["FID_g"] < 1e4
    assert metrics["FID_k"] is None
    assert "every kinetic dimension" in metrics["null_reasons"]["FID_k"]
    features = [evaluator.feature_sets(MotionSet(j, lengths))["g"] for j in (generated, still)]
    with np.errstate(all="ignore"):
        assert frechet_distance(*normalize_to_reference(*features)) > 1e15  # Bailando's number
