"""Fixtures of the Baselines I tests (LRMFS, GRRO, SRFS, SCNMF).

One real GNU Octave process for the whole session, and BLAS limited to one thread on both sides
(the test machine has two cores shared with other jobs, where threaded BLAS spins badly). Data
helpers are in ``baselines1_data.py``.
"""

from __future__ import annotations

import os

import pytest
from threadpoolctl import threadpool_limits

from pipeline.engines.octave import OctaveEngine


@pytest.fixture(scope="session", autouse=True)
def single_thread_blas():
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session")
def octave_engine():
    """A started OctaveEngine (matlab/ on the path), single-threaded BLAS, shared by the session."""
    saved = {key: os.environ.get(key) for key in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    os.environ.update({key: "1" for key in saved})
    engine = OctaveEngine(timeout=600)
    try:
        engine.session.start()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    yield engine
    engine.close()
