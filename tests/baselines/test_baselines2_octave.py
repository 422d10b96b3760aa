"""LSMFS.m, LRDG.m, RFSFS.m and their helpers in real GNU Octave: their sanity properties
(docs/methods/) and the divergence guard with its error identifier."""

from __future__ import annotations

import re

import numpy as np
import pytest

from baselines2_data import planted, start
from pipeline.errors import EngineError
from pipeline.methods import get_method, lrdg, lsmfs
from pipeline.rankings import validate_ranking

pytestmark = pytest.mark.octave


def call(engine, function, *args):
    return engine.session.call(function, *args, nout=1)[0]


def octave_run(engine, method, X, Y, **overrides):
    params, init = start(method, X, Y, overrides)
    ranking, info = engine.rank(get_method(method), X, Y, params, init, context=f"{method}/planted/fold0")
    return validate_ranking(ranking, X.shape[1]), info, init


def trace(info):
    return np.atleast_1d(np.asarray(info["objective"], dtype=np.float64))


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
        values = trace(info)
        assert values.size == 50 and np.all(np.diff(values) <= 1e-10 * np.abs(values[:-1]))


def test_octave_lrdg_one_iteration_is_translation_invariant(octave_engine):
    X, Y = planted(3, n=90, d=25)
    _, plain, _ = octave_run(octave_engine, "LRDG", X, Y, max_iter=1)
    _, shifted, _ = octave_run(octave_engine, "LRDG", X + 2.5, Y, max_iter=1)
    S = np.asarray(plain["S"])
    np.testing.assert_allclose(shifted["S"], S, rtol=1e-8, atol=1e-10 * np.max(np.abs(S)))
    _, full, _ = octave_run(octave_engine, "LRDG", X, Y)
    assert trace(full).size == 50 and min(np.min(full["S"]), np.min(full["V"])) < 0


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
