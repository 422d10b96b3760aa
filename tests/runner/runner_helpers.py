"""Helpers for the runner and CLI tests: small real fold files, timing-free result snapshots, and
watching real runs (their claims, processes and summary lines)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from pipeline.data.folds import save_fold
from pipeline.results.digest import DIGEST_FIELD

#: The mark of a parametrised variant whose every value is also in a fast-lane variant of the same
#: test (each signal, executor, ... stays in the fast lane, not each combination: 3-6 s a run of a
#: real command); ``make test`` runs every combination.
PAIR_IN_MAKE_TEST = pytest.mark.slow


def make_fold_dir(root: Path, dataset: str = "toy", n_folds: int = 2, n_train: int = 60, n_test: int = 30,
                  d: int = 25, n_labels: int = 4, seed: int = 0) -> Path:
    """Write ``root/<dataset>/fold{i}.mat`` with planted label structure; return ``root``."""
    rng = np.random.default_rng(seed)
    for i in range(n_folds):
        X = rng.random((n_train + n_test, d))
        Y = (X[:, :n_labels] + 0.3 * rng.random((n_train + n_test, n_labels)) > 0.8).astype(np.int8)
        save_fold(root / dataset / f"fold{i}.mat", X[:n_train], Y[:n_train], X[n_train:], Y[n_train:])
    return root


def result_contents(root: Path) -> dict[str, object]:
    """Every result file under ``root`` minus timing: JSON parsed without timing fields and without a
    metrics file's ``content_sha256`` (a digest of the whole file, timings included), text as is.

    The run history (``runs/``) and ``failures.json`` describe runs, not results, and are left out.
    """
    contents: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        if (not path.is_file() or path.name == "failures.json" or path.name.endswith("_time.txt")
                or path.relative_to(root).parts[0] == "runs"):
            continue
        rel = str(path.relative_to(root))
        if path.suffix == ".json":
            record = json.loads(path.read_text())
            contents[rel] = {key: value for key, value in record.items()
                             if not key.startswith("time_") and key != DIGEST_FIELD}
        else:
            contents[rel] = path.read_text()
    return contents


def kgrid_command(folds: Path, results: Path, *extra: str) -> list[str]:
    """``python -m pipeline.kgrid`` on ``folds`` writing to ``results``, without progress bar."""
    return [sys.executable, "-m", "pipeline.kgrid", "--no-progress", "--data-dir", str(folds),
            "--results-dir", str(results), *extra]


def wait_until(condition, what: str, proc: subprocess.Popen | None = None, limit: float = 300.0):
    """Poll ``condition()`` until it returns something truthy; fail if ``proc`` ends first.

    ``limit`` only guards against a hang (the machine is shared and slow): it is no speed check.
    """
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the run ended (exit {proc.returncode}) before {what}: "
                                 f"{proc.stderr.read() if proc.stderr else ''}")
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def running_claims(results: Path) -> list[dict]:
    """The content of every task claim under ``results`` (the tasks being computed now)."""
    found = []
    for path in results.glob("*/.*.claim"):
        try:
            found.append(json.loads(path.read_text()))
        except (OSError, ValueError):  # released or being written this instant
            continue
    return found


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def survivors(processes: list[psutil.Process], limit: float = 60.0) -> list[psutil.Process]:
    """Those of ``processes`` still running (zombies aside) after waiting up to ``limit`` s."""
    _, alive = psutil.wait_procs(processes, timeout=limit)
    return [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def summary_counts(stderr: str) -> dict[str, int]:
    """The counts of the run's summary line ``N done, N skipped, N done elsewhere, ...``."""
    line = next(line for line in stderr.splitlines() if " done, " in line and " -> " in line)
    return {name: int(count) for count, name in
            (part.split(" ", 1) for part in line.split(" -> ")[0].split(", "))}


def scratch_dirs_of(pids: list[int]) -> list[Path]:
    """Scratch folders (``<scratch root>/mlfs.<pid>-...``) that belong to ``pids``."""
    from pipeline.fileio import scratch_root

    return [path for pid in pids for path in scratch_root().glob(f"mlfs.{pid}-*")]


def python_plugin(folder: Path, name: str, scores_body: str, at_import: str = "") -> Path:
    """A plug-in folder holding one Python method ``name`` whose scores function runs ``scores_body``
    (statements; the variance of ``X`` is returned after them), its module running ``at_import``
    when imported. Returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    body = "\n".join("    " + line for line in textwrap.dedent(scores_body).strip().splitlines())
    (folder / f"{name.lower()}.py").write_text(
        "import os, signal, subprocess, sys, threading, time\n"
        "from pipeline.methods.base import MethodSpec\n"
        f"{textwrap.dedent(at_import).strip()}\n"
        f"def scores(X, Y, params):\n{body}\n    return X.var(axis=0)\n"
        f"{name} = MethodSpec(name={name!r}, scores=scores)\n")
    return folder


def alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` that still run (zombies aside)."""
    found = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                found.append(pid)
        except psutil.NoSuchProcess:
            pass
    return found


def record_calls(monkeypatch, owner, name: str, log: Path, note=lambda self, *args, **kwargs: ""):
    """Wrap the method ``owner.name`` so that each call appends ``note(self, *args, **kwargs)``,
    taken after the call, as a line to ``log``: tasks run in worker processes, where a list of the
    test's process would not see them. Returns a function giving the lines written so far."""
    original = getattr(owner, name)

    def recorded(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        with open(log, "a") as handle:
            handle.write(f"{note(self, *args, **kwargs)}\n")
        return result

    monkeypatch.setattr(owner, name, recorded)
    return lambda: log.read_text().splitlines() if log.exists() else []
