"""The seven baselines in real GNU Octave: the matlab/util helpers against SciPy/NumPy, the sanity
properties of LRMFS.m, GRRO.m, SRFS.m, SCNMF.m, LSMFS.m, LRDG.m and RFSFS.m (docs/methods/) and the
divergence guard with its error identifier."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.linalg import solve_sylvester
from scipy.spatial.distance import cdist

from baselines_data import PLANTED, RECIPE_SETTINGS, planted, recipe, start
from pipeline.errors import EngineError
from pipeline.methods import get_method, grro, lrdg, lsmfs, scnmf
from pipeline.methods._common import knn_binary_laplacian, label_cosine_distance, label_cosine_similarity
from pipeline.rankings import validate_ranking

pytestmark = pytest.mark.octave
METHODS = ("LRMFS", "GRRO", "SRFS", "SCNMF", "LSMFS", "LRDG", "RFSFS", "RFS", "MIFS", "MDFS")
#: The methods with settings under which the planted-feature recipe's features are the top 5 (the
#: Baselines I: LRMFS, GRRO, SRFS, SCNMF).
RECIPE_METHODS = tuple(RECIPE_SETTINGS)


def call(engine, function, *args, nout=1):
    outputs = engine.session.call(function, *args, nout=nout)
    return outputs[0] if nout == 1 else outputs


def octave_run(engine, method, X, Y, **overrides):
    """``method`` in Octave from the harness-drawn start -> (validated ranking, info, init)."""
    params, init = start(method, X, Y, overrides)
    ranking, info = engine.rank(get_method(method), X, Y, params, init, context=f"{method}/planted/fold0")
    return validate_ranking(ranking, X.shape[1]), info, init


def octave_rank(engine, method, X, Y, **overrides):
    """``method`` in Octave at its recipe settings (``RECIPE_SETTINGS``) -> (validated ranking, info)."""
    ranking, info, _ = octave_run(engine, method, X, Y, **{**RECIPE_SETTINGS[method], **overrides})
    return ranking, info


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


# -- sanity properties of the methods --------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("method", RECIPE_METHODS)
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


def test_resolved_params_merge_the_defaults(octave_engine):
    (p,) = octave_engine.session.call("mlfs_resolved_params", "SRFS", {"alpha": 0.7}, nout=1)
    expected = get_method("SRFS").resolve_params({"alpha": 0.7})
    assert {k: float(v) for k, v in p.items()} == {k: float(v) for k, v in expected.items()}
    (p,) = octave_engine.session.call("mlfs_resolved_params", "LSMFS", {"beta": 0.5}, nout=1)  # no no-argument probe
    assert {k: float(v) for k, v in p.items()} == {k: float(v) for k, v in get_method("LSMFS").resolve_params(
        {"beta": 0.5}).items()}
    (unchanged,) = octave_engine.session.call("mlfs_resolved_params", "VARIANCE", {"x": 1.0}, nout=1)
    assert dict(unchanged) == {"x": 1.0}
    with pytest.raises(EngineError, match="mlfs:GRRO:unknownParameter"):
        octave_engine.session.call("mlfs_resolved_params", "GRRO", {"lambda": 1.0}, nout=1)


@pytest.mark.parametrize("zeros", [0.0, 0.97])                 # dense, and under 5 % non-zero (sparse products)
def test_heat_graph_matches_numpy_with_duplicates_and_ties(octave_engine, zeros):
    rng = np.random.default_rng(0)
    F = np.round(rng.random((1100, 5)), 1) * (rng.random((1100, 5)) >= zeros)   # two blocks, duplicates
    F[10] = F[3]
    for k in (1, 3, 5):
        octave = call(octave_engine, "mlfs_knn_heat_graph", F, float(k)).toarray()   # sparse, as NumPy's
        numpy = lrdg.heat_knn_graph(F, k).toarray()
        np.testing.assert_array_equal(np.asarray(octave != 0), numpy != 0)
        np.testing.assert_allclose(octave, numpy, rtol=1e-13, atol=0)


def test_lsmfs_label_laplacian_in_octave(octave_engine):
    rng = np.random.default_rng(1)
    Y = (rng.random((30, 6)) < 0.4).astype(float)
    Y[:6] = np.eye(6)
    np.testing.assert_array_equal(call(octave_engine, "mlfs_knn_laplacian", Y, 5.0), 6 * np.eye(6) - 1)


def test_octave_lsmfs_latent_labels_grow_with_unit_parameters(octave_engine):
    X, Y = planted(0, n=120, d=40)
    norms = [np.linalg.norm(octave_run(octave_engine, "LSMFS", X, Y, alpha=1.0, beta=1.0, max_iter=t)[1]["V"])
             for t in (1, 2, 4, 8)]
    assert np.all(np.diff(norms) > 0) and norms[-1] > 10 * norms[0]


def test_octave_lsmfs_first_iteration_matches_the_code(octave_engine):
    X, Y = planted(1, n=80, d=30)
    _, info, init = octave_run(octave_engine, "LSMFS", X, Y, alpha=0.7, beta=0.3, gamma=2.0, max_iter=1,
                               **{"lambda": 0.5})
    U, _, Pt = np.linalg.svd(init["W0"], full_matrices=False)
    W = np.linalg.inv(X.T @ X + 2.0 * np.eye(30)) @ (X.T @ init["V0"] - 0.5 * U @ Pt)
    L_y = lsmfs.label_laplacian(Y)
    V = (X @ W + 0.3 * (Y + (2 * Y - 1) * init["S0"])) @ np.linalg.inv(0.7 * np.eye(5) + 0.6 * L_y)
    np.testing.assert_allclose(info["W"], W, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(info["V"], V, rtol=1e-10, atol=1e-12)


def test_octave_rfsfs_stays_non_negative_and_descends(octave_engine):
    X, Y = planted(2, n=60, d=20, n_labels=4)
    Y[:, 3] = 0
    for alpha, beta, gamma in [(0.01, 0.01, 0.01), (1.0, 1.0, 1.0), (10.0, 0.1, 0.0)]:
        _, info, _ = octave_run(octave_engine, "RFSFS", X, Y, alpha=alpha, beta=beta, gamma=gamma)
        W = np.asarray(info["W"])
        assert np.all(np.isfinite(W)) and W.min() >= 0
        values = trace_of(info)
        assert values.size == 50 and np.all(np.diff(values) <= 1e-10 * np.abs(values[:-1]))


def test_octave_lrdg_one_iteration_is_translation_invariant(octave_engine):
    X, Y = planted(3, n=90, d=25)
    _, plain, _ = octave_run(octave_engine, "LRDG", X, Y, max_iter=1)
    _, shifted, _ = octave_run(octave_engine, "LRDG", X + 2.5, Y, max_iter=1)
    S = np.asarray(plain["S"])
    np.testing.assert_allclose(shifted["S"], S, rtol=1e-8, atol=1e-10 * np.max(np.abs(S)))
    _, full, _ = octave_run(octave_engine, "LRDG", X, Y)
    assert trace_of(full).size == 50 and min(np.min(full["S"]), np.min(full["V"])) < 0


@pytest.mark.parametrize("method,overrides,iterate", [
    ("LSMFS", {"alpha": 1e-6, "beta": 1.0}, "an entry of [WV] exceeds divergence_limit"),
    ("LRDG", {"divergence_limit": 1e-3}, "an entry of [VS] exceeds divergence_limit"),
    ("RFSFS", {"divergence_limit": 1e-3}, "an entry of W exceeds divergence_limit"),
])
def test_octave_divergence_guard_names_task_method_iteration(octave_engine, method, overrides, iterate):
    X, Y = planted(4, n=120, d=40)
    params, init = start(method, X, Y, overrides)
    with pytest.raises(EngineError) as failure:
        octave_engine.rank(get_method(method), X, Y, params, init, context=f"{method}/planted/fold3")
    message = str(failure.value)
    assert message.startswith(f"{method}/planted/fold3: {method} failed in Octave: {method} diverged at iteration ")
    assert f"[mlfs:{method}:diverged]" in message
    assert re.search(iterate, message)
    with pytest.raises(EngineError, match=rf"{method} diverged at iteration (\d+)"):   # same in NumPy
        get_method(method).run(X, Y, params, init)


def test_octave_guard_stops_non_finite_iterates(octave_engine):
    X, Y = planted(5, n=60, d=10)
    with pytest.raises(EngineError, match=r"LRDG diverged at iteration 1: (V|S) has non-finite entries"):
        octave_run(octave_engine, "LRDG", X * 1e160, Y)          # X'HX overflows
    W = np.ones((4, 3))
    W[2, 1] = np.nan
    with pytest.raises(EngineError, match=r"RFSFS diverged at iteration 7: W has non-finite entries \(1 of 12\) "
                                          r"\[mlfs:RFSFS:diverged\]"):
        octave_engine.session.call("mlfs_check_iterates", "RFSFS", 7.0, 1e100, "V", np.ones((2, 2)), "W", W, nout=0)
    octave_engine.session.call("mlfs_check_iterates", "RFSFS", 7.0, 1e100, "W", np.full((2, 2), 1e100), nout=0)
