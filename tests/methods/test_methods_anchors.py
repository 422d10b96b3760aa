"""Sanity-anchor methods: definitions, determinism and the registry."""

import numpy as np
import pytest

from pipeline.errors import ConfigError
from pipeline.methods import available_methods, get_method
from pipeline.methods.anchors import label_correlation_scores, random_scores, variance_scores


def test_registry_lists_and_rejects():
    assert {"DAGFS", "RANDOM", "VARIANCE", "LABELCORR"} <= set(available_methods())
    with pytest.raises(ConfigError, match="unknown method 'NOPE'"):
        get_method("NOPE")


def test_random_is_seeded_permutation():
    X = np.zeros((5, 12))
    Y = np.array([[1], [0], [1], [0], [0]])
    spec = get_method("RANDOM")
    a, _ = spec.run(X, Y, {}, None)
    b, _ = spec.run(X, Y, {"seed": 0}, None)
    c, info = spec.run(X, Y, {"seed": 1}, None)
    assert sorted(a.tolist()) == list(range(1, 13))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(info["scores"], random_scores(X, Y, {"seed": 1}))


def test_variance_matches_numpy_and_breaks_ties_by_index():
    rng = np.random.default_rng(0)
    X = rng.random((50, 6))
    X[:, 4] = X[:, 1]  # identical columns tie: the lower index comes first
    Y = (rng.random((50, 2)) > 0.5).astype(np.uint8)
    assert np.allclose(variance_scores(X), X.var(axis=0))
    ranking, _ = get_method("VARIANCE").run(X, Y, {}, None)
    assert ranking.tolist().index(2) < ranking.tolist().index(5)


def test_label_correlation_against_corrcoef_and_constant_columns():
    rng = np.random.default_rng(1)
    X = rng.random((80, 5))
    X[:, 3] = 0.5  # constant feature
    Y = (rng.random((80, 3)) > 0.5).astype(np.uint8)
    Y[:, 2] = 0  # label with no positive
    scores = label_correlation_scores(X, Y)
    expected = [np.mean([abs(np.corrcoef(X[:, j], Y[:, l])[0, 1]) if l < 2 and j != 3 else 0.0
                         for l in range(3)]) for j in range(5)]
    assert np.allclose(scores, expected)
    assert scores[3] == 0.0


def test_label_correlation_finds_planted_feature():
    rng = np.random.default_rng(2)
    X = rng.random((200, 10))
    Y = (X[:, [7]] > 0.5).astype(np.uint8)
    ranking, _ = get_method("LABELCORR").run(X, Y, {}, None)
    assert ranking[0] == 8
