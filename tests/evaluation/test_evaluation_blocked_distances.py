"""The ML-kNN evaluator's distance scratch is bounded, and the bound changes no number.

Each thread keeps the running distances of one tile of query rows (``DISTANCE_SCRATCH_BYTES``);
forced down to one row per tile and per thread task, the whole grid's results must equal, bit for
bit, those of one tile holding every query row (the n_query x n_train matrix the bound avoids).
Binary features (a cut of languagelog) give distance ties everywhere, so the tie-breaking order is
exercised too.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from pipeline.data.folds import list_fold_indices, load_fold
from pipeline.data.registry import load_dataset
from pipeline.evaluation.mlknn import evaluate_grid
from pipeline.evaluation.neighbours import DISTANCE_SCRATCH_BYTES, prefix_neighbours


def _emotions_fold(real_folds):
    folder = real_folds("emotions") / "emotions"
    return load_fold(folder / f"fold{list_fold_indices(folder.parent, 'emotions')[0]}.mat")


def _languagelog_cut():
    """240 training and 90 test rows of languagelog (binary features, 75 labels), in file order."""
    data = load_dataset("languagelog")
    return data.X[:240], data.Y[:240], data.X[240:330], data.Y[240:330]


def _assert_same_results(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_array_equal(np.asarray(got[key]), np.asarray(expected[key]), err_msg=key)


@pytest.mark.parametrize("source", ["emotions fold", "languagelog cut"])
def test_one_row_tiles_give_the_numbers_of_the_whole_distance_matrix(real_folds, source):
    if source == "emotions fold":
        fold = _emotions_fold(real_folds)
        X_train, Y_train, X_test, Y_test = fold.X_train, fold.Y_train, fold.X_test, fold.Y_test
    else:
        X_train, Y_train, X_test, Y_test = _languagelog_cut()
    d = X_train.shape[1]
    ranking = np.random.default_rng(3).permutation(d) + 1
    k_values = sorted({1, 2, 5, 10, 20, d // 2, d})
    n_query = max(X_train.shape[0], X_test.shape[0])
    whole = evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, k_values, block_rows=n_query, n_threads=1,
                          scratch_bytes=8 * X_train.shape[0] * n_query)
    tiny = evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, k_values, block_rows=1, n_threads=2,
                         scratch_bytes=1)
    default = evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, k_values)
    _assert_same_results(tiny, whole)
    _assert_same_results(default, whole)
    assert np.isfinite(whole["hamming_loss"]).all()


def test_peak_memory_of_a_neighbour_search_stays_far_below_the_distance_matrix():
    """3,000 training and 1,500 query rows: the whole distance matrix would be 36 MB; the search
    holds a few tiles of DISTANCE_SCRATCH_BYTES, the output and small copies of the inputs."""
    rng = np.random.default_rng(8)
    X_train, X_query = rng.random((3000, 4)), rng.random((1500, 4))
    prefix_neighbours(X_train[:50], X_query[:5], [4], num=3, exclude_self=False)  # compiled before measuring
    tracemalloc.start()
    try:
        prefix_neighbours(X_train, X_query, [2, 4], num=10, exclude_self=False, n_threads=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    whole_matrix = 8 * X_train.shape[0] * X_query.shape[0]
    assert peak < 2 * DISTANCE_SCRATCH_BYTES + 2 * 2**20 < whole_matrix / 8
