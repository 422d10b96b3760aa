"""Fixtures of the forecasting tests: the staged real data converted once to the Arrow layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.protocols.forecast.convert import convert_staged


@pytest.fixture(scope="session")
def arrow_root(forecast_dir: Path, tmp_path_factory) -> Path:
    """``<root>/{m4_hourly,exchange_rate,nn5}/data-00000-of-00001.arrow`` from the staged files."""
    root = tmp_path_factory.mktemp("forecast_arrow")
    convert_staged(forecast_dir, root)
    return root
