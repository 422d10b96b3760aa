"""DAGFS against the reference implementation's outputs on the golden case D1 and its invariants
(docs/methods/DAGFS.md)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.errors import ConfigError, DataError
from pipeline.methods import get_method
from pipeline.methods.dagfs import DAGFSParams, dagfs


def _d1():
    rng = np.random.default_rng(0)
    X = rng.random((60, 30))
    Y = (rng.random((60, 7)) > 0.85).astype(np.int8)
    return X, Y


GOLDEN = [
    (None, "15 17 22 16 18 11 13 4 26 25 12 27 20 19 10 21 5 9 14 23 8 29 30 24 1 28 7 3 6 2", 11.47615333045),
    ({"feature_lift": "none"}, "17 5 10 15 27 14 22 12 29 3 30 9 19 24 4 8 28 20 11 16 18 23 25 21 6 2 26 1 13 7",
     2.420037337479),
    ({"max_iter": 2}, "15 11 20 30 17 26 10 14 16 12 2 22 19 13 29 27 6 8 5 7 4 25 1 21 28 3 24 18 9 23",
     9.281478576048),
    ({"topK": 3, "tau_dir": 0.0}, "15 17 22 16 18 11 13 4 26 25 12 27 20 19 10 21 9 5 14 23 8 29 30 24 1 28 7 3 6 2",
     11.47977144535),
]


def test_golden_case_label_counts():
    assert _d1()[1].sum(axis=0).tolist() == [9, 12, 4, 8, 11, 4, 9]


@pytest.mark.parametrize("params,ranking,w_sum", GOLDEN)
def test_golden_rankings_and_weight_sums(params, ranking, w_sum):
    X, Y = _d1()
    r, W, info = dagfs(X, Y, params)
    assert r.tolist() == [int(v) for v in ranking.split()]
    assert W.sum() == pytest.approx(w_sum, rel=1e-11)
    assert set(info) == {"feature_lift", "transfer_graph", "paired_penalty", "scores"}
    assert info["scores"].shape == (X.shape[1],)


def test_golden_unpaired_lift_ranks_lifted_rows():
    X, Y = _d1()
    r, W, _ = dagfs(X, Y, {"paired_penalty": False})
    assert r.shape == (60,) and W.shape == (60, 7)
    assert r[:10].tolist() == [15, 17, 52, 46, 45, 48, 43, 34, 56, 41]


def test_params_validation_follows_reference():
    X, Y = _d1()
    with pytest.raises(TypeError):
        dagfs(X, Y, {"not_a_param": 1})
    with pytest.raises(ValueError, match="transfer_graph"):
        dagfs(X, Y, {"transfer_graph": "undirected"})
    with pytest.raises(ValueError, match="feature_lift"):
        dagfs(X, Y, {"feature_lift": "square"})
    with pytest.raises(ValueError, match="W0"):
        dagfs(X, Y, {"W0": np.ones((30, 7))})
    assert dagfs(X, Y, {"feature_lift": " NONE "})[2]["feature_lift"] == "none"


def test_w0_replaces_the_seeded_start():
    X, Y = _d1()
    W0 = np.random.default_rng(5).random((60, 7))
    a = dagfs(X, Y, {"W0": W0, "seed": 1})
    b = dagfs(X, Y, {"W0": W0, "seed": 2})
    c = dagfs(X, Y, DAGFSParams(seed=5))
    assert np.array_equal(a[1], b[1]) and np.array_equal(a[1], c[1])


def test_harness_entry_point_validates_input_and_rejects_unpaired_lift():
    X, Y = _d1()
    spec = get_method("DAGFS")
    params = spec.resolve_params({})
    ranking, info = spec.run(X, Y, params)
    reference, W, reference_info = dagfs(X, Y, params)
    assert ranking.tolist() == reference.tolist() and ranking.tolist()[:3] == [15, 17, 22]
    assert info["W_sum"] == W.sum() == pytest.approx(11.47615333045)
    assert set(info) == set(reference_info) | {"W_sum"}
    assert np.array_equal(info["scores"], reference_info["scores"])
    assert all(info[key] == reference_info[key] for key in ("feature_lift", "transfer_graph", "paired_penalty"))
    negative, _ = spec.run(X - 0.5, Y, params)  # DAGFS accepts features of any sign
    assert sorted(negative.tolist()) == list(range(1, 31))
    with pytest.raises(DataError, match="labels in"):
        spec.run(X, Y * 2 - 1, params)
    X_bad = X.copy()
    X_bad[0, 0] = np.nan
    with pytest.raises(DataError, match="finite"):
        spec.run(X_bad, Y, params)
    with pytest.raises(ConfigError, match="paired_penalty"):
        spec.run(X, Y, {**params, "paired_penalty": False})
    with pytest.raises(ConfigError, match="unknown parameter"):
        spec.run(X, Y, {"alpah": 0.2})


def test_init_w0_overrides_the_seeded_start_through_the_harness():
    X, Y = _d1()
    spec = get_method("DAGFS")
    W0 = np.random.default_rng(5).random((60, 7))
    given, info = spec.run(X, Y, {"seed": 1}, {"W0": W0})
    reference, W, _ = dagfs(X, Y, {"W0": W0})
    assert given.tolist() == reference.tolist() and info["W_sum"] == W.sum()
    assert spec.run(X, Y, {"seed": 1})[1]["W_sum"] != W.sum()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(8, 40), d=st.integers(2, 25), L=st.integers(1, 6), seed=st.integers(0, 10_000),
       lift=st.sampled_from(["none", "center_split"]))
def test_invariants_permutation_nonnegative_deterministic(n, d, L, seed, lift):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    Y = (rng.random((n, L)) > 0.7).astype(np.uint8)  # may hold all-zero label columns
    r1, W1, _ = dagfs(X, Y, {"feature_lift": lift, "max_iter": 5})
    r2, W2, _ = dagfs(X, Y, {"feature_lift": lift, "max_iter": 5})
    assert sorted(r1.tolist()) == list(range(1, d + 1))
    assert r1.dtype == np.int64
    assert np.all(W1 >= 0) and np.all(np.isfinite(W1))
    assert np.array_equal(r1, r2) and np.array_equal(W1, W2)


def test_planted_relevant_features_rank_on_top():
    rng = np.random.default_rng(3)
    n, d = 300, 40
    X = rng.random((n, d))
    Y = np.stack([X[:, 0] > 0.6, X[:, 1] > 0.5, X[:, 2] < 0.3, (X[:, 0] + X[:, 1]) > 1.2], axis=1).astype(np.uint8)
    ranking, _, _ = dagfs(X, Y)
    assert set(ranking[:3].tolist()) == {1, 2, 3}
