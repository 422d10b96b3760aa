"""Parity of the fast evaluator with a plain per-k reference written here (identical results).

The reference recomputes everything from scratch for every k: canonical squared distances (a
sequential loop over the features), a full stable sort by (distance, training index), ML-kNN
statistics and the metrics with explicit Python loops.
"""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.data.registry import load_dataset
from pipeline.evaluation.metrics import METRICS
from pipeline.evaluation.mlknn import MLkNN, evaluate_grid
from pipeline.evaluation.neighbours import prefix_neighbours

EPS = np.finfo(float).eps


# ---------------------------------------------------------------- plain reference ML-kNN
def ref_neighbours(Xq, Xtr, k, num, exclude_self):
    out = []
    for i in range(Xq.shape[0]):
        acc = np.zeros(Xtr.shape[0])
        for f in range(k):
            t = Xq[i, f] - Xtr[:, f]
            acc = acc + t * t
        if exclude_self:
            acc[i] = np.inf
        order = sorted(range(Xtr.shape[0]), key=lambda j: (acc[j], j))
        out.append(sorted(order[:num]))
    return np.array(out)


def ref_mlknn(Xtr, Ytr, Xte, k, num=10, s=1.0):
    n, L = Ytr.shape
    prior = [(s + Ytr[:, j].sum()) / (2 * s + n) for j in range(L)]
    tr_nb = ref_neighbours(Xtr, Xtr, k, num, True)
    te_nb = ref_neighbours(Xte, Xtr, k, num, False)
    outputs = np.zeros((Xte.shape[0], L))
    for j in range(L):
        a = [0] * (num + 1)
        b = [0] * (num + 1)
        for i in range(n):
            c = int(sum(Ytr[m, j] for m in tr_nb[i]))
            if Ytr[i, j]:
                a[c] += 1
            else:
                b[c] += 1
        cond = [(s + a[c]) / (s * (num + 1) + sum(a) + EPS) for c in range(num + 1)]
        cond_n = [(s + b[c]) / (s * (num + 1) + sum(b) + EPS) for c in range(num + 1)]
        for i in range(Xte.shape[0]):
            t = int(sum(Ytr[m, j] for m in te_nb[i]))
            p1, p0 = prior[j] * cond[t], (1 - prior[j]) * cond_n[t]
            outputs[i, j] = prior[j] if p1 + p0 == 0 else p1 / (p1 + p0)
    return tr_nb, te_nb, outputs


def ref_order_ap(truth, scores):
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    hits, total = 0, 0.0
    for rank, i in enumerate(order, start=1):
        if truth[i]:
            hits += 1
            total += hits / rank
    return total / hits if hits else float("nan")


def ref_metrics(Y, P, S):
    n, L = Y.shape
    tp = fp = fn = 0
    per_label = []
    for j in range(L):
        t = sum(1 for i in range(n) if Y[i, j] and P[i, j])
        f = sum(1 for i in range(n) if not Y[i, j] and P[i, j])
        m = sum(1 for i in range(n) if Y[i, j] and not P[i, j])
        tp, fp, fn = tp + t, fp + f, fn + m
        per_label.append(2 * t / (2 * t + f + m) if 2 * t + f + m else 0.0)
    flat_y = [Y[i, j] for j in range(L) for i in range(n)]
    flat_s = [S[i, j] for j in range(L) for i in range(n)]
    used = [j for j in range(L) if 0 < Y[:, j].sum() < n]
    ex_ap = sum(ref_order_ap(Y[i], S[i]) for i in range(n) if Y[i].any()) / n
    one_err = sum(1 for i in range(n) if not Y[i, int(np.argmax(S[i]))]) / n
    # Zhang & Zhou: ties count as misordered pairs; coverage ranks from a stable ascending sort
    pairs = [sum(S[i, j] <= S[i, k] for j in range(L) if Y[i, j] for k in range(L) if not Y[i, k])
             / (Y[i].sum() * (L - Y[i].sum())) for i in range(n) if 0 < Y[i].sum() < L]
    ascending = [sorted(range(L), key=lambda j: (S[i, j], j)) for i in range(n)]
    ranks = [L - min(pos for pos, j in enumerate(ascending[i]) if Y[i, j]) for i in range(n) if Y[i].any()]
    return {"micro_f1": 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0,
            "macro_f1": sum(per_label) / L,
            "hamming_loss": float(np.mean(Y != P)),
            "micro_pr_auc": ref_order_ap(flat_y, flat_s),
            "macro_pr_auc": (sum(ref_order_ap(Y[:, j], S[:, j]) for j in used) / len(used)
                             if used else float("nan")),
            "avg_precision": ex_ap, "one_error": one_err,
            "ranking_loss": sum(pairs) / len(pairs) if pairs else float("nan"),
            "coverage": sum(ranks) / len(ranks) - 1 if ranks else float("nan")}


def assert_parity(Xtr, Ytr, Xte, Yte, ranking, ks):
    Ytr, Yte = Ytr.astype(bool), Yte.astype(bool)
    result = evaluate_grid(Xtr, Ytr, Xte, Yte, ranking, ks)
    cols = np.asarray(ranking) - 1
    A, B = Xtr[:, cols], Xte[:, cols]
    ks = result["k_values"]
    train_sets = prefix_neighbours(A, A, ks, num=10, exclude_self=True, block_rows=13)
    test_sets = prefix_neighbours(A, B, ks, num=10, exclude_self=False, block_rows=13)
    for index, k in enumerate(ks):
        tr_nb, te_nb, outputs = ref_mlknn(A, Ytr, B, k)
        np.testing.assert_array_equal(train_sets[index], tr_nb, err_msg=f"train neighbours, k={k}")
        np.testing.assert_array_equal(test_sets[index], te_nb, err_msg=f"test neighbours, k={k}")
        expected = ref_metrics(Yte, outputs >= 0.5, outputs)
        for name in METRICS:
            np.testing.assert_allclose(result[name][index], expected[name], rtol=0, atol=1e-12,
                                       err_msg=f"{name}, k={k}")
    return result


# ---------------------------------------------------------------- synthetic data
def test_parity_continuous_random():
    rng = np.random.default_rng(10)
    Xtr, Xte = rng.random((70, 25)), rng.random((30, 25))
    Ytr, Yte = rng.random((70, 5)) < 0.3, rng.random((30, 5)) < 0.3
    assert_parity(Xtr, Ytr, Xte, Yte, rng.permutation(25) + 1, [3, 10, 17, 25])


def test_parity_binary_tie_heavy_with_duplicates():
    rng = np.random.default_rng(11)
    Xtr = (rng.random((80, 20)) < 0.1).astype(float)
    Xtr[40:50] = Xtr[0:10]  # exact duplicates stay neighbours
    Xte = np.vstack([(rng.random((25, 20)) < 0.1).astype(float), Xtr[:5]])
    Ytr, Yte = rng.random((80, 4)) < 0.4, rng.random((30, 4)) < 0.4
    result = assert_parity(Xtr, Ytr, Xte, Yte, np.arange(1, 21), [1, 2, 5, 10, 20])
    assert result["k_values"] == [1, 2, 5, 10, 20]


def test_parity_where_norm_expansion_cancels():
    # Large offset, tiny differences: |a|^2 + |b|^2 - 2ab loses every digit, so only the
    # canonical recomputation at the boundary can find the right neighbours.
    rng = np.random.default_rng(12)
    Xtr = 1e6 + rng.integers(0, 3, (60, 12)) * 1e-3 + rng.random((60, 12)) * 1e-9
    Xte = 1e6 + rng.integers(0, 3, (20, 12)) * 1e-3
    Ytr, Yte = rng.random((60, 3)) < 0.5, rng.random((20, 3)) < 0.5
    assert_parity(Xtr, Ytr, Xte, Yte, np.arange(1, 13), [4, 12])


def test_zero_rows_take_lowest_index_zero_neighbours():
    rng = np.random.default_rng(13)
    Xtr = rng.random((50, 8)) * (rng.random((50, 8)) < 0.05)
    Xte = np.zeros((3, 8))
    test_sets = prefix_neighbours(Xtr, Xte, [2], num=4, exclude_self=False)
    train_sets = prefix_neighbours(Xtr, Xtr, [2], num=4, exclude_self=True)
    zero_rows = np.flatnonzero(~Xtr[:, :2].any(axis=1))
    np.testing.assert_array_equal(test_sets[0], np.tile(zero_rows[:4], (3, 1)))
    np.testing.assert_array_equal(train_sets[0], ref_neighbours(Xtr, Xtr, 2, 4, True))


# ---------------------------------------------------------------- real data samples
def real_sample(name, mlc_dir, n_train, n_test, seed):
    data = load_dataset(name, mlc_dir)
    order = np.random.default_rng(seed).permutation(data.n_samples)
    tr, te = order[:n_train], order[n_train:n_train + n_test]
    lo, hi = data.X[tr].min(axis=0), data.X[tr].max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (data.X[tr] - lo) / span, data.Y[tr], (data.X[te] - lo) / span, data.Y[te]


@pytest.mark.parametrize("name,seed", [("Arts", 0), ("medical", 1), ("emotions", 2)])
def test_parity_on_real_fold_sample(name, seed, mlc_dir):
    Xtr, Ytr, Xte, Yte = real_sample(name, mlc_dir, 150, 40, seed)
    d = Xtr.shape[1]
    ranking = np.random.default_rng(seed).permutation(d) + 1
    assert_parity(Xtr, Ytr, Xte, Yte, ranking, [10, 20, 40, 60])


# ---------------------------------------------------------------- independence of the cut
def test_grid_chunking_does_not_change_values():
    rng = np.random.default_rng(14)
    Xtr = rng.random((90, 30)) * (rng.random((90, 30)) < 0.2)
    Xte = rng.random((40, 30)) * (rng.random((40, 30)) < 0.2)
    Ytr, Yte = rng.random((90, 5)) < 0.3, rng.random((40, 5)) < 0.3
    ranking = rng.permutation(30) + 1
    full = evaluate_grid(Xtr, Ytr, Xte, Yte, ranking, [10, 20, 30])
    alone = evaluate_grid(Xtr, Ytr, Xte, Yte, ranking, [30])
    fine = evaluate_grid(Xtr, Ytr, Xte, Yte, ranking, list(range(1, 31)))
    for name in METRICS:
        assert full[name][-1] == alone[name][0] == fine[name][-1], name
        assert full[name][0] == fine[name][9], name


def test_block_size_and_threads_do_not_change_neighbours():
    rng = np.random.default_rng(15)
    Xtr = (rng.random((120, 40)) < 0.15) * rng.integers(1, 3, (120, 40)) / 2.0
    Xte = (rng.random((50, 40)) < 0.15) * rng.integers(1, 3, (50, 40)) / 2.0
    ks = [5, 12, 40]
    for X, own in ((Xtr, True), (Xte, False)):
        a = prefix_neighbours(Xtr, X, ks, num=10, exclude_self=own, block_rows=7, n_threads=1)
        b = prefix_neighbours(Xtr, X, ks, num=10, exclude_self=own, block_rows=500, n_threads=3)
        c = prefix_neighbours(Xtr, X, [40], num=10, exclude_self=own, block_rows=33, n_threads=2)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a[-1], c[0])
        for index, k in enumerate(ks):
            np.testing.assert_array_equal(a[index], ref_neighbours(X, Xtr, k, 10, own))


def test_mlknn_class_matches_reference():
    rng = np.random.default_rng(16)
    Xtr, Xte = rng.random((60, 6)), rng.random((15, 6))
    Ytr = rng.random((60, 4)) < 0.4
    tr_nb, te_nb, outputs = ref_mlknn(Xtr, Ytr, Xte, 6)
    model = MLkNN(num=10, smooth=1.0).fit(Xtr, Ytr)
    np.testing.assert_array_equal(model.train_neighbours_, tr_nb)
    np.testing.assert_array_equal(model.kneighbors(Xte), te_nb)
    np.testing.assert_allclose(model.predict_proba(Xte), outputs, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(model.predict(Xte), (outputs >= 0.5).astype(np.int8))


def test_power_of_two_scaling_keeps_sets_on_binary_ties():
    # Scaling by 0.5 is exact and scales every canonical distance by 0.25, so the sets (decided
    # almost entirely by ties on binary data) must be the same.
    rng = np.random.default_rng(17)
    Xtr = (rng.random((150, 60)) < 0.08).astype(float)
    Xte = (rng.random((40, 60)) < 0.08).astype(float)
    ks = [10, 30, 60]
    for X, own in ((Xtr, True), (Xte, False)):
        plain = prefix_neighbours(Xtr, X, ks, num=10, exclude_self=own)
        halved = prefix_neighbours(0.5 * Xtr, 0.5 * X, ks, num=10, exclude_self=own)
        np.testing.assert_array_equal(plain, halved)
        np.testing.assert_array_equal(plain[-1], ref_neighbours(X, Xtr, 60, 10, own))


def test_align_to_grid_rejects_unevaluated_k():
    from pipeline.errors import ConfigError
    from pipeline.evaluation.mlknn import align_to_grid

    with pytest.raises(ConfigError, match="no evaluated k"):
        align_to_grid({"k_values": [2, 4], **{m: [0.0, 1.0] for m in METRICS}}, [2, 3])
