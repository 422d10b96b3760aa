"""`lite` benchmark: 5 datasets of `configs/lite.yaml`; summary = arithmetic means plus relative scores."""

from __future__ import annotations

from . import Benchmark


class LiteBenchmark(Benchmark):
    name = "lite"
    result_name = "chronos_lite"
    default_config = "lite.yaml"


ADAPTER = LiteBenchmark
