"""Fixtures of the baseline tests: BLAS limited to one thread on the Python side (the test machine
has two cores shared with other jobs, where threaded BLAS spins badly; Octave always starts with
one BLAS thread), and the real training folds, loaded once per session. The Octave engine is the
shared ``octave_engine`` of tests/conftest.py."""

from __future__ import annotations

import functools

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(scope="session", autouse=True)
def single_thread_blas():
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session")
def real_training_fold(mlc_dir):
    """``real_training_fold(dataset)``: baselines_data.training_fold at REAL_SIZES[dataset], made once
    per session and shared by the test modules that use it (loading a set takes 1-2 s of CPU)."""
    from baselines_data import REAL_SIZES, training_fold

    return functools.cache(lambda dataset: training_fold(mlc_dir, dataset, *REAL_SIZES[dataset]))
