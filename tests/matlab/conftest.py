"""Fixtures of the Octave-side tests (the session itself is the shared ``octave`` of tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def oc(octave):
    """The raw oct2py object of the shared session (for direct calls to Octave functions)."""
    return octave.start()
