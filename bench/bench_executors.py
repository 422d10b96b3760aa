"""Executors benchmark (issue 7): the k-grid suite on the 15 real datasets (one fold each) with
DAGFS (Python) and two Octave-run methods, under ``serial``, ``process --jobs 2`` and
``dask --jobs 2``; prints wall times, speed-ups against serial, and the Dask scheduler overhead per
task measured on no-op tasks in the same run.

    python bench/bench_executors.py [--folds-dir DIR] [--methods DAGFS VARIANCE LABELCORR]

Without --folds-dir it exports one fold of each real dataset from ../shared/data/mlc first.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def export_folds(target: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pipeline.export_splits", "--output-dir", str(target),
                    "--folds", "1", "--no-progress"], check=True, cwd=REPO)
    return target


def timed_run(folds: Path, results: Path, methods: list[str], executor: list[str]) -> float:
    command = [sys.executable, "-m", "pipeline.kgrid", "--engine", "octave", "--no-progress",
               "--data-dir", str(folds), "--results-dir", str(results), "--methods", *methods, *executor]
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _noop(i: int) -> int:
    return i


def dask_overhead_per_task(n_tasks: int = 400) -> float:
    """Seconds per no-op task through a 2-worker LocalCluster (submission to result)."""
    from dask.distributed import Client, LocalCluster, wait

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as client:
        client.submit(_noop, -1, pure=False).result()  # warm up the workers
        start = time.perf_counter()
        futures = [client.submit(_noop, i, pure=False) for i in range(n_tasks)]
        wait(futures)
        return (time.perf_counter() - start) / n_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folds-dir", type=Path, default=None)
    parser.add_argument("--methods", nargs="+", default=["DAGFS", "VARIANCE", "LABELCORR"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folds = args.folds_dir or export_folds(Path(tmp) / "folds")
        n_tasks = len([p for p in folds.iterdir() if (p / "fold0.mat").is_file()]) * len(args.methods)
        runs = {"serial": [], "process --jobs 2": ["--executor", "process", "--jobs", "2"],
                "dask --jobs 2": ["--executor", "dask", "--jobs", "2"]}
        times = {name: timed_run(folds, Path(tmp) / name.split()[0], args.methods, extra)
                 for name, extra in runs.items()}
    overhead = dask_overhead_per_task()
    print(f"k-grid suite: {n_tasks} tasks ({', '.join(args.methods)}; Octave engine, native evaluator)")
    print(f"{'executor':<18}{'wall s':>9}{'speed-up':>10}")
    for name, seconds in times.items():
        print(f"{name:<18}{seconds:9.1f}{times['serial'] / seconds:9.2f}x")
    print(f"Dask scheduler overhead per no-op task: {overhead * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
