"""`extended` benchmark: datasets of `configs/extended.yaml`; summary = arithmetic means (spec §4.5)."""

from __future__ import annotations

from . import Benchmark


class ExtendedBenchmark(Benchmark):
    name = "extended"
    default_config = "extended.yaml"


ADAPTER = ExtendedBenchmark
