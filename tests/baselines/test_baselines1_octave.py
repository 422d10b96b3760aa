"""Baselines I in real GNU Octave: the matlab/util helpers against SciPy/NumPy, and the sanity
properties of LRMFS.m, GRRO.m, SRFS.m and SCNMF.m (docs/methods/)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import solve_sylvester
from scipy.spatial.distance import cdist

from baselines1_data import PLANTED, RECIPE_SETTINGS, recipe
from pipeline.errors import EngineError
from pipeline.methods import get_method, grro, scnmf
from pipeline.methods._common import knn_binary_laplacian, label_cosine_distance, label_cosine_similarity
from pipeline.rankings import validate_ranking

pytestmark = pytest.mark.octave
METHODS = ("LRMFS", "GRRO", "SRFS", "SCNMF")


def call(engine, function, *args, nout=1):
    outputs = engine.session.call(function, *args, nout=nout)
    return outputs[0] if nout == 1 else outputs


def octave_rank(engine, method, X, Y, **overrides):
    method_spec = get_method(method)
    params = method_spec.resolve_params({**RECIPE_SETTINGS[method], **overrides})
    init = method_spec.initial_matrices(X.shape[0], X.shape[1], Y.shape[1], params)
    ranking, info = engine.rank(method_spec, X, Y, params, init, context=f"{method}/recipe")
    return validate_ranking(ranking, X.shape[1]), info


def trace_of(info):
    return np.atleast_1d(np.asarray(info["objective"], dtype=np.float64))


# -- helpers ---------------------------------------------------------------------------------------
def test_pdist2_matches_scipy(octave_engine):
    rng = np.random.default_rng(0)
    A = rng.random((7, 4)) * (rng.random((7, 4)) < 0.5)
    A[3] = 0.0
    B = np.vstack([A[:2], rng.random((3, 4))])
    for metric in ("euclidean", "sqeuclidean"):
        np.testing.assert_allclose(call(octave_engine, "mlfs_pdist2", A, B, metric),
                                   cdist(A, B, metric), rtol=1e-13, atol=1e-15)
    euclid = call(octave_engine, "mlfs_pdist2", A, A, "euclidean")
    assert np.all(np.diag(euclid) == 0)                      # direct differences: exact zeros
    cosine = call(octave_engine, "mlfs_pdist2", A, B, "cosine")
    assert np.all(np.isnan(cosine[3]))                        # an all-zero row gives NaN, as pdist2
    keep = np.arange(7) != 3
    np.testing.assert_allclose(cosine[keep], cdist(A[keep], B, "cosine"), rtol=1e-12, atol=1e-14)
    with pytest.raises(EngineError, match="unknown metric"):
        call(octave_engine, "mlfs_pdist2", A, B, "manhattan")


def test_lyap_and_sylvester_match_scipy(octave_engine):
    rng = np.random.default_rng(1)
    A = rng.random((12, 12)) + 12 * np.eye(12)
    B = rng.random((4, 4)) + 2 * np.eye(4)
    C = rng.random((12, 4))
    X = call(octave_engine, "mlfs_sylvester", A, B, C)
    np.testing.assert_allclose(X, solve_sylvester(A, B, C), rtol=1e-12)
    np.testing.assert_allclose(A @ X + X @ B, C, rtol=1e-12, atol=1e-13)
    Z = call(octave_engine, "mlfs_lyap", A, B, C)             # lyap: A Z + Z B + C = 0
    np.testing.assert_allclose(A @ Z + Z @ B + C, 0, atol=1e-12)
    with pytest.raises(EngineError, match="square"):
        call(octave_engine, "mlfs_sylvester", A, B, C.T)


def test_discretize_and_mutual_information_match_python(octave_engine):
    rng = np.random.default_rng(2)
    X = np.round(rng.random((61, 9)), 1) * (rng.random((61, 9)) < 0.45)
    Y = (rng.random((61, 4)) < 0.3).astype(float)
    Y[:, 2] = 0
    for bins in (2, 3, 5):
        codes = call(octave_engine, "mlfs_discretize_efi", X, float(bins))
        np.testing.assert_array_equal(codes, grro.discretize_equal_frequency(X, bins))
    FL, FF, _ = grro.grro_statistics(X, Y, 2)
    codes = grro.discretize_equal_frequency(X, 2)
    features = [(codes == s).astype(float) for s in (1, 2)]
    labels = [(Y == s).astype(float) for s in (0, 1)]
    np.testing.assert_allclose(call(octave_engine, "mlfs_mutual_information", features, labels), FL,
                               rtol=1e-14, atol=1e-16)
    octave_ff = call(octave_engine, "mlfs_mutual_information", features, features)
    np.fill_diagonal(octave_ff, 1.0)
    np.testing.assert_allclose(octave_ff, FF, rtol=1e-14, atol=1e-16)


def test_graph_kernel_and_label_helpers_match_python(octave_engine):
    X, Y = recipe(3, n=80, d=30)
    X[:, 7] = X[:, 6]                                          # a duplicated column (tie)
    Y = np.hstack([Y, np.zeros((80, 1))])                     # an empty label column
    np.testing.assert_array_equal(call(octave_engine, "mlfs_knn_laplacian", X, 20.0), knn_binary_laplacian(X, 20))
    np.testing.assert_array_equal(call(octave_engine, "mlfs_knn_laplacian", Y, 5.0), knn_binary_laplacian(Y, 5))
    H, sigma = call(octave_engine, "mlfs_feature_kernel", X.T @ X, nout=2)
    H_py, sigma_py = scnmf.gaussian_feature_kernel(X.T @ X)
    assert float(sigma) == pytest.approx(sigma_py, rel=1e-13)
    np.testing.assert_allclose(H, H_py, rtol=1e-12)
    np.testing.assert_allclose(call(octave_engine, "mlfs_label_cosine_distance", Y), label_cosine_distance(Y),
                               atol=1e-15)
    np.testing.assert_allclose(call(octave_engine, "mlfs_label_cosine_similarity", Y),
                               label_cosine_similarity(Y), atol=1e-15)


def test_seeded_uniform_is_deterministic_and_leaves_the_global_stream(octave_engine):
    oc = octave_engine.session.start()
    oc.eval("rand('twister', 5); expected = rand(1, 3); rand('twister', 5);", nout=0)
    A, B = call(octave_engine, "mlfs_seeded_uniform", 3.0, np.array([4.0, 2.0]), np.array([1.0, 3.0]), nout=2)
    A2, _ = call(octave_engine, "mlfs_seeded_uniform", 3.0, np.array([4.0, 2.0]), np.array([1.0, 3.0]), nout=2)
    np.testing.assert_array_equal(A, A2)
    assert A.shape == (4, 2) and B.shape == (1, 3) and 0 <= A.min() and A.max() < 1
    after = oc.eval("isequal(rand(1, 3), expected)", nout=1)
    assert bool(after)


def test_method_params_rejects_unknown_fields(octave_engine):
    X, Y = recipe(1, n=40, d=30)
    for method in METHODS:
        with pytest.raises(EngineError, match=f"unknown parameter 'alpah'.*mlfs:{method}:unknownParameter"):
            octave_engine.session.call(method, X, Y, {"alpah": 1.0}, {}, nout=2)
        with pytest.raises(EngineError, match=f"mlfs:{method}:badInput"):
            octave_engine.session.call(method, X, 2 * Y - 1, {}, {}, nout=2)


# -- sanity properties of the four methods ---------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("method", METHODS)
def test_planted_features_rank_on_top(octave_engine, method, seed):
    X, Y = recipe(seed)
    ranking, _ = octave_rank(octave_engine, method, X, Y)
    assert set(ranking[:5].tolist()) == PLANTED


@pytest.mark.parametrize("method", ["LRMFS", "SRFS", "SCNMF"])
def test_objective_does_not_increase(octave_engine, method):
    X, Y = recipe(4)
    _, info = octave_rank(octave_engine, method, X, Y)
    trace = trace_of(info)
    assert int(info["iterations"]) == trace.size >= 2
    assert np.all(np.diff(trace) <= 1e-10 * np.abs(trace[:-1]))


def test_lrmfs_fast_equals_faithful_and_q_stays_zero(octave_engine):
    X, Y = recipe(2)
    fast, info_fast = octave_rank(octave_engine, "LRMFS", X, Y, mode="fast")
    faithful, info_faithful = octave_rank(octave_engine, "LRMFS", X, Y, mode="faithful")
    np.testing.assert_array_equal(fast, faithful)
    np.testing.assert_array_equal(trace_of(info_fast), trace_of(info_faithful))
    assert np.max(info_faithful["max_abs_Q"]) <= 1e-12
    inert, _ = octave_rank(octave_engine, "LRMFS", X, Y, mode="faithful", beta=1e3, gamma=1e-3)
    np.testing.assert_array_equal(faithful, inert)


def test_grro_residual_and_determinism(octave_engine):
    X, Y = recipe(5)
    first, info = octave_rank(octave_engine, "GRRO", X, Y)
    second, _ = octave_rank(octave_engine, "GRRO", X, Y)
    np.testing.assert_array_equal(first, second)
    assert info["sylvester_residual"] < 1e-10


@pytest.mark.parametrize("method", ["LRMFS", "SRFS"])
def test_without_init_octave_draws_its_own_seeded_start(octave_engine, method):
    X, Y = recipe(1)
    runs = [octave_engine.session.call(method, X, Y, {"seed": float(seed)}, {}, nout=2)[0]
            for seed in (0, 0, 1)]
    np.testing.assert_array_equal(runs[0], runs[1])
    validate_ranking(np.ravel(runs[2]), 100)
    assert set(np.ravel(runs[0])[:5].astype(int).tolist()) == PLANTED


def test_info_records_the_resolved_parameters(octave_engine):
    X, Y = recipe(1, n=60, d=30)
    _, info = octave_engine.session.call("SCNMF", X, Y, {"lambda2": 10.0}, {}, nout=2)
    assert float(info["params"]["lambda2"]) == 10.0 and float(info["params"]["lambda1"]) == 1e-3
    assert float(info["params"]["max_iter"]) == 1001


@pytest.mark.parametrize("method", METHODS)
def test_called_without_arguments_returns_the_python_defaults(octave_engine, method):
    (defaults,) = octave_engine.session.call(method, nout=1)
    python_defaults = get_method(method).defaults
    assert set(defaults) == set(python_defaults)
    for key, value in python_defaults.items():
        assert (defaults[key] == value) if isinstance(value, str) else float(defaults[key]) == float(value)


def test_resolved_params_merge_the_defaults(octave_engine):
    (p,) = octave_engine.session.call("mlfs_resolved_params", "SRFS", {"alpha": 0.7}, nout=1)
    expected = get_method("SRFS").resolve_params({"alpha": 0.7})
    assert {k: float(v) for k, v in p.items()} == {k: float(v) for k, v in expected.items()}
    (unchanged,) = octave_engine.session.call("mlfs_resolved_params", "VARIANCE", {"x": 1.0}, nout=1)
    assert dict(unchanged) == {"x": 1.0}
    with pytest.raises(EngineError, match="mlfs:GRRO:unknownParameter"):
        octave_engine.session.call("mlfs_resolved_params", "GRRO", {"lambda": 1.0}, nout=1)
