"""Fixtures for the HAR protocol tests: one torch thread (2 shared cores) and the real BasicMotions."""

from __future__ import annotations

import pytest
import torch

from pipeline.protocols.har.data import load_basic_motions
from pipeline.protocols.har.providers import SentenceLabelEncoder

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def basic_motions():
    """BasicMotions from the aeon wheel as (80, 120, 6) windows."""
    return load_basic_motions()


@pytest.fixture(scope="session")
def minilm():
    """The all-MiniLM-L6-v2 label encoder, loaded once (offline, from the installed wheel)."""
    return SentenceLabelEncoder()
