"""What the whole paper costs: each method's ranking time in both engines and the union-grid evaluation.

    python bench/bench_methods_paper.py [--datasets NAME ...] [--methods NAME ...] [--repeats 3]
        [--engines numpy octave] [--folds 5] [--seed 42] [--test-size 0.3] [--json FILE]
        [--octave-library-path DIR[:DIR]]

The paper's workload is 17 datasets x 5 hold-out folds x 8 methods, each ranking computed once and
evaluated with ML-kNN (Num 10) on the union of the k-grid (10..300 step 10) and the p-grid
(5 %..50 % of d, step 5 %). For every dataset this takes the training part of hold-out repeat 0
(seed 42, test size 0.3, min-max fitted on the training part, as ``pipeline.export_splits``
builds it) and measures, ``--repeats`` times each:

- the ranking CPU time of every method in NumPy (BLAS limited to one thread) and in Octave (its
  BLAS limited to one thread; Octave's ``cputime`` around the call, which includes Octave's side of
  the bridge: reading the inputs, writing the outputs). DAGFS has no Octave twin and runs in Python
  under either engine;
- the CPU time of the native evaluation of the NumPy ranking over the union grid, one thread (after
  one warm-up evaluation that loads the compiled kernel).

CPU time rather than wall time, because the machine is shared: the table shows the median, the
spread (max - min) / median over the repeats and the 1-minute load average while each dataset ran.
It then estimates the whole paper's CPU time per engine (folds x the sum over datasets and methods of
ranking + evaluation); on a 2-core machine the wall time is at least half of it. The column ``same``
says whether the two engines' rankings are identical (LRDG: the overlap of their top 20 %, its
full-run rankings being engine-specific).

It records in bench/results.json, one sample per repeat: each method's ranking CPU summed over the
datasets (NumPy, with Octave as the peer), the evaluation CPU summed over datasets and methods, and
the whole-paper estimate with ``--engine python`` (with ``--engine octave`` as the peer).

The datasets and methods default to those of paper/suite.yaml. ``--octave-library-path`` is put
in front of the Octave process's LD_LIBRARY_PATH, e.g. Debian's reference BLAS and LAPACK
(``/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack``) to measure the speed before
an optimised BLAS was installed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from bench_baselines1 import agreement, numpy_blas
from pipeline.cli import run_main
from pipeline.errors import ConfigError
from pipeline.fileio import atomic_write_json
from pipeline.experiment.model import load_suite
from record import BenchRun, shared_data

REPO = Path(__file__).resolve().parents[1]
PAPER = load_suite(REPO / "paper" / "suite.yaml")
PAPER_DATASETS = PAPER.datasets
PAPER_METHODS = tuple(entry.name for entry in PAPER.methods)


@dataclass
class Fold:
    name: str
    X_train: np.ndarray
    Y_train: np.ndarray
    X_test: np.ndarray
    Y_test: np.ndarray


@dataclass
class Row:
    """The measured CPU seconds of one (dataset, method), one entry per repeat."""

    dataset: str
    method: str
    shape: tuple[int, int, int]
    load: float
    numpy: list[float] = field(default_factory=list)
    octave: list[float] = field(default_factory=list)
    evaluation: list[float] = field(default_factory=list)
    same: str = ""


def holdout_fold(name: str, seed: int, test_size: float) -> Fold:
    """Hold-out repeat 0 of ``name``, min-max scaled on its training part (as export_splits does)."""
    from pipeline.data.registry import load_dataset
    from pipeline.data.scaling import scale_fold
    from pipeline.data.splits import stratified_splits

    data = load_dataset(name, shared_data("mlc"))
    X, Y = data.X, data.Y
    split = stratified_splits(Y, mode="holdout", n_folds=1, seed=seed, test_size=test_size)[0]
    X_train, X_test = scale_fold(X[split.train], X[split.test], "minmax")
    return Fold(name, X_train, Y[split.train].astype(np.float64), X_test, Y[split.test].astype(np.float64))


def union_grid(d: int) -> list[int]:
    from pipeline.evaluation.grids import k_grid, p_grid, p_to_k

    return sorted(set(k_grid(d)) | set(p_to_k(p_grid(), d)))


def numpy_rank(method_spec, fold: Fold, params: dict, init) -> tuple[np.ndarray, float]:
    start = time.process_time()
    ranking, _ = method_spec.run(fold.X_train, fold.Y_train, params, init)
    return ranking, time.process_time() - start


def octave_rank(engine, method_spec, fold: Fold, params: dict, init) -> tuple[np.ndarray, float]:
    before = engine.session.call("cputime", nout=1)[0]
    ranking, _ = engine.rank(method_spec, fold.X_train, fold.Y_train, params, init, context=f"{method_spec.name}/{fold.name}")
    return np.asarray(ranking, dtype=np.int64), engine.session.call("cputime", nout=1)[0] - before


def evaluation_seconds(fold: Fold, ranking: np.ndarray) -> float:
    from pipeline.evaluation.mlknn import evaluate_grid

    start = time.process_time()
    evaluate_grid(fold.X_train, fold.Y_train, fold.X_test, fold.Y_test, ranking, union_grid(fold.X_train.shape[1]),
                  num=10, smooth=1.0, n_threads=1)
    return time.process_time() - start


def warm_up_evaluation() -> None:
    """Load the compiled neighbour kernel (Numba's cache) outside the measurements."""
    rng = np.random.default_rng(0)
    X, Y = rng.random((30, 4)), rng.integers(0, 2, (30, 3)).astype(np.float64)
    evaluation_seconds(Fold("warm-up", X, Y, X, Y), np.arange(1, 5))


def measure_row(fold: Fold, method: str, engines: list[str], octave, repeats: int) -> Row:
    from pipeline.methods import get_method

    method_spec = get_method(method)
    params = method_spec.resolve_params({})
    n, d = fold.X_train.shape
    init = method_spec.initial_matrices(n, d, fold.Y_train.shape[1], params)
    row = Row(fold.name, method, (n, d, fold.Y_train.shape[1]), os.getloadavg()[0])
    for _ in range(repeats):
        ranking, seconds = numpy_rank(method_spec, fold, params, init)
        row.numpy.append(seconds)
        row.evaluation.append(evaluation_seconds(fold, ranking))
        if "octave" in engines and method_spec.matlab_function is not None:
            octave_ranking, seconds = octave_rank(octave, method_spec, fold, params, init)
            row.octave.append(seconds)
            row.same = agreement(method, octave_ranking, ranking)
    return row


def median_spread(values: list[float]) -> tuple[float, float]:
    if not values:
        return float("nan"), float("nan")
    middle = statistics.median(values)
    return middle, (max(values) - min(values)) / middle if middle > 0 else 0.0


def cell(values: list[float]) -> str:
    if not values:
        return f"{'-':>14s}"
    middle, spread = median_spread(values)
    return f"{middle:8.2f} ±{50 * spread:3.0f}%"


def print_row(row: Row) -> None:
    n, d, L = row.shape
    print(f"{row.dataset:13s} {row.method:6s} {n:5d} {d:5d} {L:4d} {row.load:5.1f} {cell(row.numpy)} "
          f"{cell(row.octave)} {cell(row.evaluation)}  {row.same}")
    sys.stdout.flush()


def engine_runs(row: Row, engine: str) -> list[float]:
    """Ranking CPU seconds of the row under ``engine``, one per repeat (Python-only methods run in Python)."""
    return row.octave if engine == "octave" and row.octave else row.numpy


def engine_seconds(row: Row, engine: str) -> float:
    """Median ranking CPU seconds of the row under ``engine``."""
    return median_spread(engine_runs(row, engine))[0]


def print_summary(rows: list[Row], engines: list[str], folds: int) -> None:
    datasets = list(dict.fromkeys(row.dataset for row in rows))
    methods = list(dict.fromkeys(row.method for row in rows))
    evaluation = {(row.dataset, row.method): median_spread(row.evaluation)[0] for row in rows}
    for engine in engines:
        rank = {(row.dataset, row.method): engine_seconds(row, engine) for row in rows}
        print(f"\nengine {engine}: ranking CPU s of one fold (rank + union-grid evaluation in brackets)")
        print(f"{'dataset':13s} " + " ".join(f"{m:>13s}" for m in methods) + f" {'total':>15s}")
        for dataset in datasets:
            cells = [f"{rank[dataset, m]:6.1f} ({evaluation[dataset, m]:4.1f})" for m in methods]
            total = sum(rank[dataset, m] + evaluation[dataset, m] for m in methods)
            print(f"{dataset:13s} " + " ".join(f"{c:>13s}" for c in cells) + f" {total:15.1f}")
        per_method = [sum(rank[d, m] for d in datasets) for m in methods]
        print(f"{'sum (rank)':13s} " + " ".join(f"{v:13.1f}" for v in per_method))
        ranking_total = folds * sum(per_method)
        evaluation_total = folds * sum(evaluation.values())
        print(f"whole paper ({folds} folds), {engine}: ranking {ranking_total:.0f} CPU s + evaluation "
              f"{evaluation_total:.0f} CPU s = {ranking_total + evaluation_total:.0f} CPU s = "
              f"{(ranking_total + evaluation_total) / 60:.1f} CPU min (wall on 2 cores >= "
              f"{(ranking_total + evaluation_total) / 120:.1f} min)")


def per_repeat_sums(rows: list[Row], runs) -> list[float]:
    """For each repeat r, the sum over ``rows`` of ``runs(row)[r]``."""
    return [sum(values) for values in zip(*(runs(row) for row in rows))]


def scope(datasets: list[str]) -> str:
    """The datasets of a figure's workload: all of the paper's, or their names."""
    return f"all {len(datasets)} paper datasets" if set(datasets) == set(PAPER_DATASETS) else ", ".join(datasets)


def record_figures(run, rows: list[Row], engines: list[str], folds: int) -> None:
    """Per method, the evaluation, and the whole-paper estimate per engine; one sample per repeat."""
    datasets = list(dict.fromkeys(row.dataset for row in rows))
    methods = list(dict.fromkeys(row.method for row in rows))
    one_fold = f"one hold-out fold of {scope(datasets)}, 1 BLAS thread"
    octave_peer = "Octave (cputime around the call, its side of the bridge included)"
    for method in methods:
        own = [row for row in rows if row.method == method]
        octave = per_repeat_sums(own, lambda row: row.octave) if all(row.octave for row in own) else None
        run.figure(f"{method} ranking in NumPy, summed over {one_fold}", per_repeat_sums(own, lambda row: row.numpy),
                   "CPU s", peers={octave_peer: octave} if "octave" in engines and octave else {})
    run.figure(f"union-grid ML-kNN evaluation of the NumPy rankings of the {len(methods)} methods, summed over "
               f"{one_fold}", per_repeat_sums(rows, lambda row: row.evaluation), "CPU s")
    whole = f"{folds} folds × {scope(datasets)} × {len(methods)} methods, ranking + union-grid evaluation"
    estimate = {engine: [folds * (rank + evaluate) for rank, evaluate in zip(
        per_repeat_sums(rows, lambda row: engine_runs(row, engine)), per_repeat_sums(rows, lambda row: row.evaluation))]
        for engine in ("numpy", *(["octave"] if "octave" in engines else []))}
    run.figure(f"CPU estimate with --engine python: {whole}, 1 BLAS thread",
               estimate["numpy"], "CPU s",
               peers={"the same CPU estimate with --engine octave": estimate["octave"]} if "octave" in estimate else {})


def start_octave(library_path: str | None):
    """An Octave engine whose BLAS runs one thread (and the libraries of ``library_path`` first)."""
    from pipeline.engines.octave import OctaveEngine, linear_algebra_libraries

    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = "1"
    if library_path:
        os.environ["LD_LIBRARY_PATH"] = ":".join(filter(None, [library_path, os.environ.get("LD_LIBRARY_PATH")]))
    engine = OctaveEngine(timeout=7200)
    libraries = linear_algebra_libraries(engine.session)
    print(f"Octave BLAS: {libraries['blas']}; LAPACK: {libraries['lapack']}")
    return engine


def parse_arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(PAPER_DATASETS))
    parser.add_argument("--methods", nargs="+", default=list(PAPER_METHODS))
    parser.add_argument("--engines", nargs="+", choices=("numpy", "octave"), default=["numpy", "octave"])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each measurement (default 3)")
    parser.add_argument("--folds", type=int, default=5, help="folds of the paper, for the estimate")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--test-size", type=float, default=0.3)
    parser.add_argument("--octave-library-path", default=None,
                        help="folders put first in the Octave process's LD_LIBRARY_PATH")
    parser.add_argument("--json", type=Path, default=None, help="also write the measurements here")
    return parser.parse_args(argv)


def main(argv=None) -> None:
    args = parse_arguments(argv)
    if args.repeats < 1:
        raise ConfigError("repeats must be at least 1", field="repeats", found=args.repeats)
    from threadpoolctl import threadpool_limits

    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start; NumPy BLAS: {numpy_blas()}; one BLAS "
          f"thread per engine; {args.repeats} repeats; CPU seconds: median ±half the spread")
    with BenchRun(__file__) as run:
        octave = start_octave(args.octave_library_path) if "octave" in args.engines else None
        print(f"{'dataset':13s} {'method':6s} {'n':>5s} {'d':>5s} {'L':>4s} {'load':>5s} {'numpy s':>14s} "
              f"{'octave s':>14s} {'evaluation s':>14s}  same")
        rows = []
        try:
            with threadpool_limits(limits=1):
                warm_up_evaluation()
                for name in args.datasets:
                    fold = holdout_fold(name, args.seed, args.test_size)
                    for method in args.methods:
                        rows.append(measure_row(fold, method, args.engines, octave, args.repeats))
                        print_row(rows[-1])
        finally:
            if octave is not None:
                octave.close()
        print_summary(rows, args.engines, args.folds)
        if args.json is not None:
            atomic_write_json(args.json, [asdict(row) for row in rows])
        record_figures(run, rows, args.engines, args.folds)


if __name__ == "__main__":
    sys.exit(run_main(main))
