"""The compiled neighbour kernel (``prefix_neighbours``) against a plain canonical reference.

The reference accumulates the canonical squared distance with NumPy, feature by feature in ranking
order, and sorts every row by (distance, training index). Cases: random tie-heavy values with
negative zeros (hypothesis), overflow to +inf, cancellation-prone offsets over a fine grid, a real
Yahoo fold sample large enough for many tiles and blocks, and ties that a fused multiply-add would
break the other way.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.data.registry import load_dataset
from pipeline.evaluation.neighbours import prefix_neighbours


def reference_sets(X_train, X_query, ks, num, exclude_self):
    """(len(ks), n_query, num) by the rule: canonical distance, then training index."""
    n = X_train.shape[0]
    acc = np.zeros((X_query.shape[0], n))
    out, f = [], 0
    with np.errstate(over="ignore"):
        for k in ks:
            while f < k:
                t = X_query[:, f][:, None] - X_train[:, f][None, :]
                acc = acc + t * t
                f += 1
            dist = acc.copy()
            if exclude_self:
                np.fill_diagonal(dist, np.inf)
            sets = []
            for i in range(dist.shape[0]):
                order = np.lexsort((np.arange(n), dist[i]))  # by distance, then index
                if exclude_self:
                    order = order[order != i]
                sets.append(np.sort(order[:num]))
            out.append(np.array(sets))
    return np.array(out)


def assert_both_sides(X_train, X_test, ks, num, **knobs):
    for X, own in ((X_train, True), (X_test, False)):
        got = prefix_neighbours(X_train, X, ks, num=num, exclude_self=own, **knobs)
        np.testing.assert_array_equal(got, reference_sets(X_train, X, ks, num, own),
                                      err_msg=f"exclude_self={own}")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_train=st.integers(12, 70), n_test=st.integers(1, 20),
       d=st.integers(1, 12), num=st.integers(1, 10), block_rows=st.integers(1, 40))
def test_kernel_matches_reference_on_tie_heavy_values(seed, n_train, n_test, d, num, block_rows):
    rng = np.random.default_rng(seed)
    values = np.array([0.0, -0.0, 0.0, 0.5, 1.0, 0.25, -1.0, 3.0])  # mostly zeros, many ties
    X_train = rng.choice(values, (n_train, d))
    X_test = rng.choice(values, (n_test, d))
    X_train[n_train // 2:n_train // 2 + 3] = X_train[:3]  # exact duplicates
    ks = sorted(set(rng.integers(1, d + 1, 3).tolist()))
    assert_both_sides(X_train, X_test, ks, min(num, n_train - 1), block_rows=block_rows)


def test_kernel_orders_infinite_distances_by_index():
    rng = np.random.default_rng(21)
    X_train = rng.choice([0.0, 1e200, -1e200, 1.0], (40, 6))
    X_test = rng.choice([0.0, 1e200, 1.0], (15, 6))
    assert_both_sides(X_train, X_test, [1, 3, 6], 10)


def test_kernel_on_cancellation_prone_offsets_over_a_fine_grid():
    # |a|^2 + |b|^2 - 2ab loses every digit here; the neighbour sets change along the grid, so
    # the previous set primes the scan with non-neighbours as well.
    rng = np.random.default_rng(22)
    X_train = 1e6 + rng.integers(0, 3, (90, 15)) * 1e-3 + rng.random((90, 15)) * 1e-9
    X_test = 1e6 + rng.integers(0, 3, (25, 15)) * 1e-3
    assert_both_sides(X_train, X_test, list(range(1, 16)), 10, block_rows=9)


def test_kernel_on_real_yahoo_sample(mlc_dir):
    data = load_dataset("Business", mlc_dir)
    order = np.random.default_rng(5).permutation(data.n_samples)
    tr, te = order[:500], order[500:620]
    lo, hi = data.X[tr].min(axis=0), data.X[tr].max(axis=0)
    scale = np.where(hi > lo, hi - lo, 1.0)
    ranking = np.random.default_rng(6).permutation(data.X.shape[1])[:120]
    X_train, X_test = (data.X[tr] - lo)[:, ranking] / scale[ranking], \
        (data.X[te] - lo)[:, ranking] / scale[ranking]
    assert np.mean(X_train == 0) > 0.8  # sparse, as the Yahoo sets are
    assert_both_sides(X_train, X_test, list(range(10, 121, 10)), 10, n_threads=2, block_rows=64)


def _fma_breaks_tie(p: float, q: float) -> bool:
    """Whether fl(fl(p^2) + q^2), a fused multiply-add, differs from the canonical
    fl(fl(p^2) + fl(q^2)) for one of the two feature orders (p, q) and (q, p)."""
    def fused(x, y):
        return float(Fraction(x * x) + Fraction(y) * Fraction(y))
    return fused(p, q) != fused(q, p)


def test_kernel_never_fuses_multiply_add():
    # Training rows (c+p, c+q) and (c+q, c+p) are at the same canonical distance from (c, c)
    # (t = p, q exactly; addition commutes), so index 0 must win. With a fused multiply-add the
    # two distances differ and, for one of the two row orders, index 1 would win.
    rng = np.random.default_rng(23)
    c, cases = 1.0, 0
    while cases < 20:
        p, q = (np.floor(rng.random(2) * 2.0**40) / 2.0**41 + 0.5).tolist()
        if not _fma_breaks_tie(p, q):
            continue
        cases += 1
        for first, second in (((p, q), (q, p)), ((q, p), (p, q))):
            X_train = c + np.array([first, second, (5.0, 5.0)])
            query = np.array([[c, c]])
            assert prefix_neighbours(X_train, query, [2], num=1, exclude_self=False)[0, 0, 0] == 0


@pytest.mark.parametrize("kwargs,text", [
    ({"k_values": [3, 2]}, "ascending"),
    ({"k_values": [0]}, "ascending"),
    ({"k_values": [9]}, "ascending"),
    ({"num": 5}, "num must be"),
])
def test_prefix_neighbours_rejects_bad_arguments(kwargs, text):
    X = np.arange(15.0).reshape(5, 3)
    args = {"k_values": [1, 3], "num": 2, **kwargs}
    with pytest.raises(ValueError, match=text):
        prefix_neighbours(X, X, args["k_values"], num=args["num"], exclude_self=True)
