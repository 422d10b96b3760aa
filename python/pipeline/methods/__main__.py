"""``python -m pipeline.methods``: list the methods, or check one against the method contract.

    python -m pipeline.methods list [--plugins DIR ...]
    python -m pipeline.methods check NAME_OR_FILE [--plugins DIR ...] [--engine python|octave|matlab]

``check`` runs the method, through the engine a run would use, on small folds (synthetic ones, one
with fewer rows than features, and the demo's fold 0, generated where the package is installed) and prints one line per check, PASS or FAIL with
what was found (docs/plugins.md, "Checking a method"). Exit codes: 0 every check passed, 1 a check
failed, 2 bad input (an unknown method, a plug-in that does not load, an engine that cannot start).

The plug-ins are loaded and the checks run in a worker process, as in a run: a method that ends
its process (``os._exit``, a signal) fails the check with one line (exit 1), and nothing it
started or left running outlives the command.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..cli import add_code_options, exit_process, run_main, use_matlab_dir
from ..data.folds import load_fold
from ..data.scaling import scale_fold
from ..data.synthetic import make_demo_dataset
from ..engines import ENGINES, make_engine
from ..errors import ConfigError, PipelineError
from ..fileio import process_scratch_dir
from ..locations import CHECKOUT_MATLAB_DIR
from ..rankings import check_ranking_sorts_scores, validate_ranking, validate_scores
from ..processes import WorkerStopped, carry_worker_mark, end_worker_processes, lead_process_group, new_worker_mark
from ..runner.lifecycle import become_worker
from ..runner.plugins import activate_plugins, check_runnable, engine_options, plugin_paths
from ..runner.pool import describe_exit
from . import available_methods, get_method, origin_of
from .base import MethodSpec
from .plugins import source_file

DEMO_FOLD = CHECKOUT_MATLAB_DIR.parent / "data" / "paper_matlab_minmax" / "demo" / "fold0.mat"
UNKNOWN_PARAMETER = "mlfs_check_unknown_parameter"
CHECK_TIMEOUT = 600.0
#: How often the command looks whether the checks' process has died while it waits for its report.
_DEATH_POLL = 0.2


@dataclass(frozen=True)
class Result:
    """One check: its name, whether it passed, and what was found."""

    check: str
    passed: bool
    detail: str

    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'} {self.check}: {self.detail}"


def check_method(method_spec: MethodSpec, engine) -> list[Result]:
    """Every check of the contract on ``engine`` (an entered engine object), in order."""
    params = dict(method_spec.defaults)
    folds = contract_folds()
    outputs: dict[str, tuple[np.ndarray, dict, float]] = {}
    results = [_attempt("output", lambda: _output(method_spec, engine, params, folds, outputs))]
    if not results[0].passed:
        return results
    results.append(_attempt("deterministic", lambda: _deterministic(method_spec, engine, params, folds, outputs)))
    first = next(iter(folds.values()))
    results.append(_attempt("unknown parameter refused", lambda: _unknown_refused(method_spec, engine, params, first)))
    results.append(_attempt("values outside the declared ranges refused",
                            lambda: _out_of_range_refused(method_spec, engine, params, first)))
    results.append(_attempt("constant features, all-zero labels",
                            lambda: _degenerate(method_spec, engine, params, first)))
    seconds = ", ".join(f"{name} {out[2]:.3f} s" for name, out in outputs.items())
    results.append(Result("time", True, seconds))
    return results


def contract_folds() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Training parts the checks run on: three small synthetic ones (one with fewer rows than
    features) and the demo's fold 0 (the checkout's file, or generated where the package is installed)."""
    folds = {}
    for seed, shape in ((1, (40, 12, 4)), (2, (60, 25, 5)), (3, (20, 50, 4))):
        dataset, _ = make_demo_dataset(seed, n_samples=shape[0], n_features=shape[1], n_labels=shape[2],
                                       n_relevant=4, features_per_label=2)
        folds[f"synthetic {shape[0]}x{shape[1]}x{shape[2]}"] = (scale_fold(dataset.X, dataset.X, "minmax")[0],
                                                               dataset.Y.astype(np.uint8))
    fold = load_fold(DEMO_FOLD if DEMO_FOLD.is_file() else _generated_demo_fold(), dataset="demo", index=0)
    folds["demo fold0"] = (fold.X_train, fold.Y_train)
    return folds


def _generated_demo_fold() -> Path:
    """The demo's fold 0, exported into this process's scratch folder (the same bytes as a checkout's)."""
    from ..data.export import DEMO_FOLDS, export_dataset
    from ..data.registry import load_dataset

    return export_dataset(load_dataset("demo"), process_scratch_dir() / "folds", DEMO_FOLDS)[0]


def _attempt(check: str, body: Callable[[], str]) -> Result:
    try:
        return Result(check, True, body())
    except _Failed as failed:
        return Result(check, False, str(failed))
    except PipelineError as exc:
        return Result(check, False, " ".join(str(exc).split()))


class _Failed(Exception):
    """A check found something against the contract."""


def _rank(method_spec, engine, X, Y, params, context: str) -> tuple[np.ndarray, dict, float]:
    init = method_spec.initial_matrices(X.shape[0], X.shape[1], Y.shape[1], method_spec.resolve_params(params))
    started = time.perf_counter()
    ranking, info = engine.rank(method_spec, X, Y, params, init, context=context)
    seconds = float(info.get("compute_seconds", time.perf_counter() - started))
    d = X.shape[1]
    ranking = validate_ranking(ranking, d, source=f"{method_spec.name} ranking on {context}")
    scores = validate_scores(info.get("scores"), d, source=f"{method_spec.name} scores on {context}")
    check_ranking_sorts_scores(ranking, scores, source=f"{method_spec.name} output on {context}")
    return ranking, info, seconds


def _output(method_spec, engine, params, folds, outputs) -> str:
    for name, (X, Y) in folds.items():
        outputs[name] = _rank(method_spec, engine, X, Y, params, name)
    return f"a permutation of 1..d and d finite scores on {len(folds)} folds ({', '.join(folds)})"


def _deterministic(method_spec, engine, params, folds, outputs) -> str:
    name = next(iter(folds))
    X, Y = folds[name]
    again, _, _ = _rank(method_spec, engine, X, Y, params, name)
    first = outputs[name][0]
    if not np.array_equal(first, again):
        moved = int(np.sum(first != again))
        raise _Failed(f"two runs with the same parameters and seed {params.get('seed', '(none)')} gave different "
                      f"rankings on {name} ({moved} of {first.size} positions differ)")
    return f"the same ranking twice on {name}"


def _unknown_refused(method_spec, engine, params, fold) -> str:
    X, Y = fold
    try:
        engine.rank(method_spec, X, Y, {**params, UNKNOWN_PARAMETER: 1}, None, context="unknown parameter")
    except PipelineError as exc:
        return f"refused ({' '.join(str(exc).split())[:100]}...)"
    raise _Failed(f"a run with the unknown parameter {UNKNOWN_PARAMETER!r} succeeded: the method must refuse "
                  "parameters it does not know (a typo would run the defaults silently)")


def _out_of_range_refused(method_spec, engine, params, fold) -> str:
    """The method's own code refuses what its declaration excludes (the front doors check the
    ranges before any work, but the method is also called from MATLAB/Octave and by hand)."""
    if not method_spec.allowed:
        return "no declared ranges"
    X, Y = fold
    for name, allowed in method_spec.allowed.items():
        value = allowed.just_outside(method_spec.defaults[name])
        try:
            engine.rank(method_spec, X, Y, {**params, name: value}, None, context=f"{name} = {value!r}")
        except PipelineError:
            continue
        raise _Failed(f"a run with {name} = {value!r} succeeded although {name} is declared {allowed}")
    return f"each of {', '.join(method_spec.allowed)} refused just outside its range"


def _degenerate(method_spec, engine, params, fold) -> str:
    X, Y = (array.copy() for array in fold)
    X[:, :2] = 0.5
    Y[:, 0] = 0
    _rank(method_spec, engine, X, Y, params, "constant features, all-zero label")
    return "a valid ranking with 2 constant feature columns and an all-zero label column"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.methods",
        description="List the methods (shipped, entry points, plug-ins) or check one against the method "
                    "contract (docs/plugins.md). Exit codes: 0 ok, 1 a check failed, 2 bad input.")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="the methods and where they come from",
                                  description="the methods and where they come from")
    add_code_options(listing)
    check = commands.add_parser("check", help="run the contract checks on one method",
                                description="run the contract checks on one method, one line per check")
    check.add_argument("method", help="a method name, or a plug-in file (NAME.py or NAME.m) whose folder is loaded")
    check.add_argument("--engine", choices=ENGINES, default=None,
                       help="where the method runs (default: python when it has a Python implementation, else octave)")
    add_code_options(check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    use_matlab_dir(args)
    if args.command == "list":
        activate_plugins(plugin_paths(args.plugins), "python")
        for name in available_methods():
            print(f"{name}: {get_method(name).summary or '-'} ({origin_of(name)})")
        return 0
    return _check(args)


def _check(args: argparse.Namespace) -> int:
    """Run :func:`_check_here` in a worker process leading its own process group; print what it
    sends. A worker that ends before it reports fails the check (exit 1); its group goes with it, and
    every program it started (its Octave too)."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    mark = new_worker_mark()
    worker = context.Process(target=_check_in_worker, args=(args, sender, os.getpid(), mark), name="mlfs-check")
    worker.start()
    lead_process_group(worker.pid)
    sender.close()
    method = args.method
    try:
        while True:
            # the worker's death ends the wait; neither the pipe nor the worker's sentinel says so
            # while a child of the worker lives on, which holds both open
            while not receiver.poll(_DEATH_POLL) and worker.is_alive():
                pass
            if not receiver.poll():
                break
            try:
                message = json.loads(receiver.recv_bytes())
            except EOFError:
                break
            if "method" in message:
                method = message["method"]
                continue
            if "error" in message:
                raise ConfigError(message["error"])
            print(message["output"], end="")
            return message["code"]
        worker.join()
        print(f"FAIL {method}: the process running its checks ended ({describe_exit(worker)}) before they "
              "finished (os._exit, a signal or a crash in the method's code)")
        return 1
    finally:
        worker.join(1.0)
        end_worker_processes(worker.pid, mark)
        worker.join()


def _check_in_worker(args: argparse.Namespace, sender, parent_pid: int, mark: str) -> None:
    """The worker's side: the checks' output and exit code, or a bad input's message, sent as JSON."""
    code = 0
    carry_worker_mark(mark)
    try:
        become_worker(parent_pid)
        try:
            output, result = _check_here(args, lambda name: sender.send_bytes(json.dumps({"method": name}).encode()))
            message = {"output": output, "code": result}
        except PipelineError as exc:
            message = {"error": str(exc)}
        sender.send_bytes(json.dumps(message).encode())
    except WorkerStopped:  # the command was stopped or its process died
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # threads the method left do not keep the worker alive


def _check_here(args: argparse.Namespace, announce: Callable[[str], None]) -> tuple[str, int]:
    """Load the plug-ins, run the checks; ``announce`` the method once known. Returns (output, exit code)."""
    target = Path(args.method)
    folders = list(args.plugins) + ([str(target.parent)] if target.suffix in (".py", ".m") else [])
    plugins = plugin_paths(folders)
    name = target.stem if target.suffix == ".m" else None
    engine_name = args.engine or ("octave" if target.suffix == ".m" else None)
    names = activate_plugins(plugins, engine_name or "octave", engine_options(CHECK_TIMEOUT, plugins))
    if target.suffix == ".py":
        name = _method_of_file(target.resolve(), names)
    method_spec = get_method(name or args.method)
    announce(method_spec.name)
    engine_name = engine_name or ("python" if method_spec.has_python else "octave")
    check_runnable([method_spec.name], engine_name)
    if engine_name != "python" and method_spec.matlab_function is None:
        raise ConfigError(f"method {method_spec.name} has no MATLAB/Octave implementation", field="--engine")
    with make_engine(engine_name, **(engine_options(CHECK_TIMEOUT, plugins) if engine_name != "python" else {})) as engine:
        if engine_name == "matlab":  # a machine without MATLAB is bad input (exit 2), not a failed check
            from ..engines.matlab import import_matlab_engine

            import_matlab_engine()
        results = check_method(method_spec, engine)
    lines = [f"{method_spec.name} on {engine_name} ({origin_of(method_spec.name)})"] + [r.line() for r in results]
    return "".join(line + "\n" for line in lines), 0 if all(result.passed for result in results) else 1


def _method_of_file(path: Path, names: list[str]) -> str:
    """The one method a Python plug-in file defines."""
    found = [name for name in names if get_method(name).has_python
             and source_file(get_method(name).python_function) == path]
    if len(found) != 1:
        raise ConfigError("the plug-in file must define exactly one method to check", file=path,
                          found=found or "none", expected="one MethodSpec (or name the method)")
    return found[0]


if __name__ == "__main__":
    exit_process(run_main(main))
