"""Fixtures of the method tests."""

from __future__ import annotations

import pytest

from pipeline import methods
from pipeline.methods import plugins


@pytest.fixture
def registry(monkeypatch):
    """The method registry as it was before the test: plug-ins a test loads do not leak."""
    monkeypatch.setattr(methods, "_REGISTRY", dict(methods._REGISTRY))
    monkeypatch.setattr(methods, "_ORIGINS", dict(methods._ORIGINS))
    monkeypatch.setattr(plugins, "_LOADED", {})
    yield
