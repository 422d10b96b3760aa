"""Fixtures of the engine tests: one real GNU Octave process for the whole session."""

from __future__ import annotations

import pytest

from engine_test_data import FIXTURES
from pipeline.engines.octave import OctaveSession


@pytest.fixture(scope="session")
def octave_session():
    """A started Octave session with matlab/ and the test methods (tests/matlab/fixtures)."""
    session = OctaveSession(timeout=600, extra_paths=[FIXTURES])
    session.start()
    yield session
    session.close()
