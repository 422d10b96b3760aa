"""`lite` benchmark: datasets of `configs/lite.yaml`; summary = arithmetic means (spec §4.5)."""

from __future__ import annotations

from . import Benchmark


class LiteBenchmark(Benchmark):
    name = "lite"
    default_config = "lite.yaml"


ADAPTER = LiteBenchmark
