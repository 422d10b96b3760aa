"""Benchmark of the information-theoretic engine (PMU, D2F, SCLS, MDMR, LRFS) against the
reference's own loops (``Sadegh28/PyIT-MLFS``), and of the engine alone on large folds.

    python bench/bench_information_filters.py [--reference DIR --reference-python PYTHON]
        [--dataset emotions] [--rows 400] [--features 8] [--repeats 3]
        [--large yeast:1500 ...]

The reference is not part of this repository: ``--reference`` is a checkout of
``Sadegh28/PyIT-MLFS`` (its ``classes/`` folder is imported) and ``--reference-python`` an
interpreter with pyitlib, NumPy, SciPy and scikit-learn. The peer fold is the first ``--rows``
training rows of fold 0 of a stratified 5-fold split of ``--dataset`` (min-max scaled, as
bench/bench_baselines1.py makes it), cut to its first ``--features`` features (the reference's
loops take minutes beyond a few dozen). For each method the bench records, in
bench/results.json, the wall time of the project's ranking (discretisation included) against the
reference's ``KBinsDiscretizer`` + ``rank(X, y, mode="pre_eval")`` (PyIT-MLFS.py lines 46-50 and
61) in a process of its own (both on one BLAS thread), ``--repeats`` runs each, with their ratio,
and checks that the two selection orders are equal. ``--large DATASET:ROWS`` adds the engine alone on a bigger fold
(every feature), where the reference would take days (docs/methods/PMU.md, "Cost"). Without
``--reference`` (``make bench`` on a machine without the reference) only the engine's figures are
measured, recorded as the entry ``bench_information_filters_engine_only``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench_baselines1 import limit_blas_threads, training_fold
from pipeline.cli import run_main
from pipeline.errors import PipelineError
from pipeline.methods import get_method
from pipeline.methods.information_filters import CRITERIA, selection_order
from record import PARTIAL_RUNS, BenchRun, Measurement, measure

REFERENCE_NAME = "PyIT-MLFS d3cfe0f (pyitlib loops)"
#: The reference's class of each method (module, class) under its ``classes/`` folder.
REFERENCE_CLASSES = {name: (name.lower(), name.lower()) for name in CRITERIA}

#: Run by ``--reference-python`` in a process of its own: times the reference on the saved fold.
REFERENCE_WORKER = """
import importlib, json, sys, time
import numpy as np
from sklearn.preprocessing import KBinsDiscretizer
checkout, fold, repeats, classes = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
sys.path.insert(0, checkout)
data = np.load(fold)
out = {}
for method, (module, name) in classes.items():
    selector = getattr(importlib.import_module("classes." + module), name)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        binner = KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform").fit(data["X"])
        order = selector().rank(binner.transform(data["X"]).astype(int), data["Y"].astype(int), mode="pre_eval")
        seconds.append(time.perf_counter() - start)
    out[method] = {"seconds": seconds, "order": [int(f) for f in order]}
print(json.dumps(out))
"""


def reference_runs(checkout: Path, python: str, X: np.ndarray, Y: np.ndarray, repeats: int) -> dict:
    """{method: {"seconds": [...], "order": [...]}} from the reference, in a process of its own."""
    with tempfile.TemporaryDirectory() as folder:
        fold = Path(folder) / "fold.npz"
        np.savez(fold, X=X, Y=Y)
        completed = subprocess.run([python, "-c", REFERENCE_WORKER, str(checkout), str(fold), str(repeats),
                                    json.dumps(REFERENCE_CLASSES)], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise PipelineError(f"the reference run failed (exit {completed.returncode}): {completed.stderr[-2000:]}")
    return json.loads(completed.stdout.splitlines()[-1])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=None, help="checkout of Sadegh28/PyIT-MLFS")
    parser.add_argument("--reference-python", default=None, help="interpreter with pyitlib and scikit-learn")
    parser.add_argument("--dataset", default="emotions")
    parser.add_argument("--rows", type=int, default=400, help="training rows of the peer fold (default 400)")
    parser.add_argument("--features", type=int, default=8, help="first features kept for the peer fold (default 8)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per implementation and method (default 3)")
    parser.add_argument("--large", nargs="*", default=["yeast:1500"],
                        help="DATASET:ROWS folds the engine alone runs on, every feature")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if (args.reference is None) != (args.reference_python is None):
        raise PipelineError("--reference and --reference-python go together")
    if args.reference is not None and not (args.reference / "classes" / "pmu.py").is_file():
        raise PipelineError(f"{args.reference} is not a PyIT-MLFS checkout (no classes/pmu.py)")
    entry = None if args.reference is not None else PARTIAL_RUNS["bench_information_filters"][0]
    X_full, Y = training_fold(args.dataset, args.rows)
    X = X_full[:, : args.features]
    workload = f"{args.dataset} training fold (n {X.shape[0]}, first {X.shape[1]} features, L {Y.shape[1]})"
    with limit_blas_threads(1), BenchRun(__file__, entry=entry) as run:  # one BLAS thread, as the harness runs methods
        reference = None if entry else reference_runs(args.reference, args.reference_python, X, Y, args.repeats)
        for method in CRITERIA:
            params = dict(get_method(method).defaults)
            ours, order = measure(selection_order, method, X, Y, params, repeats=args.repeats, warm_up=True)
            peers = {}
            if reference is not None:
                same = order.tolist() == reference[method]["order"]
                print(f"{method}: selection orders {'equal' if same else 'DIFFER'}")
                peers = {REFERENCE_NAME: Measurement(tuple(reference[method]["seconds"]))}
            run.figure(f"{method} ranking, {workload}", ours, "s", peers=peers)
        for spec in args.large:
            name, rows = spec.split(":")
            X_large, Y_large = training_fold(name, int(rows))
            n, d = X_large.shape
            for method in ("PMU", "SCLS"):
                seconds, _ = measure(selection_order, method, X_large, Y_large, dict(get_method(method).defaults),
                                     repeats=args.repeats)
                run.figure(f"{method} ranking alone, {name} training fold (n {n}, d {d}, L {Y_large.shape[1]})",
                           seconds, "s")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
