"""The cheap filters MFS-MCDM and MGFS (Hashemi et al. 2020) against their authors' code.

fixtures/cheap_filters_reference.json holds the rankings the authors' MATLAB code returned on three
real training folds (emotions, yeast, medical; provenance in the file and on the methods' pages).
Both engines must reproduce them up to rounding-level ties: the reference ranking sorts the
project's scores by the ranking rule's tie tolerance (``check_ranking_sorts_scores``), so the two
rankings differ only inside groups of scores equal to ~1e-10 relative (medical's duplicated and
all-zero columns). The Octave and NumPy rankings must be identical.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from baselines_data import both_engines
from pipeline.methods import get_method
from pipeline.methods.mfs_mcdm import topsis_closeness
from pipeline.methods.mgfs import correlation_distance, pagerank
from pipeline.rankings import check_ranking_sorts_scores

REFERENCE = json.loads((Path(__file__).parent / "fixtures" / "cheap_filters_reference.json").read_text())
CASES = [pytest.param(run["method"], run["params"], dataset,
                      id="-".join([run["method"], *(f"{k}={v}" for k, v in run["params"].items()), dataset]))
         for run in REFERENCE["runs"] for dataset in run["rankings"]]


def reference_ranking(method, params, dataset):
    (run,) = [run for run in REFERENCE["runs"] if run["method"] == method and run["params"] == params]
    return np.asarray(run["rankings"][dataset])


@pytest.fixture(scope="module")
def folds(real_training_fold):
    return {dataset: real_training_fold(dataset) for run in REFERENCE["runs"] for dataset in run["rankings"]}


def assert_matches_reference(ranking, scores, reference, context):
    """The reference ranking orders the project's scores (up to the ranking rule's ties); returns
    how many positions differ from the project's ranking (only inside tie groups)."""
    check_ranking_sorts_scores(reference, scores, source=context)
    return int(np.sum(ranking != reference))


@pytest.mark.parametrize("method,params,dataset", CASES)
def test_numpy_matches_the_authors_code(folds, method, params, dataset, record_property):
    X, Y = folds[dataset]
    ranking, info = get_method(method).run(X, Y, params)
    reference = reference_ranking(method, params, dataset)
    differing = assert_matches_reference(ranking, info["scores"], reference, f"{method} {params} on {dataset}")
    record_property("positions_differing_inside_ties", differing)
    if dataset != "medical":   # the dense sets have no rounding-level ties: the rankings are equal
        assert differing == 0


@pytest.mark.octave
@pytest.mark.parametrize("method,params,dataset", CASES)
def test_octave_matches_the_authors_code_and_numpy(octave_engine, folds, method, params, dataset):
    X, Y = folds[dataset]
    (octave_ranking, octave_info), (python_ranking, _) = both_engines(octave_engine, method, X, Y, params)
    np.testing.assert_array_equal(octave_ranking, python_ranking)
    scores = np.asarray(octave_info["scores"], dtype=np.float64).reshape(-1)
    assert_matches_reference(octave_ranking, scores, reference_ranking(method, params, dataset),
                             f"Octave {method} {params} on {dataset}")


def test_topsis_closeness_by_hand():
    # Column maxima (3, 4), minima (1, 0): row (3, 4) is the ideal (1), row (1, 0) the anti-ideal
    # (0); row (2, 2) is sqrt(5) from both (1/2).
    decision = np.array([[3.0, 4.0], [1.0, 0.0], [2.0, 2.0]])
    np.testing.assert_allclose(topsis_closeness(decision), [1.0, 0.0, 0.5], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(topsis_closeness(np.ones((4, 3))), np.zeros(4))   # all rows equal


def test_correlation_distance_is_one_minus_pearson_and_zero_when_undefined():
    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    X[:, 3] = 0.5                                           # constant feature: r undefined
    Y = (rng.random((30, 2)) > 0.5).astype(float)
    distance = correlation_distance(X, Y)
    for j in range(3):
        for label in range(2):
            r = np.corrcoef(X[:, j], Y[:, label])[0, 1]
            assert abs(distance[j, label] - (1 - r)) <= 1e-14
    np.testing.assert_array_equal(distance[3], [0.0, 0.0])


def test_pagerank_reaches_the_stationary_vector_and_reports_running_out():
    rng = np.random.default_rng(1)
    weights = rng.random((6, 6))
    weights = weights + weights.T
    np.fill_diagonal(weights, 0.0)
    weights[5, :] = weights[:, 5] = 0.0                     # an isolated node: a sink
    ranks, _, converged = pagerank(weights, 0.85, 1e-15, 1000)
    degrees = weights.sum(axis=0)
    degrees[5] = 1.0
    transition = weights / degrees                          # column j: where node j's rank goes
    transition[:, 5] = 1.0 / 6                              # a sink's rank is spread evenly
    stationary = np.linalg.solve(np.eye(6) - 0.85 * transition, np.full(6, 0.15 / 6))
    assert converged and abs(ranks.sum() - 1) <= 1e-12
    np.testing.assert_allclose(ranks, stationary, rtol=1e-12)
    _, iterations, converged = pagerank(weights, 0.85, 1e-15, 2)
    assert (iterations, converged) == (2, False)
