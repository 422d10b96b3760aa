"""The shared linear-algebra helpers of the baselines, in NumPy and in real Octave: the Gram matrix
from the dense or the sparse form, the Gram products (X'XW and |XW - Y|²) of both regimes (d <= n
and d > n), the symmetric solve with its LU fallback, the SVD driver and the sparsity rules."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines_data import training_fold
from pipeline.methods._common import (SPARSE_DENSITY, SPARSE_GRAM_DENSITY, GramProducts, gram_matrix,
                                      gram_operand, solve_symmetric, sparse_if_mostly_zero)


def sparse_binary(seed: int, n: int, d: int, density: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((n, d)) < density).astype(np.float64)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 60), d=st.integers(1, 25), weighted=st.booleans())
def test_gram_matrix_is_exactly_symmetric_and_equal_in_both_forms(seed, n, d, weighted):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) * (rng.random((n, d)) < 0.04)
    scale = rng.random(n) + 0.5 if weighted else None
    scaled = X if scale is None else scale[:, None] * X
    for operand in (X, sp.csr_matrix(X)):
        G = gram_matrix(operand, scale)
        np.testing.assert_array_equal(G, G.T)
        np.testing.assert_allclose(G, scaled.T @ scaled, rtol=1e-13, atol=1e-15)


def test_binary_gram_matrix_is_exact_in_both_forms():
    X = sparse_binary(1, 300, 40, 0.03)
    assert isinstance(gram_operand(X), sp.csr_matrix)
    np.testing.assert_array_equal(gram_matrix(gram_operand(X)), X.T @ X)    # integer counts


def test_sparsity_rules_choose_the_form_by_the_share_of_non_zeros():
    assert np.isclose(SPARSE_GRAM_DENSITY, 0.05) and np.isclose(SPARSE_DENSITY, 0.3)
    X = np.zeros((10, 10))
    X.flat[:4] = 1.0                                         # 4 % non-zero
    assert sp.issparse(gram_operand(X)) and sp.issparse(sparse_if_mostly_zero(X))
    X.flat[:6] = 1.0                                         # 6 %: sparse products only
    assert not sp.issparse(gram_operand(X)) and sp.issparse(sparse_if_mostly_zero(X))
    X.flat[:30] = 1.0                                        # 30 %: dense
    assert sparse_if_mostly_zero(X) is X


@pytest.mark.parametrize("shape", [(80, 12), (12, 80)])     # the Gram regime (d <= n) and the XW one
def test_gram_products_equal_the_direct_formulas(shape):
    rng = np.random.default_rng(2)
    X = rng.random(shape) * (rng.random(shape) < 0.2)
    Y = (rng.random((shape[0], 4)) < 0.3).astype(np.float64)
    W = rng.random((shape[1], 4))
    products = GramProducts(X, Y, X.T @ Y)
    assert (products.gram is None) == (shape[1] > shape[0])
    gram_w, fit = products(W)
    np.testing.assert_allclose(gram_w, X.T @ (X @ W), rtol=1e-13)
    assert fit == pytest.approx(float(np.sum((X @ W - Y) ** 2)), rel=1e-12)


def test_solve_symmetric_uses_cholesky_and_falls_back_to_lu():
    rng = np.random.default_rng(3)
    M = rng.random((30, 30))
    spd = M @ M.T + 30 * np.eye(30)
    rhs = rng.random((30, 5))
    np.testing.assert_allclose(spd @ solve_symmetric(spd, rhs), rhs, rtol=1e-12, atol=1e-12)
    indefinite = (M + M.T) / 2.0 - 5.0 * np.eye(30)          # symmetric, not positive definite
    np.testing.assert_array_equal(solve_symmetric(indefinite, rhs), np.linalg.solve(indefinite, rhs))


# -- the Octave twins --------------------------------------------------------------------------------
@pytest.mark.octave
def test_octave_gram_matrix_matches_numpy_on_a_real_sparse_fold(octave_engine, mlc_dir):
    X, _ = training_fold(mlc_dir, "medical", 333, 200)    # 99 % zeros: the sparse form
    scale = np.random.default_rng(4).random(X.shape[0]) + 0.5
    session = octave_engine.session
    (operand,) = session.call("mlfs_gram_operand", X, nout=1)
    assert sp.issparse(operand)
    (G,) = session.call("mlfs_gram_matrix", operand, scale, nout=1)
    np.testing.assert_array_equal(G, G.T)
    np.testing.assert_allclose(G, gram_matrix(gram_operand(X), scale), rtol=1e-14, atol=1e-15)


@pytest.mark.octave
@pytest.mark.parametrize("shape", [(80, 12), (12, 80)])
def test_octave_gram_products_match_numpy(octave_engine, shape):
    rng = np.random.default_rng(5)
    X = rng.random(shape) * (rng.random(shape) < 0.2)
    Y = (rng.random((shape[0], 4)) < 0.3).astype(np.float64)
    W = rng.random((shape[1], 4))
    session = octave_engine.session
    (fold,) = session.call("mlfs_gram_fold", X, Y, X.T @ Y, nout=1)
    gram_w, fit = session.call("mlfs_gram_products", fold, W, nout=2)
    expected_gram_w, expected_fit = GramProducts(X, Y, X.T @ Y)(W)
    np.testing.assert_allclose(gram_w, expected_gram_w, rtol=1e-13)
    assert fit == pytest.approx(expected_fit, rel=1e-12)


@pytest.mark.octave
def test_octave_svd_econ_is_the_thin_svd_and_restores_the_driver(octave_engine):
    W = np.random.default_rng(6).random((40, 7))
    session = octave_engine.session
    (before,) = session.call("svd_driver", nout=1)
    U, S, V = session.call("mlfs_svd_econ", W, nout=3)
    (after,) = session.call("svd_driver", nout=1)
    assert before == after == "gesvd"
    assert U.shape == (40, 7) and S.shape == (7, 7) and V.shape == (7, 7)
    np.testing.assert_allclose(U @ S @ V.T, W, rtol=1e-13, atol=1e-14)
    u, _, vt = np.linalg.svd(W, full_matrices=False)
    np.testing.assert_allclose(U @ V.T, u @ vt, rtol=1e-12, atol=1e-13)      # the polar factor LSMFS uses


@pytest.mark.octave
def test_octave_reports_the_blas_a_fresh_octave_process_loads(octave_engine):
    """linear_algebra_libraries (for the run record) against octave-cli run as a separate process."""
    import subprocess

    from pipeline.engines.octave import _octave_executable, linear_algebra_libraries

    reported = linear_algebra_libraries(octave_engine.session)
    script = "printf('%s\\n%s\\n', version('-blas'), version('-lapack'))"
    fresh = subprocess.run([_octave_executable() or "octave-cli", "--no-gui", "--norc", "--eval", script],
                           capture_output=True, text=True, timeout=120, check=True).stdout.splitlines()
    assert [reported["blas"], reported["lapack"]] == [" ".join(line.split()) for line in fresh[:2]]
    assert "BLAS" in reported["blas"] and "Linear Algebra PACKage" in reported["lapack"]
