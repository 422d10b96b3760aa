"""Chronos Benchmark II (zero-shot, 27 datasets): geometric mean of relative scores vs seasonal naive."""

from __future__ import annotations

from .chronos_i import ChronosIBenchmark


class ChronosIIBenchmark(ChronosIBenchmark):
    name = "chronos_ii"
    result_name = "chronos_bench_zero_shot"
    default_config = "chronos_ii.yaml"


ADAPTER = ChronosIIBenchmark
