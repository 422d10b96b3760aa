"""Fixtures of the Baselines I tests (LRMFS, GRRO, SRFS, SCNMF).

One real GNU Octave process for the whole session, and BLAS limited to one thread on both sides
(the test machine has two cores shared with other jobs, where threaded BLAS spins badly). Data
helpers are in ``baselines1_data.py``.
"""

from __future__ import annotations


import pytest
from threadpoolctl import threadpool_limits

from pipeline.engines.octave import OctaveEngine


@pytest.fixture(scope="session", autouse=True)
def single_thread_blas():
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session")
def octave_engine():
    """A started OctaveEngine (matlab/ on the path; Octave always starts with one BLAS thread)."""
    engine = OctaveEngine(timeout=600)
    engine.session.start()
    yield engine
    engine.close()
