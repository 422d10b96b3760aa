"""Benchmark: each method's cost as the data grows, and the evaluator on the largest real folds.

Part 1, growth. Every shipped method ranks synthetic multi-label folds (the demo generator,
``pipeline.data.synthetic.make_demo_dataset``: Binomial counts scaled to [0, 1], L = 20 labels) of
growing n at a fixed d and of growing d at a fixed n. Each point is one task of the runner, run by
the runner's own worker pool (:class:`pipeline.runner.pool.WorkerPool`, one worker, one BLAS
thread) under a per-point :class:`~pipeline.runner.lifecycle.TaskBudget` (wall time; memory as the
worker's ``RLIMIT_AS``), in a process of its own. Methods run on the Python engine (the NumPy
ports), so that Octave's start-up does not dominate the small points. Recorded per point: the
ranking's wall seconds (the method call, as the results' ``_time.txt``), the worker's CPU seconds
and peak resident memory (the whole task: fold loading, the ranking and a one-point ML-kNN
evaluation on a 100-row test part). A point over the budget ends the method's series along that
axis: it is recorded as out of budget, not as an error. The growth exponent of each axis is the
least-squares slope on log-log of the finished points (at least 3) of the CPU seconds and peak
memory above those of RANDOM at the same size (the task's fixed cost; RANDOM is always measured),
and from the two fits the
largest shipped dataset each method is predicted to rank within the default task budget
(``definitions.json`` ``task_budgets``: 3600 s, and the machine's memory) — a prediction, which
the large suite's real outcomes can replace (``bench/growth_model.py``).

Part 2, the evaluator. One hold-out fold of tmc2007-500 and of delicious, exported as the registry
does (``python -m pipeline.export_splits --folds 1``; cached under ``--fold-cache``, outside the
repository, because delicious's iterative stratification takes minutes): the project's ML-kNN over
the full top-k grid (identity ranking) against scikit-multilearn's ``MLkNN(k=10, s=1)`` fitted and
asked to predict once on the grid's largest feature set, in the same run; and the peak traced memory
(``tracemalloc``) of both, beside the bound docs/evaluation.md documents for our evaluator.

Usage::

    python bench/bench_growth.py [--quick] [--methods M ...] [--point-seconds S] [--point-memory SIZE]
                                 [--skip-evaluator] [--fold-cache DIR] [--repeats 3]
                                 [--evaluator-datasets tmc2007-500 delicious]

The growth is recorded as ``bench_growth`` (saved after each method, so a run stopped midway keeps
the methods it finished); ``--quick`` measures a subset (n 1,000..4,000 at d 250; d 250..1,000 at
n 1,000) and records it as ``bench_growth_quick``, beside the full run's; the figures' names say
which. The evaluator's figures are the entry ``bench_growth_evaluator``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from growth_model import AXES, FLOOR_METHOD, describe_end, exponent, run_series, with_net_costs
from record import BenchRun, measure, shared_data, traced_peak_mib

from pipeline.cli import run_main
from pipeline.definitions import TASK_BUDGET_DEFAULTS
from pipeline.errors import ConfigError, PipelineError
from pipeline.limits import parse_memory_size

N_LABELS = 20
N_TEST = 100  # rows of each synthetic fold's test part: its one-point evaluation stays small beside the ranking
SUBSETS = {
    "full": {"n": (1000, 2000, 4000, 8000, 16000), "d": (250, 500, 1000, 2000, 4000), "fixed_n": 2000,
             "fixed_d": 500, "point_seconds": 900.0},
    "quick": {"n": (1000, 2000, 4000), "d": (250, 500, 1000), "fixed_n": 1000, "fixed_d": 250,
              "point_seconds": 60.0},
}
DEFAULT_POINT_MEMORY = "6GiB"  # the machine is shared: no point may take the others' memory
EVALUATOR_DATASETS = ("tmc2007-500", "delicious")
DEFAULT_FOLD_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mlfs-bench" / "folds"


# --- part 1: growth ----------------------------------------------------------------------------

def synthetic_fold(data_dir: Path, n: int, d: int) -> str:
    """Write (once) the fold of ``n`` training and :data:`N_TEST` test rows, ``d`` features; its dataset name.

    The fold is made in a process of its own: every point's worker is forked from this process and
    its resident memory counts this one's, which must therefore not grow with the folds made."""
    from pipeline.data.folds import fold_path

    name = f"growth_n{n}_d{d}"
    path = fold_path(data_dir, name, 0)
    if not path.exists():
        maker = multiprocessing.get_context("fork").Process(target=_write_synthetic_fold, args=(path, n, d))
        maker.start()
        maker.join()
        if maker.exitcode != 0:
            raise PipelineError(f"the synthetic fold was not written (exit code {maker.exitcode})", file=path)
    return name


def _write_synthetic_fold(path: Path, n: int, d: int) -> None:
    from pipeline.data.folds import save_fold
    from pipeline.data.synthetic import make_demo_dataset

    dataset, _ = make_demo_dataset(0, n_samples=n + N_TEST, n_features=d, n_labels=N_LABELS)
    X = dataset.X / 10.0  # Binomial(10, p) counts: min-max scaled by their known range
    path.parent.mkdir(parents=True, exist_ok=True)
    save_fold(path, X[:n], dataset.Y[:n], X[n:], dataset.Y[n:])


def _point_in_process(method: str, data_dir: str, dataset: str, seconds: float, memory: int, sender) -> None:
    """One task in the runner's worker pool (one worker, one BLAS thread); sends what it used.

    This process (forked for the point) only drives the pool, so its children's resource usage is
    the worker's alone."""
    from pipeline.runner.lifecycle import RunStop, TaskBudget
    from pipeline.runner.pool import WorkerPool
    from pipeline.runner.run import RunSettings
    from pipeline.runner.store import ResultStore
    from pipeline.runner.tasks import GridSpec, Task

    with tempfile.TemporaryDirectory(prefix="mlfs-growth-") as results:
        settings = RunSettings(data_dir=data_dir, results_dir=results, overwrite=True,
                               grids=(GridSpec("kgrid", k_min=10, k_max=10, k_step=10),),
                               budget=TaskBudget(seconds=seconds, memory=memory))
        task = Task(method, dataset, 0)
        with RunStop() as stop, WorkerPool(settings, jobs=1, shares_cores=True) as pool:
            outcome = next(iter(pool.run([task], stop)))
        store = ResultStore(results)
        wall = store.read_time(store.files(task.folder, dataset, 0)) if outcome.status == "done" else None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    sender.send({"status": outcome.status, "wall_s": wall, "task_s": outcome.seconds,
                 "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mib": usage.ru_maxrss / 1024,
                 "budget": outcome.budget, "message": outcome.message[:300]})


def measure_point(method: str, data_dir: Path, n: int, d: int, seconds: float, memory: int) -> dict:
    """Rank the (n, d) fold with ``method`` in a fresh process, under the per-point budget."""
    dataset = synthetic_fold(data_dir, n, d)
    context = multiprocessing.get_context("fork")  # the driver's imports and compiled evaluator come along
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_point_in_process, args=(method, str(data_dir), dataset, seconds, memory, sender))
    process.start()
    sender.close()
    try:
        result = receiver.recv()
    except EOFError:
        result = {"status": "failed", "message": f"the point's process ended ({process.exitcode}) before it reported"}
    process.join()
    point = {"n": n, "d": d, **result}
    print(f"{method} n {n} d {d}: {point['status']}"
          + (f", ranking {point['wall_s']:.2f} s, CPU {point['cpu_s']:.2f} s, peak {point['peak_rss_mib']:.0f} MiB"
             if point["status"] == "done" else f": {point.get('message', '')}"), flush=True)
    return point


def load_compiled_evaluator() -> None:
    """Load the evaluator's compiled kernel once here: every point's process, forked from this one,
    starts with it instead of loading it again (a tiny evaluation, result discarded)."""
    from pipeline.evaluation.mlknn import evaluate_grid

    X = np.random.default_rng(0).random((12, 3))
    Y = (X[:, :2] > 0.5).astype(np.uint8)
    evaluate_grid(X[:8], Y[:8], X[8:], Y[8:], [1, 2, 3], [1, 2, 3], num=2, n_threads=1)


def growth(run: BenchRun, methods: list[str], subset: str, seconds: float, memory: int) -> None:
    """Every method's two series (the record's data) and the figure of the point both series share."""
    sizes = SUBSETS[subset]
    fixed_n, fixed_d = sizes["fixed_n"], sizes["fixed_d"]
    results = {}
    load_compiled_evaluator()
    with tempfile.TemporaryDirectory(prefix="mlfs-growth-folds-") as folder:
        data_dir = Path(folder)
        for method in methods:
            measured = {}  # (n, d) -> point: the point both series share is measured once

            def point(n: int, d: int) -> dict:
                if (n, d) not in measured:
                    measured[n, d] = measure_point(method, data_dir, n, d, seconds, memory)
                return measured[n, d]

            series = {"n": run_series(sizes["n"], lambda n: point(n, fixed_d)),
                      "d": run_series(sizes["d"], lambda d: point(fixed_n, d))}
            results[method] = series
            net = with_net_costs(results)[method]
            print(f"{method}: exponent in n {exponent(net['n'], 'n')}, in d {exponent(net['d'], 'd')}; "
                  f"n series {describe_end(series['n'], 'n')}, d series {describe_end(series['d'], 'd')}", flush=True)
            shared = next((p for p in series["d"] if p["n"] == fixed_n and p["d"] == fixed_d and p["status"] == "done"),
                          None)
            if shared is not None:
                where = f"n {fixed_n:,}, d {fixed_d:,}, L {N_LABELS}, {subset} subset"
                run.figure(f"{method} ranking, synthetic {where} (NumPy, 1 BLAS thread)", shared["wall_s"], "s")
            run.data["growth"] = growth_data(results, subset, seconds, memory)
            if run.figures:  # saved after each method: a run stopped midway keeps the methods it finished
                run.save()


def growth_data(results: dict, subset: str, seconds: float, memory: int) -> dict:
    """The record's ``data.growth``: the sizes, the budgets and every method's series."""
    sizes = SUBSETS[subset]
    machine_memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    default_memory = TASK_BUDGET_DEFAULTS["task_memory"]
    return {"subset": subset, "sizes": {axis: list(sizes[axis]) for axis in AXES}, "fixed_n": sizes["fixed_n"],
            "fixed_d": sizes["fixed_d"], "n_labels": N_LABELS, "n_test": N_TEST,
            "point_budget": {"seconds": seconds, "memory_bytes": memory},
            "default_budget": {"seconds": TASK_BUDGET_DEFAULTS["task_timeout"],
                               "memory_bytes": machine_memory if default_memory is None else default_memory},
            "methods": results}


# --- part 2: the evaluator on real folds -------------------------------------------------------

def real_fold(name: str, cache: Path):
    """Fold 0 of ``name`` as the registry exports it (exported into ``cache`` the first time)."""
    from pipeline.data.folds import fold_path, load_fold

    path = fold_path(cache, name, 0)
    if not path.exists():
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipeline.export_splits", "--datasets", name, "--folds", "1",
                        "--output-dir", str(cache), "--no-progress"], check=True)
        print(f"{name}: fold exported in {time.perf_counter() - started:.0f} s (not part of any figure)")
    return load_fold(path, dataset=name, index=0)


def peer_predict(X_train, Y_train, X_test, k: int) -> None:
    """scikit-multilearn 0.2.0's MLkNN(k=10, s=1) fitted and asked to predict on the first k features."""
    from bench_mlknn_kgrid import patched_skmultilearn_mlknn

    peer = patched_skmultilearn_mlknn()(k=10, s=1.0)
    peer.fit(X_train[:, :k], Y_train).predict(X_test[:, :k])


def documented_bound_mib(n_train: int, n_test: int, n_features: int, n_labels: int, n_grid: int, k_max: int,
                         num: int, threads: int) -> float:
    """docs/evaluation.md's bound of what the evaluator allocates beyond its inputs, every term linear
    in the rows: the checked float64 copy of the fold's features and the finiteness mask of the larger
    part, the ranked features' copies (rows x k_max float64), the neighbour output (grid points x rows x
    Num int64), each thread's distance scratch (``DISTANCE_SCRATCH_BYTES``) and the label work of a grid
    point (at most eight rows x L float64 arrays: the checked labels, neighbour counts, posteriors,
    predictions and the ranking metrics' sorting temporaries)."""
    from pipeline.evaluation.neighbours import DISTANCE_SCRATCH_BYTES

    rows = n_train + n_test
    features = rows * n_features * 8 + max(n_train, n_test) * n_features
    ranked = rows * k_max * 8 + n_grid * rows * num * 8 + threads * DISTANCE_SCRATCH_BYTES
    return (features + ranked + 8 * rows * n_labels * 8) / 2**20


def evaluator(run: BenchRun, repeats: int, cache: Path, datasets: tuple[str, ...] = EVALUATOR_DATASETS) -> None:
    from pipeline.evaluation.grids import k_grid
    from pipeline.evaluation.mlknn import evaluate_grid
    from pipeline.limits import usable_cores

    for name in datasets:
        fold = real_fold(name, cache)
        X_tr, Y_tr, X_te, Y_te = fold.X_train, fold.Y_train, fold.X_test, fold.Y_test
        ks = k_grid(X_tr.shape[1])
        identity = np.arange(1, X_tr.shape[1] + 1)
        shape = f"{name} fold 0 (n_train {X_tr.shape[0]:,}, n_test {X_te.shape[0]:,}, d {X_tr.shape[1]}, L {Y_tr.shape[1]})"
        evaluate_grid(X_tr[:50], Y_tr[:50], X_te[:20], Y_te[:20], identity, ks[:1])  # the compiled kernel, untimed
        ours, _ = measure(evaluate_grid, X_tr, Y_tr, X_te, Y_te, identity, ks, repeats=repeats)
        peer, _ = measure(peer_predict, X_tr, Y_tr, X_te, ks[-1], repeats=1)
        peer_name = f"scikit-multilearn 0.2.0 MLkNN(k=10, s=1), one fit + predict on the top {ks[-1]} features"
        run.figure(f"ML-kNN, full {len(ks)}-point top-k grid, {shape}", ours, "s", peers={peer_name: peer})
        ours_peak = traced_peak_mib(evaluate_grid, X_tr, Y_tr, X_te, Y_te, identity, ks)
        peer_peak = traced_peak_mib(peer_predict, X_tr, Y_tr, X_te, ks[-1])
        run.figure(f"same, peak traced memory (tracemalloc), {name}", ours_peak, "MiB", peers={peer_name: peer_peak})
        bound = documented_bound_mib(X_tr.shape[0], X_te.shape[0], X_tr.shape[1], Y_tr.shape[1], len(ks), ks[-1], 10,
                                     usable_cores())
        dense = X_te.shape[0] * X_tr.shape[0] * 8 / 2**20
        print(f"{name}: our peak {ours_peak:.0f} MiB against the documented bound {bound:.0f} MiB "
              f"(an n_test x n_train float64 matrix alone: {dense:.0f} MiB)")
        run.figure(f"documented bound of the evaluator's memory (docs/evaluation.md), {name}", bound, "MiB")
        run.save()  # after each dataset: a run stopped during the next keeps this one's figures


def main(argv=None) -> None:
    from pipeline.methods import available_methods

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small subset of sizes (recorded as bench_growth_quick)")
    parser.add_argument("--methods", nargs="+", metavar="NAME", help="methods to measure (default: every shipped one)")
    parser.add_argument("--point-seconds", type=float, default=None,
                        help="wall-time budget of one point (default: 900 s, 60 s with --quick)")
    parser.add_argument("--point-memory", default=DEFAULT_POINT_MEMORY, metavar="SIZE",
                        help=f"memory budget of one point (default: {DEFAULT_POINT_MEMORY})")
    parser.add_argument("--skip-growth", action="store_true", help="measure the evaluator only")
    parser.add_argument("--skip-evaluator", action="store_true", help="measure the growth only")
    parser.add_argument("--fold-cache", type=Path, default=DEFAULT_FOLD_CACHE,
                        help=f"where the real folds are exported once (default: {DEFAULT_FOLD_CACHE})")
    parser.add_argument("--repeats", type=int, default=3, help="runs of our evaluator per fold")
    parser.add_argument("--evaluator-datasets", nargs="+", choices=EVALUATOR_DATASETS, default=list(EVALUATOR_DATASETS),
                        metavar="NAME", help=f"the real folds the evaluator is measured on (default: {' '.join(EVALUATOR_DATASETS)})")
    args = parser.parse_args(argv)
    subset = "quick" if args.quick else "full"
    seconds = args.point_seconds or SUBSETS[subset]["point_seconds"]
    try:
        memory = parse_memory_size(args.point_memory)
    except ValueError as exc:
        raise ConfigError(str(exc), field="--point-memory", found=args.point_memory) from None
    methods = args.methods or available_methods()
    methods = methods if FLOOR_METHOD in methods else [FLOOR_METHOD, *methods]  # every fit takes its cost off
    unknown = sorted(set(methods) - set(available_methods()))
    if unknown:
        raise ConfigError("unknown method", field="--methods", expected=available_methods(), found=unknown)
    if not args.skip_growth:
        with BenchRun(__file__, entry="bench_growth_quick" if args.quick else None) as run:
            growth(run, methods, subset, seconds, memory)
    if not args.skip_evaluator:
        with BenchRun(__file__, entry="bench_growth_evaluator") as run:
            evaluator(run, args.repeats, args.fold_cache, tuple(args.evaluator_datasets))


if __name__ == "__main__":
    sys.exit(run_main(main))
