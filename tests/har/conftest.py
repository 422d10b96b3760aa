"""Fixtures for the HAR protocol tests: one torch thread (2 shared cores) and the real BasicMotions."""

from __future__ import annotations

import pytest
import torch

from pipeline.protocols.har.data import load_basic_motions
from pipeline.protocols.har.providers import SentenceLabelEncoder


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Train on one thread inside this folder only; restore the setting for other test folders."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def basic_motions():
    """BasicMotions from the aeon wheel as (80, 120, 6) windows."""
    return load_basic_motions()


@pytest.fixture(scope="session")
def minilm():
    """The all-MiniLM-L6-v2 label encoder, loaded once (offline, from the installed wheel)."""
    return SentenceLabelEncoder()
