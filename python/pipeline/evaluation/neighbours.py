"""Exact, engine-independent nearest neighbours over growing feature prefixes.

The neighbour rule (binding for every engine of the project, Python and GNU Octave alike)
----------------------------------------------------------------------------------------
For selected features ``f_1 .. f_k`` (the first k columns in ranking order) the **canonical squared
distance** between rows ``a`` and ``b`` is, in float64::

    acc = 0
    for f in f_1 .. f_k:            # sequentially, in ranking order
        t = a_f - b_f
        acc = acc + t * t           # a product, not pow(); no fused multiply-add

The ``Num`` neighbours of a point are the Num smallest training points by the pair
``(canonical squared distance, training index)``. A training point is never its own neighbour (its
own entry counts as +inf); exact duplicates of it are kept. Sets are returned as training indices
(0-based) in ascending index order, one row per query point.

Because the rule is defined by this elementwise recurrence, the chosen sets do not depend on the
BLAS, the thread count, the row block size or how the k-grid is cut into chunks.

The fast path (what is actually computed)
-----------------------------------------
Running squared norms ``tn`` (training) and ``qn`` (queries) and, per query row i and training row
j, ``W_ij = tn_j - 2·(running dot product)`` are updated chunk by chunk as the grid grows (one
in-place BLAS ``dgemm`` per chunk and row block, §3.2.1 of the spec), so the fast squared distance
``f_ij = max(qn_i + W_ij, 0)`` costs O(1) per pair and grid point. It differs from the canonical
value ``c_ij`` by rounding only. With ``u = 2**-53``, ``m = k + 2·(number of chunks)``, the
standard bounds for sums of m terms (|error| <= gamma_m · sum of |terms|, any summation order, with
or without FMA), Cauchy–Schwarz for the dot products and ``e_ij <= 2(s_i + s_j)`` for the exact
value ``e_ij`` (``s`` the exact squared norms), one gets

    |f_ij - c_ij| <= (4·gamma_(m+2) + 3u) · (s_i + s_j)

We use the safe bound

    delta_ij = 8·(m + 3)·u · (qn_i + tn_j) + m·2**-1000

(about twice the derivation, plus an absolute term that covers underflow of tiny values), and the
per-row margin ``margin_i = 8·(m + 3)·u · (qn_i + max_j tn_j) + m·2**-1000`` for W itself.

For each query row i and grid point k:

1. Screen: the (Num+1)-th smallest entry of row i of W (its own entry included) bounds the Num-th
   smallest W over the other training points, so every possible neighbour has
   ``W_ij <= kth_i + 2·margin_i``; we keep ``W_ij <= kth_i + 4·margin_i`` (one vectorised comparison
   per row block). kth is found cheaply: a column sample gives a larger bound, the exact value is
   then taken among that bound's candidates.
2. The candidates are sorted by (f, index); the first Num form a tentative set ``T``. With
   ``hi = max_T (f + delta)`` and ``lo = min_(not T) (f - delta)``: a candidate with
   ``f + delta < lo`` is certainly in, one with ``f - delta > hi`` certainly out. Only the rest
   (the boundary near-ties) get their canonical distance recomputed (vectorised over the pairs, a
   loop over the features), and they fill the remaining places by (canonical distance, index).
   Pairs of two rows that are all zero on the selected features have canonical distance exactly 0
   and are not recomputed.
3. A query row that is exactly zero on the selected features has canonical distance
   ``sum fl(b_f^2)`` to training row b, which is 0 iff ``tn_b == 0``; with at least Num such rows
   its neighbours are the lowest-index ones, taken directly. This settles the massive zero ties of
   the sparse Yahoo sets (~93 % zeros) for free.

No n x n matrix is sorted; the work per grid point is a few passes over the row blocks of W plus
work proportional to the number of boundary ties.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy.linalg.blas import dgemm
from threadpoolctl import threadpool_limits

_UNIT_ROUNDOFF = 2.0 ** -53
_TINY_SLACK = 2.0 ** -1000
_PAIR_CHUNK_VALUES = 1 << 21  # scratch of the canonical recomputation: 16 MiB


def canonical_sq_distances(A: np.ndarray, B: np.ndarray, rows_a, rows_b, k: int) -> np.ndarray:
    """Canonical squared distances between pairs ``(A[rows_a[p]], B[rows_b[p]])`` over columns 0..k-1.

    Parameters
    ----------
    A, B : ndarray of shape (n_a, >=k) and (n_b, >=k), float64
        Feature matrices with the columns already in ranking order.
    rows_a, rows_b : int arrays of shape (P,)
        The pairs.
    k : int
        Number of leading columns used.

    Returns
    -------
    ndarray of shape (P,)
        ``acc`` of the module docstring, accumulated sequentially over the columns.
    """
    rows_a = np.asarray(rows_a, dtype=np.intp)
    rows_b = np.asarray(rows_b, dtype=np.intp)
    acc = np.zeros(rows_a.shape[0], dtype=np.float64)
    step = max(1, _PAIR_CHUNK_VALUES // max(k, 1))
    for lo in range(0, rows_a.size, step):
        pairs = slice(lo, lo + step)
        # gather once per chunk, then add the columns one by one (Fortran order: contiguous)
        diff = np.asfortranarray(A[rows_a[pairs], :k] - B[rows_b[pairs], :k])
        np.multiply(diff, diff, out=diff)
        part = acc[pairs]
        for f in range(k):
            np.add(part, diff[:, f], out=part)
    return acc


def _integer_arithmetic_is_exact(X_train: np.ndarray, X_test) -> bool:
    """True when every feature is an integer and every sum the fast path and the canonical
    recurrence form stays below 2**53 in magnitude: then both are exact, so they are equal and
    no tie ever needs a recomputation (binary data such as medical, enron, genbase)."""
    parts = [X_train] if X_test is None else [X_train, np.asarray(X_test, dtype=np.float64)]
    largest = max(float(np.max(np.abs(p), initial=0.0)) for p in parts)
    k_max = X_train.shape[1]
    if largest == 0.0 or 4.0 * largest * largest * (k_max + 2) * 3 >= 2.0 ** 53:
        return largest == 0.0
    return all(np.array_equal(p, np.round(p)) for p in parts)


def _contiguous(idx: np.ndarray) -> bool:
    return idx.size > 0 and idx[-1] - idx[0] + 1 == idx.size


@dataclass(frozen=True)
class NeighbourSets:
    """Neighbour sets at one grid point: (n_train, Num) and (n_test, Num) training indices."""

    k: int
    train: np.ndarray | None
    test: np.ndarray | None


@dataclass
class _QuerySet:
    """Running state of one set of query rows (the training rows themselves, or the test rows)."""

    X: np.ndarray            # (n_query, k_max) Fortran-ordered features in ranking order
    norms: np.ndarray        # running squared norms
    all_zero: np.ndarray     # rows that are exactly zero on every feature added so far
    state: np.ndarray        # W_ij = tn_j - 2·(running dot product), (n_query, n_train)
    exclude_self: bool


class IncrementalNeighbours:
    """Exact Num-nearest-neighbour sets for growing feature prefixes (see the module docstring).

    Parameters
    ----------
    X_train : ndarray of shape (n_train, k_max)
        Training features, columns in ranking order.
    X_test : ndarray of shape (n_test, k_max), optional
        Query points (no self-exclusion). ``None`` for training neighbours only.
    num : int
        Number of neighbours, ``1 <= num < n_train``.
    train_neighbours : bool
        Whether to compute the training points' own neighbours (self excluded).
    block_rows : int
        Query rows handled together (about 3 · block_rows · n_train · 8 bytes of scratch per
        thread).
    n_threads : int, optional
        Worker threads over row blocks (NumPy and the BLAS release the GIL); default
        ``min(4, cpu_count)``. The result does not depend on it.

    Memory: (n_train + n_test) · n_train float64 for the running dot products.
    """

    def __init__(self, X_train, X_test=None, *, num: int, train_neighbours: bool = True,
                 block_rows: int = 256, n_threads: int | None = None):
        self._xtr = np.asfortranarray(X_train, dtype=np.float64)
        n = self._xtr.shape[0]
        if not 1 <= num < n:
            raise ValueError(f"num must be in 1..{n - 1}, got {num}")
        self.num = int(num)
        self.block_rows = int(block_rows)
        self.n_threads = n_threads or min(4, os.cpu_count() or 1)
        self._k = 0
        self._chunks = 0
        self._tn = np.zeros(n)
        self._tr_zero = np.ones(n, dtype=bool)
        self._exact = _integer_arithmetic_is_exact(self._xtr, X_test)
        self._queries: dict[str, _QuerySet] = {}
        if train_neighbours:
            self._queries["train"] = self._query_set(self._xtr, exclude_self=True)
        if X_test is not None:
            self._queries["test"] = self._query_set(X_test, exclude_self=False)

    def _query_set(self, X, *, exclude_self: bool) -> _QuerySet:
        X = np.asfortranarray(X, dtype=np.float64)
        m = X.shape[0]
        return _QuerySet(X=X, norms=np.zeros(m), all_zero=np.ones(m, dtype=bool),
                         state=np.zeros((m, self._xtr.shape[0])), exclude_self=exclude_self)

    @property
    def k(self) -> int:
        """Number of leading features accumulated so far."""
        return self._k

    def advance(self, k: int) -> NeighbourSets:
        """Add columns ``self.k .. k-1`` and return the neighbour sets over the first k columns."""
        if k < max(self._k, 1) or k > self._xtr.shape[1]:
            raise ValueError(f"k must be in {max(self._k, 1)}..{self._xtr.shape[1]}, got {k}")
        start = self._k
        if k > start:
            A = self._xtr[:, start:k]
            chunk_norms = np.einsum("ij,ij->i", A, A)
            self._tn += chunk_norms
            self._tr_zero &= ~np.any(A != 0, axis=1)
            for q in self._queries.values():
                if q.X is not self._xtr:
                    B = q.X[:, start:k]
                    q.norms += np.einsum("ij,ij->i", B, B)
                    q.all_zero &= ~np.any(B != 0, axis=1)
                else:
                    q.norms, q.all_zero = self._tn, self._tr_zero
            # Train side of the augmented product: [A | Δtn], so that one dgemm per block adds
            # Δtn_j - 2·b·a_j to the running state (see _update_state).
            self._train_chunk = np.asfortranarray(np.column_stack([A, chunk_norms]))
            self._k = k
            self._chunks += 1
        sets = {name: self._select(q, start) for name, q in self._queries.items()}
        return NeighbourSets(k=k, train=sets.get("train"), test=sets.get("test"))

    def _select(self, q: _QuerySet, start: int) -> np.ndarray:
        nq = q.X.shape[0]
        out = np.empty((nq, self.num), dtype=np.int64)
        blocks = [np.arange(s, min(s + self.block_rows, nq)) for s in range(0, nq, self.block_rows)]

        def work(rows):
            self._update_state(q, rows, start)
            out[rows] = self._select_rows(q, rows)

        with threadpool_limits(limits=1, user_api="blas"):
            if self.n_threads > 1 and len(blocks) > 1:
                with ThreadPoolExecutor(self.n_threads) as pool:
                    list(pool.map(work, blocks))
            else:
                for rows in blocks:
                    work(rows)
        return out

    def _update_state(self, q: _QuerySet, rows: np.ndarray, start: int) -> None:
        """W[rows] += Δtn_j - 2·B Aᵀ for the new columns: one in-place dgemm on the Fortran view.

        The query side is [-2·B | 1]; scaling by -2 is exact, so the only roundings are those of
        the dot products and of the accumulation (covered by the bound of the module docstring).
        """
        if start == self._k:
            return
        target = q.state[rows[0]:rows[-1] + 1]
        B = q.X[rows[0]:rows[-1] + 1, start:self._k]
        query_side = np.asfortranarray(np.column_stack([-2.0 * B, np.ones(B.shape[0])]))
        res = dgemm(alpha=1.0, a=self._train_chunk, b=query_side, trans_b=1, beta=1.0,
                    c=target.T, overwrite_c=1)
        if not np.shares_memory(res, target):
            target[...] = res.T

    def _margin(self, qn: np.ndarray) -> tuple[np.ndarray, float, float]:
        if self._exact:
            return np.zeros_like(qn), 0.0, 0.0
        m = self._k + 2 * self._chunks
        coef, abs_slack = 8.0 * (m + 3) * _UNIT_ROUNDOFF, m * _TINY_SLACK
        return coef * (qn + self._tn.max()) + abs_slack, coef, abs_slack

    def _select_rows(self, q: _QuerySet, rows: np.ndarray):
        num = self.num
        direct = q.all_zero[rows]
        zero_hits = np.flatnonzero(self._tn == 0)[: num + 1]
        if zero_hits.size <= num:
            direct[:] = False
        out = np.empty((rows.size, num), dtype=np.int64)
        if direct.any():
            out[direct] = self._zero_query_neighbours(rows[direct], zero_hits, q.exclude_self)
        if not direct.all():
            out[~direct] = self._general_neighbours(q, rows[~direct])
        return out

    def _screen(self, W: np.ndarray, margin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Candidate (row, column) pairs: every entry with ``W <= kth + 4 margin``.

        ``kth`` is the (Num+1)-th smallest entry of the row, the query's own entry included: an
        upper bound of the Num-th smallest over the other training points. To avoid partitioning
        whole rows, a column sample gives a first (larger) bound; the exact kth is then taken among
        the sample's candidates, which contain the row's Num+1 smallest entries. Rows whose sample
        bound leaves too many candidates (massive ties) are partitioned whole.
        """
        num, n = self.num, W.shape[1]
        stride = max(1, min(4, n // (4 * (num + 1))))
        sample = np.partition(W[:, ::stride], num, axis=1)[:, num]
        rows, cols = np.divmod(np.flatnonzero(W <= (sample + 4.0 * margin)[:, None]), n)
        counts = np.bincount(rows, minlength=W.shape[0])
        width = 8 * stride * (num + 1)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        position = np.arange(rows.size) - starts[rows]
        fits = position < width
        padded = np.full((W.shape[0], min(width, int(counts.max()))), np.inf)
        padded[rows[fits], position[fits]] = W[rows[fits], cols[fits]]
        kth = np.partition(padded, num, axis=1)[:, num]
        crowded = np.flatnonzero(counts > width)
        if crowded.size:
            kth[crowded] = np.partition(W[crowded], num, axis=1)[:, num]
        keep = W[rows, cols] <= (kth + 4.0 * margin)[rows]
        return rows[keep], cols[keep]

    def _zero_query_neighbours(self, queries, zero_hits, exclude_self) -> np.ndarray:
        # A query that is exactly zero on the selected features has canonical distance
        # sum(fl(b_f^2)) to training row b: exactly 0 iff tn_b == 0 (a sum of non-negative
        # floats is 0 iff every term is). With at least Num such rows, the neighbours are the
        # lowest-index ones (the query itself excluded).
        hits = np.broadcast_to(zero_hits, (queries.size, zero_hits.size))
        keep = hits != queries[:, None] if exclude_self else np.ones(hits.shape, dtype=bool)
        keep &= np.cumsum(keep, axis=1) <= self.num
        return hits[keep].reshape(queries.size, self.num)

    def _general_neighbours(self, q: _QuerySet, queries: np.ndarray) -> np.ndarray:
        b, num = queries.size, self.num
        qn = q.norms[queries]
        margin, coef, abs_slack = self._margin(qn)
        # W_ij lies within `margin` of (canonical distance - qn_i). The (Num+1)-th smallest entry
        # of the row, its own entry included, bounds the Num-th smallest over the other training
        # points, hence the Num-th canonical distance: every possible neighbour has
        # W <= kth + 2 margin (4 margins leave room for the rounding of this test itself).
        W = q.state[queries[0]:queries[-1] + 1] if _contiguous(queries) else q.state[queries]
        rows, cols = self._screen(W, margin)
        if q.exclude_self:
            keep = cols != queries[rows]
            rows, cols = rows[keep], cols[keep]
        counts = np.bincount(rows, minlength=b)
        norm_sum = qn[rows] + self._tn[cols]
        f = np.maximum(qn[rows] + W[rows, cols], 0.0)
        delta = coef * norm_sum + abs_slack
        order = np.lexsort((f, rows))  # stable: equal f keep ascending column order
        rows, cols, f, delta = rows[order], cols[order], f[order], delta[order]
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        tentative = (np.arange(rows.size) - starts[rows]) < num
        hi = np.maximum.reduceat(np.where(tentative, f + delta, -np.inf), starts)
        lo = np.minimum.reduceat(np.where(tentative, np.inf, f - delta), starts)
        sure_in = f + delta < lo[rows]
        sure_out = f - delta > hi[rows]
        key = np.where(sure_in, -np.inf, np.where(sure_out, np.inf, f))
        recompute = ~(sure_in | sure_out) & ~(q.all_zero[queries[rows]] & self._tr_zero[cols])
        if np.any(recompute) and not self._exact:
            key[recompute] = canonical_sq_distances(q.X, self._xtr, queries[rows[recompute]],
                                                    cols[recompute], self._k)
        final = np.lexsort((cols, key, rows))
        return np.sort(cols[final][tentative].reshape(b, num), axis=1)
