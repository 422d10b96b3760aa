"""Fixtures of the baseline tests: BLAS limited to one thread on the Python side (the test machine
has two cores shared with other jobs, where threaded BLAS spins badly; Octave always starts with
one BLAS thread). The Octave engine is the shared ``octave_engine`` of tests/conftest.py."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(scope="session", autouse=True)
def single_thread_blas():
    with threadpool_limits(limits=1):
        yield
