"""Golden values of the reference evaluator (docs/evaluation.md, "Golden values": E1 and E2), to 1e-9."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.evaluation.grids import p_grid, p_to_k
from pipeline.evaluation.metrics import METRICS
from pipeline.evaluation.mlknn import align_to_grid, evaluate_grid

E1_RANKING = [7, 29, 1, 17, 13, 4, 23, 3, 6, 30, 22, 21, 15, 27, 14, 18, 2, 10, 24, 9, 5, 12, 28,
              16, 11, 25, 20, 19, 8, 26]

E1_PGRID = {
    "micro_f1": "0.0425531915 0.0416666667 0 0.0434782609 0.1481481481 0.0851063830 0.0851063830 "
                "0.3103448276 0.0909090909 0.25",
    "macro_f1": "0.0219780220 0.0238095238 0 0.0357142857 0.0979591837 0.0439560440 0.0884353741 "
                "0.2147695442 0.0793650794 0.1575091575",
    "hamming_loss": "0.3214285714 0.3285714286 0.2928571429 0.3142857143 0.3285714286 "
                    "0.3071428571 0.3071428571 0.2857142857 0.2857142857 0.2571428571",
    "micro_pr_auc": "0.2986524464 0.3292345831 0.2788715678 0.2762866937 0.3004607088 "
                    "0.2987648205 0.2971183194 0.4477770179 0.2959344641 0.4552657181",
    "macro_pr_auc": "0.3514392319 0.4063698216 0.3244251211 0.2971126041 0.3570376585 "
                    "0.3229802683 0.3632988108 0.4481885080 0.3524520635 0.4897785373",
    "avg_precision": "0.4818492063 0.5144325397 0.4200793651 0.3933809524 0.4350436508 "
                     "0.4776626984 0.4585952381 0.5900992063 0.4227460317 0.5594880952",
    "one_error": "0.6 0.65 0.8 0.85 0.75 0.7 0.75 0.55 0.7 0.6",
}

E1_KGRID = {
    "micro_f1": "0 0.1276595745 0.0909090909",
    "macro_f1": "0 0.0805194805 0.0634920635",
    "hamming_loss": "0.3214285714 0.2928571429 0.2857142857",
    "micro_pr_auc": "0.2578793608 0.3074869485 0.3367190492",
    "macro_pr_auc": "0.3055641205 0.3210881213 0.3574501120",
    "avg_precision": "0.4420238095 0.4575992063 0.4487976190",
    "one_error": "0.8 0.65 0.7",
}

E2_KGRID = {
    "micro_f1": "0.2580645161 0.2765957447 0.2526315789",
    "macro_f1": "0.2056458947 0.2198979592 0.1952280912",
    "hamming_loss": "0.4928571429 0.4857142857 0.5071428571",
    "micro_pr_auc": "0.3235496969 0.3576117991 0.3196619981",
    "macro_pr_auc": "0.4583667256 0.4264537330 0.3868464312",
    "avg_precision": "0.4249900794 0.5401706349 0.4510853175",
    "one_error": "0.9 0.7 0.8",
}


def e1_data():
    rng = np.random.default_rng(1)
    Xtr = rng.random((40, 30))
    Ytr = rng.random((40, 7)) > 0.7
    Xte = rng.random((20, 30))
    Yte = rng.random((20, 7)) > 0.7
    return Xtr, Ytr, Xte, Yte


def e2_data():
    rng = np.random.default_rng(2)
    Xtr = (rng.random((40, 30)) < 0.3).astype(float)
    Ytr = rng.random((40, 7)) > 0.6
    Xte = (rng.random((20, 30)) < 0.3).astype(float)
    Yte = rng.random((20, 7)) > 0.6
    return Xtr, Ytr, Xte, Yte


def assert_golden(result, expected):
    # the reference evaluator has no ranking loss or coverage (checked in test_evaluation_reference.py)
    assert set(expected) == set(METRICS) - {"ranking_loss", "coverage"}
    for name, text in expected.items():
        np.testing.assert_allclose(result[name], [float(v) for v in text.split()], rtol=0,
                                   atol=1e-9, err_msg=name)
    assert result["macro_pr_auc_labels_used"] == 7
    assert result["macro_pr_auc_labels_total"] == 7


def test_e1_pgrid_matches_reference():
    k_per_p = p_to_k(p_grid(), 30)
    assert k_per_p == [2, 3, 5, 6, 8, 9, 11, 12, 14, 15]
    result = evaluate_grid(*e1_data(), E1_RANKING, k_per_p, num=10, smooth=1.0)
    assert_golden(align_to_grid(result, k_per_p), E1_PGRID)


def test_e1_kgrid_matches_reference():
    result = evaluate_grid(*e1_data(), E1_RANKING, [10, 20, 30])
    assert result["k_values"] == [10, 20, 30]
    assert_golden(result, E1_KGRID)


@pytest.mark.parametrize("labels", ["01", "pm1"])
def test_e2_binary_features_tie_rule(labels):
    Xtr, Ytr, Xte, Yte = e2_data()
    if labels == "pm1":
        Ytr, Yte = np.where(Ytr, 1, -1), np.where(Yte, 1, -1)
    result = evaluate_grid(Xtr, Ytr, Xte, Yte, np.arange(1, 31), [30, 10, 20, 20])
    assert result["k_values"] == [10, 20, 30]
    assert_golden(result, E2_KGRID)


def test_e2_pgrid_repeats_metrics_of_repeated_k():
    k_per_p = p_to_k(p_grid(), 10)
    assert k_per_p == [1, 1, 2, 2, 2, 3, 4, 4, 4, 5]
    Xtr, Ytr, Xte, Yte = e2_data()
    result = align_to_grid(evaluate_grid(Xtr[:, :10], Ytr, Xte[:, :10], Yte, np.arange(1, 11),
                                         k_per_p), k_per_p)
    assert result["k_values"] == k_per_p
    assert result["micro_f1"][0] == result["micro_f1"][1]
    assert result["hamming_loss"][2] == result["hamming_loss"][4]
