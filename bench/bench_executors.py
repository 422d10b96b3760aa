"""Executors benchmark: the k-grid suite on every registered real dataset (one fold each) with DAGFS (Python)
and two Octave-run methods, under ``serial``, ``process --jobs 2`` and ``dask --jobs 2``.

Each round runs the three executors one after the other into fresh results folders, so the load
of the machine falls on all three alike; ``--repeats`` rounds (default 3). Records the wall times
(serial is the peer of the two parallel executors) and the Dask scheduler overhead per task,
measured on no-op tasks in the same run, in bench/results.json.

    python bench/bench_executors.py [--repeats 3] [--folds-dir DIR] [--methods DAGFS VARIANCE LABELCORR]

Without --folds-dir it exports one fold of each real dataset from ../shared/data/mlc first.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline.cli import run_main
from record import BenchRun, Measurement, measure

REPO = Path(__file__).resolve().parents[1]
EXECUTORS = {"serial": [], "process --jobs 2": ["--executor", "process", "--jobs", "2"],
             "dask --jobs 2": ["--executor", "dask", "--jobs", "2"]}


def export_folds(target: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pipeline.export_splits", "--output-dir", str(target),
                    "--folds", "1", "--no-progress"], check=True, cwd=REPO)
    return target


def run_suite(folds: Path, results: Path, methods: list[str], executor: list[str]) -> None:
    command = [sys.executable, "-m", "pipeline.kgrid", "--engine", "octave", "--no-progress",
               "--data-dir", str(folds), "--results-dir", str(results), "--methods", *methods, *executor]
    subprocess.run(command, check=True, cwd=REPO, stderr=subprocess.DEVNULL)


def _noop(i: int) -> int:
    return i


def dask_overhead_per_task(repeats: int, n_tasks: int = 400) -> Measurement:
    """Seconds per no-op task through a 2-worker LocalCluster (submission to result), per batch."""
    from dask.distributed import Client, LocalCluster, wait

    def batch():
        wait([client.submit(_noop, i, pure=False) for i in range(n_tasks)])

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=40) as cluster, Client(cluster) as client:
        client.submit(_noop, -1, pure=False).result()  # warm up the workers
        seconds, _ = measure(batch, repeats=repeats)
    return seconds.scaled(1.0 / n_tasks)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the three executors (default 3)")
    parser.add_argument("--folds-dir", type=Path, default=None)
    parser.add_argument("--methods", nargs="+", default=["DAGFS", "VARIANCE", "LABELCORR"])
    args = parser.parse_args(argv)
    with BenchRun(__file__) as run, tempfile.TemporaryDirectory() as tmp:
        folds = args.folds_dir or export_folds(Path(tmp) / "folds")
        n_datasets = len([p for p in folds.iterdir() if (p / "fold0.mat").is_file()])
        samples: dict[str, list[float]] = {name: [] for name in EXECUTORS}
        for round_ in range(args.repeats):
            for name, extra in EXECUTORS.items():
                start = time.perf_counter()
                run_suite(folds, Path(tmp) / f"{name.split()[0]}{round_}", args.methods, extra)
                samples[name].append(time.perf_counter() - start)
                print(f"round {round_ + 1}: {name} {samples[name][-1]:.1f} s", flush=True)
        workload = (f"{n_datasets} datasets × 1 fold × {', '.join(args.methods)} "
                    f"({n_datasets * len(args.methods)} tasks, Octave engine)")
        serial = Measurement(tuple(samples["serial"]))
        run.figure(f"k-grid suite, process executor --jobs 2: {workload}", samples["process --jobs 2"], "s",
                   peers={"serial executor": serial})
        run.figure("same suite, dask executor --jobs 2", samples["dask --jobs 2"], "s",
                   peers={"serial executor": serial})
        run.figure("Dask scheduler overhead per no-op task (2-worker LocalCluster, 400 tasks a run)",
                   dask_overhead_per_task(args.repeats).scaled(1e3), "ms")


if __name__ == "__main__":
    sys.exit(run_main(main))
