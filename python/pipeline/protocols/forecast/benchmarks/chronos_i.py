"""Chronos Benchmark I (in-domain, 15 datasets): geometric mean of relative scores vs seasonal naive."""

from __future__ import annotations

import pandas as pd

from . import Benchmark, mean_and_relative


class ChronosIBenchmark(Benchmark):
    name = "chronos_i"
    result_name = "chronos_bench_in_domain"
    default_config = "chronos_i.yaml"

    def summarize(self, table: pd.DataFrame) -> dict:
        return {**mean_and_relative(table), "aggregation": "gmean_relative"}


ADAPTER = ChronosIBenchmark
