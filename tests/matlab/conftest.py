"""Fixtures of the Octave-side tests: one real GNU Octave process for the whole session."""

from __future__ import annotations

import pytest

from matlab_test_paths import FIXTURES
from pipeline.engines.octave import OctaveSession


@pytest.fixture(scope="session")
def octave():
    """A started Octave session with matlab/ and tests/matlab/fixtures on its path."""
    session = OctaveSession(timeout=600, extra_paths=[FIXTURES])
    session.start()
    yield session
    session.close()


@pytest.fixture(scope="session")
def oc(octave):
    """The raw oct2py object of that session (for direct calls to Octave functions)."""
    return octave.start()
