"""Benchmark ``python -m pipeline.tables`` on a full paper-sized synthetic result set.

15 datasets x 5 folds x 8 methods (600 k-grid metrics files, as docs/results-schema.md), generated
by tests/report/results_factory.py. The peer is the I/O floor: parsing the same 600 JSON files and
nothing else. Printed: absolute wall times and their ratio to that floor.

    python3 bench/bench_tables.py
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "report"))

from results_factory import write_result_set  # noqa: E402

METHODS = ["DAGFS", "LRMFS", "MIFS", "SCLS", "RFNMIFS", "MDMR", "PMU", "MLACO"]
DATASETS = ["Arts", "Business", "Education", "Entertain", "Health", "Recreation", "Reference", "Science",
            "Social", "bibtex", "corel5k", "emotions", "genbase", "medical", "yeast"]
DIMS = [462, 438, 550, 640, 612, 606, 793, 743, 1047, 1836, 499, 72, 1186, 1449, 103]


def timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_cli(*args) -> tuple[float, float]:
    """Wall and CPU seconds of one ``python -m pipeline.tables`` run (CPU is load-independent)."""
    cpu = child_cpu()
    wall = timed(lambda: run_cli(*args))
    return wall, child_cpu() - cpu


def parse_only(results: Path) -> None:
    for path in sorted(results.glob("*/*_kgrid_metrics.json")):
        json.loads(path.read_text())


def run_cli(results: Path, out: Path, *extra: str) -> None:
    cmd = [sys.executable, "-m", "pipeline.tables", "--results-dir", str(results), "--methods", *METHODS,
           "--ref-method", "DAGFS", "--out-dir", str(out), *extra]
    subprocess.run(cmd, check=True, capture_output=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = write_result_set(Path(tmp) / "results", METHODS, DATASETS, folds=5, n_features=DIMS)
        floor = min(timed(lambda: parse_only(results)) for _ in range(3))
        cpu = child_cpu()
        startup = timed(lambda: subprocess.run([sys.executable, "-c", "import pipeline.tables"], check=True))
        startup_cpu = child_cpu() - cpu
        tables = timed_cli(results, Path(tmp) / "t", "--no-figures")
        full = timed_cli(results, Path(tmp) / "f")
        parallel = timed_cli(results, Path(tmp) / "p", "--jobs", "2")
    print(f"result set: {len(DATASETS)} datasets x 5 folds x {len(METHODS)} methods (600 files); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"peer  parse 600 JSON files only        : {floor:7.2f} s wall")
    print(f"      interpreter + imports            : {startup:7.2f} s wall {startup_cpu:7.2f} s CPU")
    for name, (wall, cpu_s) in (("pipeline.tables --no-figures", tables), ("pipeline.tables (all outputs)", full),
                                ("pipeline.tables --jobs 2", parallel)):
        print(f"      {name:<33}: {wall:7.2f} s wall {cpu_s:7.2f} s CPU  ({wall / floor:6.1f} x peer)")


if __name__ == "__main__":
    main()
