"""Cross-engine parity of LSMFS, LRDG and RFSFS on real folds (real GNU Octave, no mocks).

Real training folds of emotions, yeast, scene, medical and two Yahoo sets (Arts, Science), made by
the data layer and subsampled to fit the test budget, from the same harness-drawn start:

- LSMFS and RFSFS (deterministic, well conditioned): identical top 50, Spearman ρ >= 0.999 over
  the whole ranking, weights and objective traces close (tolerances below), at the defaults on
  every fold. At α = 0.1, β = 1 (the sibling LRMFS driver's values, where LSMFS's V grows) emotions
  and Arts are compared too; on medical that run diverges (its W-step system becomes singular as
  rows of W grow on the rank-deficient sparse data) and both engines must stop with the divergence
  error at the same iteration.
- LRDG (chaotic): the iterates after one and two iterations are compared; the 50-iteration rankings
  are only reported (overlap of the top 20 %, printed and attached to the test report) because a
  rounding-level difference grows to O(1) within ~10 iterations.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.stats import spearmanr

from baselines2_data import REAL_SIZES, both_engines, start, top_overlap, training_fold
from pipeline.errors import EngineError
from pipeline.methods import get_method

pytestmark = pytest.mark.octave
#: Relative Frobenius tolerance on the final weights. Measured at the defaults: RFSFS <= 1e-14,
#: LSMFS <= 1.0e-12 (yeast); 7e-10 was seen on yeast at α = 0.1, β = 1, where the iterates grow.
WEIGHT_RTOL = {"LSMFS": 1e-8, "RFSFS": 1e-10}
#: LRDG iterates after 1 and 2 iterations (relative Frobenius). One iteration agrees to ~1e-11; the
#: S-step divides by centred, cancelling denominators, so the second iteration lands at 2e-13–2e-8
#: (Arts 1.8e-8 with OpenBLAS on both sides, 4e-10 with Octave on the reference BLAS).
LRDG_RTOL = {1: 1e-10, 2: 1e-7}


@pytest.fixture(scope="module")
def folds(mlc_dir):
    return {name: training_fold(mlc_dir, name, *size) for name, size in REAL_SIZES.items()}


def relative(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def assert_parity(method, octave, python):
    (octave_ranking, octave_info), (python_ranking, python_info) = octave, python
    np.testing.assert_array_equal(octave_ranking[:50], python_ranking[:50])
    positions = [np.argsort(ranking) for ranking in (octave_ranking, python_ranking)]
    assert spearmanr(*positions)[0] >= 0.999
    assert relative(octave_info["W"], python_info["W"]) <= WEIGHT_RTOL[method]
    octave_trace = np.atleast_1d(np.asarray(octave_info["objective"], dtype=np.float64))
    assert octave_trace.shape == (len(python_info["objective"]),)
    np.testing.assert_allclose(octave_trace, python_info["objective"], rtol=1e-8)


#: Every real fold with the defaults.
DEFAULT_CASES = [(method, dataset) for method in ("LSMFS", "RFSFS") for dataset in REAL_SIZES]
#: The sibling LRMFS driver's values (alpha <~ 1 + beta): the code's V-step grows every iteration.
GROWING_LSMFS = {"alpha": 0.1, "beta": 1.0}


@pytest.mark.parametrize("method,dataset", DEFAULT_CASES)
def test_lsmfs_and_rfsfs_agree_between_engines(octave_engine, folds, dataset, method, record_property):
    X, Y = folds[dataset]
    octave, python = both_engines(octave_engine, method, X, Y)
    record_property("weights_relative_difference", relative(octave[1]["W"], python[1]["W"]))
    assert_parity(method, octave, python)


@pytest.mark.parametrize("dataset", ["emotions", "Arts"])  # medical diverges: see the test below
def test_lsmfs_agrees_in_the_growing_setting(octave_engine, folds, dataset):
    X, Y = folds[dataset]
    assert_parity("LSMFS", *both_engines(octave_engine, "LSMFS", X, Y, {**GROWING_LSMFS, "seed": 2}))


def test_rfsfs_agrees_with_other_parameters(octave_engine, folds):
    X, Y = folds["Science"]
    assert_parity("RFSFS", *both_engines(octave_engine, "RFSFS", X, Y, {"alpha": 1.0, "beta": 0.01, "gamma": 1.0,
                                                                          "seed": 5}))


def test_lsmfs_diverges_identically_on_medical(octave_engine, folds):
    X, Y = folds["medical"]
    method_spec = get_method("LSMFS")
    params, init = start("LSMFS", X, Y, GROWING_LSMFS)
    with pytest.raises(EngineError) as octave_failure:
        octave_engine.rank(method_spec, X, Y, params, init, context="LSMFS/medical/fold0")
    with pytest.raises(EngineError) as python_failure:
        method_spec.run(X, Y, params, init)
    pattern = r"LSMFS diverged at iteration (\d+): the W-step system"
    octave_iteration = re.search(pattern, str(octave_failure.value)).group(1)
    assert str(octave_failure.value).startswith("LSMFS/medical/fold0: ")
    assert "[mlfs:LSMFS:diverged]" in str(octave_failure.value)
    assert re.search(pattern, str(python_failure.value)).group(1) == octave_iteration


@pytest.mark.parametrize("dataset", list(REAL_SIZES))
def test_lrdg_iterates_agree_over_two_iterations(octave_engine, folds, dataset, record_property):
    X, Y = folds[dataset]
    for iterations, rtol in LRDG_RTOL.items():
        (_, octave_info), (_, python_info) = both_engines(octave_engine, "LRDG", X, Y, {"max_iter": iterations})
        for key in ("S", "V"):
            assert relative(octave_info[key], python_info[key]) <= rtol, (iterations, key)
        np.testing.assert_allclose(np.atleast_1d(octave_info["objective"]), python_info["objective"], rtol=rtol)
    (octave_ranking, _), (python_ranking, _) = both_engines(octave_engine, "LRDG", X, Y)
    overlap = top_overlap(octave_ranking, python_ranking, 0.2)
    record_property(f"LRDG_{dataset}_top20pct_overlap", overlap)
    print(f"LRDG {dataset}: 50-iteration top-20% overlap between Octave and NumPy = {overlap:.2f}")
