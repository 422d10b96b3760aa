"""Tuning benchmark: what selecting parameters on inner splits costs (docs/tuning.md).

A tuned small suite — 4 datasets × 2 outer folds × 3 methods (GRRO, LRMFS, SRFS on the Python
engine) × 6 candidates each, one inner stratified hold-out, both grids — runs from nothing with the
``serial``, ``process --jobs 2`` and ``dask --jobs 2`` executors, and the same suite without
tuning runs serially in the same round (its peer: the ratio says what tuning multiplies). Each
round runs all four one after the other on the same fold files, so the load falls on all alike;
``--repeats`` rounds (default 2).

From the serial runs' records: the compute seconds (ranking + ML-kNN) of one candidate task and
of one untuned task, per method, and their ratio. From these ratios and the per-method costs that
``bench/bench_methods_paper.py`` recorded for the full paper (one fold of all 17 datasets), a
projection of the full tuned paper (paper/suite_tuned.yaml: 17 datasets × 5 folds × 8 methods with
their declared candidate counts) in CPU hours, and in wall hours on this machine's measured
parallel efficiency with 2, 4 and 8 Dask workers (every added worker as fast as one of these cores).

    python bench/bench_tuning.py [--repeats 2] [--datasets emotions yeast scene medical]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline.cli import run_main
from pipeline.experiment.model import load_suite
from record import RECORD_PATH, BenchRun, Measurement, read_record

REPO = Path(__file__).resolve().parents[1]
EXECUTORS = {"serial": "executor: serial", "process --jobs 2": "executor: process, jobs: 2",
             "dask --jobs 2": "executor: dask, jobs: 2"}
METHODS = {"GRRO": "{alpha: [1.0, 10.0, 100.0], beta: [0.01, 0.1]}",
           "LRMFS": "{alpha: [0.01, 1.0, 100.0], lambda: [0.01, 1.0]}",
           "SRFS": "{alpha: [0.01, 0.1, 1.0], beta: [0.01, 0.1]}"}
CANDIDATES = 6
SUITE = """
name: {name}
datasets: [{datasets}]
folds: {{dir: folds, mode: holdout, count: 2, seed: 42, test_size: reference}}
{tuning}
methods:
{methods}
engine: python
grids:
  kgrid: {{k_min: 10, k_max: 300, k_step: 10}}
  pgrid: {{p_min: 0.05, p_max: 0.5, p_step: 0.05, p_target: 0.2}}
run: {{results_dir: {home}/results, {run}}}
tables: {{out_dir: {home}/tables, ref_method: GRRO, figures: false}}
"""
TUNING = """tuning:
  inner: {mode: holdout, count: 1, test_size: 0.25, seed: 0}
  criterion: {metric: micro_f1, grid: pgrid}"""


def write_suite(root: Path, home: str, datasets: list[str], run: str, tuned: bool) -> Path:
    """``root/home/suite.yaml``: its results and tables under ``root/home``, the folds shared in ``root/folds``."""
    methods = "\n".join(f"  {name}: {{tune: {grid}}}" if tuned else f"  {name}: {{}}" for name, grid in METHODS.items())
    path = root / home / "suite.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SUITE.format(name="bench", datasets=", ".join(datasets), home=home, run=run,
                                 tuning=TUNING if tuned else "", methods=methods))
    return path


def run_paper(suite: Path, root: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline.paper", "run", str(suite), "--root", str(root), "--no-progress"],
                   check=True, cwd=REPO, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def compute_seconds(results: Path) -> dict[str, tuple[list[float], list[float]]]:
    """Method -> (compute seconds of each candidate task, of each final or untuned task): ranking + ML-kNN."""
    costs: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in METHODS}
    for name in METHODS:
        for path in (results / name).glob("*_candidates/*.json"):
            splits = json.loads(path.read_text())["splits"]
            costs[name][0].append(sum(s["time_rank_seconds"] + s["time_eval_seconds"] for s in splits))
        for path in (results / name).glob("*_kgrid_metrics.json"):
            record = json.loads(path.read_text())
            costs[name][1].append(record["time_rank_seconds"] + record["time_eval_seconds"])
    return costs


def paper_projection(ratio: float, efficiency: float) -> dict[str, float]:
    """CPU hours of the full tuned paper, and wall hours with 2, 4 and 8 workers."""
    methods_paper = read_record(RECORD_PATH)["scripts"]["bench_methods_paper"]["figures"]
    rank = {f["name"].split()[0]: f["value"] for f in methods_paper if " ranking in NumPy" in f["name"]}
    evaluation = next(f["value"] for f in methods_paper if f["name"].startswith("union-grid ML-kNN")) / len(rank)
    suite = load_suite(REPO / "paper" / "suite_tuned.yaml")
    candidates = {entry.name: len(entry.candidates()) for entry in suite.methods}
    folds = suite.folds.n_folds
    cpu = sum((rank[m] + evaluation) * (1 + candidates[m] * ratio) for m in candidates) * folds / 3600
    return {"cpu": cpu, **{f"wall{w}": cpu / (w * efficiency) for w in (2, 4, 8)}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=2, help="rounds of the four runs (default 2)")
    parser.add_argument("--datasets", nargs="+", default=["emotions", "yeast", "scene", "medical"])
    args = parser.parse_args(argv)
    with BenchRun(__file__) as run, tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        walls: dict[str, list[float]] = {name: [] for name in [*EXECUTORS, "untuned"]}
        per_round: list[dict] = []
        for round_ in range(args.repeats):
            for name, executor in EXECUTORS.items():
                home = f"{name.split()[0]}{round_}"
                walls[name].append(run_paper(write_suite(tmp, home, args.datasets, executor, True), tmp))
                print(f"round {round_ + 1}: tuned, {name} {walls[name][-1]:.1f} s", flush=True)
            home = f"untuned{round_}"
            walls["untuned"].append(run_paper(write_suite(tmp, home, args.datasets, EXECUTORS["serial"], False),
                                              tmp))
            print(f"round {round_ + 1}: untuned, serial {walls['untuned'][-1]:.1f} s", flush=True)
            tuned = compute_seconds(tmp / f"serial{round_}" / "results")
            plain = compute_seconds(tmp / home / "results")
            per_round.append({m: (statistics.mean(tuned[m][0]), statistics.mean(plain[m][1])) for m in METHODS})
        n_tasks = len(args.datasets) * 2 * len(METHODS)
        workload = (f"{', '.join(args.datasets)} × 2 folds × {', '.join(METHODS)} × {CANDIDATES} candidates, "
                    f"1 inner hold-out ({n_tasks * CANDIDATES} candidate + {n_tasks} final tasks, Python engine, "
                    "both grids, tables)")
        untuned = Measurement(tuple(walls["untuned"]))
        serial = Measurement(tuple(walls["serial"]))
        run.figure(f"tuned suite, serial executor: {workload}", serial, "s",
                   peers={f"same suite untuned, serial ({n_tasks} tasks)": untuned})
        for name in ("process --jobs 2", "dask --jobs 2"):
            run.figure(f"tuned suite, {name} executor", walls[name], "s", peers={"serial executor": serial})
        ratios = []
        for method in METHODS:
            candidate = [r[method][0] for r in per_round]
            task = Measurement(tuple(r[method][1] for r in per_round))
            run.figure(f"{method}: compute seconds of one candidate task (rank on 75 % of the outer training part, "
                       "score on the other 25 %)", candidate, "s", peers={"one untuned task (rank and score)": task})
            ratios.append([c / t for c, t in zip(candidate, task.samples)])
        efficiency = [s / (2 * d) for s, d in zip(walls["serial"], walls["dask --jobs 2"])]
        projections = [paper_projection(statistics.mean(r[i] for r in ratios), efficiency[i])
                       for i in range(args.repeats)]
        run.figure("projection, full tuned paper (paper/suite_tuned.yaml, 17 datasets × 5 folds × 8 methods, "
                   "87 candidates per dataset and fold), CPU time with --engine python",
                   [p["cpu"] for p in projections], "CPU h")
        for workers in (2, 4, 8):
            run.figure(f"projection, same, wall time with {workers} Dask workers at this machine's measured "
                       "parallel efficiency", [p[f"wall{workers}"] for p in projections], "h")


if __name__ == "__main__":
    sys.exit(run_main(main))
