"""`extended` benchmark: lite + 10 datasets of `configs/extended.yaml`; summary = arithmetic means."""

from __future__ import annotations

from . import Benchmark


class ExtendedBenchmark(Benchmark):
    name = "extended"
    # the original framework wrote extended results under the lite name, overwriting them
    result_name = "chronos_extended"
    default_config = "extended.yaml"


ADAPTER = ExtendedBenchmark
