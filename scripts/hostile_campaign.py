"""A hostile-input campaign: bad files, arguments and settings thrown at the entry points as real
processes, each outcome classed as fine or as one of the defect classes of issue 26.

    python scripts/hostile_campaign.py --tree . [--only PATTERN] [--jobs 3] [--out report.json]

``--tree`` is the checkout to attack (its ``python/`` and ``matlab/`` folders are used), so the same
campaign can be run against an older checkout for a before/after count. Every case runs in its own
process under an address-space limit (``--memory``, 4 GB) and a time limit; the classes are

- ``silent wrong result``: bad input accepted (exit 0, or Octave loaded it);
- ``traceback``: a Python traceback, or an error that is not one line;
- ``wrong exit code``: refused or failed with another code than documented (docs/reliability.md);
- ``memory blow-up``: killed, out of memory, or out of time (a resource not bounded);
- ``injection``: an output where a name became markup or a formula (LaTeX that does not compile
  or loses a row label, a CSV cell that starts like a formula).

tests/shared/test_hostile_campaign.py runs a representative subset in the test suite.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import scipy.io

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))
from hostile_mat import (MI_UINT8, compressed, file_bytes, lying_bomb, matrix, matrix_head,  # noqa: E402
                         stored_as_uint8, zero_bomb)

#: What an Octave front-door case says when a bad input was refused only after work began.
LATE_REFUSAL = "mlfs:campaign:lateRefusal"
CLASSES = ("silent wrong result", "traceback", "wrong exit code", "memory blow-up", "injection")


@dataclass
class Case:
    """One attack: ``argv`` run with ``python`` (or ``octave`` when ``octave`` is set), the exit code
    expected (0 accepted, 1 a task failed, 2 refused) and an optional check of what it wrote."""

    name: str
    argv: list[str]
    expect: int
    octave: bool = False
    check: Callable[[Path], str | None] | None = None
    timeout: float = 300.0
    env: dict = field(default_factory=dict)


def classify(case: Case, code: int | None, out: str, err: str, work: Path) -> str | None:
    """The defect class of one outcome, or None when it behaved as documented."""
    text = out + err
    if code is None or code < 0 or "MemoryError" in text or "bad_alloc" in text or "out of memory or dimension" in text:
        return "memory blow-up"
    if "Traceback (most recent call last)" in text:
        return "traceback"
    if case.octave:
        verdict = "ACCEPT" if "ACCEPT" in out else "REFUSE" if "REFUSE" in out else None
        if verdict is None:
            return "traceback"
        if LATE_REFUSAL in out:
            return "wrong exit code"
        if (verdict == "ACCEPT") != (case.expect == 0):
            return "silent wrong result" if verdict == "ACCEPT" else "wrong exit code"
        return None
    if case.expect != 0 and code == 0:
        return "silent wrong result"
    if code != case.expect:
        return "wrong exit code"
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    if case.expect == 2 and len(errors) > 1:
        return "traceback"
    if case.check is not None:
        return case.check(work)
    return None


def run_case(case: Case, tree: Path, memory: int, root: Path) -> dict:
    work = root / re.sub(r"[^A-Za-z0-9_.-]", "_", case.name)
    env = {**os.environ, "PYTHONPATH": str(tree / "python"), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           **case.env}

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    if case.octave:
        command = ["octave-cli", "--no-gui", "--quiet", "--no-window-system", "--eval",
                   f"addpath(genpath('{tree / 'matlab'}')); try, {case.argv[0]}; disp('ACCEPT'); "
                   "catch failure, disp(['REFUSE ' failure.identifier]); disp(failure.message); end"]
    else:
        command = [sys.executable, *case.argv]
    try:
        proc = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, errors="replace",
                              timeout=case.timeout, preexec_fn=limited)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = None, str(exc.stdout or ""), str(exc.stderr or "")
    found = classify(case, code, out, err, work)
    said = " ".join(out.split()) if case.octave else (err.strip().splitlines() or out.strip().splitlines() or [""])[-1]
    return {"case": case.name, "expected": case.expect, "exit": code, "class": found, "said": said[:300]}


# -- the files --------------------------------------------------------------------------------------

def _arrays(rng, n_train=30, n_test=10, d=4, labels=2):
    return {"X_train": rng.random((n_train, d)), "Y_train": (rng.random((n_train, labels)) > 0.5) * 1.0,
            "X_test": rng.random((n_test, d)), "Y_test": (rng.random((n_test, labels)) > 0.5) * 1.0}


def _raw(arrays: dict, replace: dict | None = None, extra: tuple = ()) -> bytes:
    replace = replace or {}
    return file_bytes(*(replace.get(k) or compressed(matrix(k, v)) for k, v in arrays.items()), *extra)


def fold_variants() -> dict[str, tuple[Callable[[Path], None], bool]]:
    """name -> (writer of <dir>/<name>/fold0.mat, accepted?)."""
    rng = np.random.default_rng(0)
    variants: dict[str, tuple[Callable[[Path], None], bool]] = {}

    def add(name, accepted, make):
        variants[name] = (make, accepted)

    def savemat(arrays, **options):
        return lambda path: scipy.io.savemat(path, arrays, **options)

    def raw(content):
        return lambda path: path.write_bytes(content)

    base = _arrays(rng)
    add("valid", True, savemat(base, do_compression=True))
    add("valid_uint8_storage", True, raw(_raw(base, {"X_train": compressed(stored_as_uint8("X_train", rng.integers(0, 9, (30, 4))))})))
    for key, value in (("X_train", np.nan), ("X_test", np.inf), ("X_train", -np.inf), ("X_test", 1e300),
                       ("Y_train", 2.0), ("Y_test", -1.0), ("Y_train", 0.5), ("Y_test", np.nan)):
        arrays = {k: v.copy() for k, v in base.items()}
        arrays[key][1, 1] = value
        add(f"{key}_{value}", False, savemat(arrays))
    add("duplicate_X_train", False, raw(_raw(base, extra=(compressed(matrix("X_train", rng.random((30, 4)))),))))
    add("duplicate_Y_test_plain", False, raw(_raw(base, extra=(matrix("Y_test", base["Y_test"]),))))
    add("empty_test_part", False, raw(_raw(base, {"X_test": matrix("X_test", np.zeros((0, 4))),
                                                  "Y_test": matrix("Y_test", np.zeros((0, 2)))})))
    add("empty_train_part", False, raw(_raw(base, {"X_train": matrix("X_train", np.zeros((0, 4))),
                                                   "Y_train": matrix("Y_train", np.zeros((0, 2)))})))
    add("no_features", False, raw(_raw(base, {"X_train": matrix("X_train", np.zeros((30, 0))),
                                              "X_test": matrix("X_test", np.zeros((10, 0)))})))
    add("no_labels", False, raw(_raw(base, {"Y_train": matrix("Y_train", np.zeros((30, 0))),
                                            "Y_test": matrix("Y_test", np.zeros((10, 0)))})))
    add("nul_in_name", False, raw(_raw(base, extra=(matrix("X_train\0x", rng.random((2, 4))),))))
    add("nul_cut_name", False, raw(_raw(base, {"Y_test": matrix("Y_test\0", base["Y_test"])})))
    add("rows_differ", False, savemat({**base, "Y_test": base["Y_test"][:5]}))
    add("columns_differ", False, savemat({**base, "X_test": rng.random((10, 5))}))
    add("missing_key", False, savemat({k: v for k, v in base.items() if k != "Y_test"}))
    add("sparse_X", False, savemat({**base, "X_train": __import__("scipy.sparse").sparse.csr_matrix(base["X_train"])}))
    add("complex_X", False, savemat({**base, "X_train": base["X_train"] * 1j}))
    add("char_Y", False, savemat({**base, "Y_train": np.array(["ab"] * 30)}))
    add("three_d_X", False, savemat({**base, "X_train": rng.random((30, 4, 2))}))
    add("mat_v4", False, savemat(base, format="4"))
    add("truncated", False, lambda path: (scipy.io.savemat(path, base), path.write_bytes(path.read_bytes()[:500])))
    add("not_a_mat_file", False, raw(b"hello world\n" * 20))
    add("empty_file", False, raw(b""))
    add("lying_bomb_3_4_gb", False, raw(_raw(base, {"X_train": lying_bomb("X_train", (20000, 21250), 3_400_000)})))
    add("junk_variable_bomb", False, raw(_raw(base, extra=(lying_bomb("junk", (20000, 21250), 3_400_000),))))
    add("lying_data_tag", False, raw(_raw(base, {"Y_test": compressed(matrix_head("Y_test", (10, 2), data_bytes=80_000_000)[0])})))
    add("uint8_storage_bomb_2_gb", False, raw(file_bytes(
        zero_bomb("X_train", (12_000_000, 20), MI_UINT8), zero_bomb("Y_train", (12_000_000, 2), MI_UINT8),
        compressed(matrix("X_test", rng.random((5, 20)))), compressed(matrix("Y_test", np.ones((5, 2)))))))
    add("corrupt_zlib", False, raw(_raw(base, {"X_train": struct_tag(15, 40) + b"\x78\x9c" + b"\xff" * 38})))
    return variants


def struct_tag(kind: int, n: int) -> bytes:
    return int(kind).to_bytes(4, "little") + int(n).to_bytes(4, "little")


#: Features of the fold the rankings are read against (the "valid" fold of fold_variants: d = 4).
RANKED_FEATURES = 4

RANKINGS = {  # content, accepted (RANKED_FEATURES features: a valid ranking is a permutation of 1..4)
    "valid": (b"3\n1\n4\n2\n", True), "crlf_bom": (b"\xef\xbb\xbf3\r\n1\r\n4\r\n2\r\n", True),
    "repeated": (b"1\n1\n3\n4\n", False), "out_of_range": (b"1\n2\n3\n5\n", False), "zero": (b"0\n1\n2\n3\n", False),
    "negative": (b"-1\n2\n3\n4\n", False), "fraction": (b"1\n2.5\n3\n4\n", False), "inf": (b"1\nInf\n3\n4\n", False),
    "nan": (b"1\nNaN\n3\n4\n", False), "huge_digits": (b"1\n2\n3\n" + b"9" * 4400 + b"\n", False),
    "near_integer": (b"1\n2\n4\n2.9999999999999999999\n", False), "too_short": (b"1\n2\n3\n", False),
    "too_long": (b"1\n2\n3\n4\n1\n", False), "empty": (b"", False), "binary": (bytes(range(256)), False),
    "underscore": (b"1\n1_0\n3\n4\n", False), "complex": (b"1\n2+0i\n3\n4\n", False),
    "huge_file": (b"1\n" * 100_000, False),
}


# -- the cases -------------------------------------------------------------------------------------

def build_cases(root: Path) -> list[Case]:
    cases: list[Case] = []
    data = root / "_data"
    folds = data / "folds"
    rng = np.random.default_rng(1)

    def fold_dir(name: str, make) -> Path:
        path = folds / name / "fold0.mat"
        path.parent.mkdir(parents=True, exist_ok=True)
        make(path)
        return path

    for name, (make, accepted) in fold_variants().items():
        path = fold_dir(name, make)
        cases.append(Case(f"kgrid/fold/{name}", ["-m", "pipeline.kgrid", "--engine", "python", "--methods", "VARIANCE",
                                                 "--no-progress", "--data-dir", str(folds), "--datasets", name,
                                                 "--mlknn-k", "3", "--results-dir", "r"], 0 if accepted else 2))
        cases.append(Case(f"octave/fold/{name}", [f"mlfs_load_fold('{path}')"], 0 if accepted else 2, octave=True))

    good = folds / "valid"
    common = ["--no-progress", "--data-dir", str(folds), "--datasets", "valid", "--mlknn-k", "3"]
    (data / "rankings").mkdir(parents=True)
    for name, (content, accepted) in RANKINGS.items():
        results = data / "rankings" / name
        (results / "EXT").mkdir(parents=True)
        (results / "EXT" / "valid_fold0_ranking.csv").write_bytes(content)
        cases.append(Case(f"evaluate/ranking/{name}", ["-m", "pipeline.evaluate", "--methods", "EXT", *common,
                                                        "--k-min", "1", "--k-max", str(RANKED_FEATURES), "--k-step", "1",
                                                        "--results-dir", str(results)], 0 if accepted else 2))
        path = results / "EXT" / "valid_fold0_ranking.csv"
        cases.append(Case(f"octave/ranking/{name}", [f"mlfs_read_ranking('{path}', {RANKED_FEATURES})"],
                          0 if accepted else 2, octave=True))

    kgrid = ["-m", "pipeline.kgrid", "--engine", "python", "--methods", "VARIANCE", *common, "--results-dir", "r"]
    for name, extra in {
        "k_min_negative": ["--k-min", "-1"], "k_step_zero": ["--k-step", "0"], "k_max_below_min": ["--k-max", "5"],
        "mlknn_k_zero": ["--mlknn-k", "0"], "mlknn_k_above_rows": ["--mlknn-k", "30"], "smooth_nan": ["--mlknn-smooth", "nan"],
        "smooth_negative": ["--mlknn-smooth", "-1"], "smooth_inf": ["--mlknn-smooth", "inf"], "timeout_negative": ["--task-timeout", "-1"],
        "timeout_nan": ["--task-timeout", "nan"], "claim_stale_zero": ["--claim-stale-after", "0"], "jobs_zero": ["--jobs", "0"],
        "folds_zero": ["--folds", "0"], "folds_too_many": ["--folds", "9"], "max_tasks_zero": ["--max-tasks", "0"],
        "scheduler_not_url": ["--executor", "dask", "--scheduler", "not a url"], "scheduler_without_dask": ["--scheduler", "tcp://x:1"],
        "methods_twice": ["--methods", "VARIANCE", "VARIANCE"], "unknown_method": ["--methods", "NOPE"],
        "method_path": ["--methods", "../VARIANCE"], "dataset_path": ["--datasets", "../valid"], "dataset_missing": ["--datasets", "nope"],
        "dataset_newline": ["--datasets", "valid\n"], "huge_int": ["--k-max", "9" * 5000],
    }.items():
        cases.append(Case(f"kgrid/args/{name}", kgrid + extra, 2))
    pgrid = ["-m", "pipeline.pgrid", "--engine", "python", "--methods", "VARIANCE", *common, "--results-dir", "r"]
    for name, extra in {"p_step_tiny": ["--p-step", "1e-300"], "p_min_zero": ["--p-min", "0"], "p_max_above_one": ["--p-max", "2"],
                        "p_target_nan": ["--p-target", "nan"], "p_min_above_max": ["--p-min", "0.6"], "p_step_negative": ["--p-step", "-0.1"]}.items():
        cases.append(Case(f"pgrid/args/{name}", pgrid + extra, 2))
    cases.append(Case("kgrid/resources/jobs_100000_process", kgrid + ["--executor", "process", "--jobs", "100000"], 0, timeout=180))
    cases.append(Case("kgrid/resources/jobs_100000_dask", kgrid + ["--executor", "dask", "--jobs", "100000"], 0, timeout=180))
    cases.append(Case("kgrid/ok/serial", kgrid, 0))
    params = data / "params"
    params.mkdir()
    for name, text in {"not_a_map": "[1, 2]", "unknown_method": '{"NOPE": {}}', "bad_value": '{"SRFS": {"alpha": "x"}}',
                       "nan_value": '{"SRFS": {"alpha": NaN}}', "deep": "[" * 50000 + "]" * 50000,
                       "huge_int": '{"SRFS": {"max_iter": ' + "9" * 5000 + "}}", "empty_sweep": '{"SRFS": {"alpha": []}}',
                       "dup_sweep": '{"SRFS": {"alpha": [0.1, 0.1]}}'}.items():
        (params / f"{name}.json").write_text(text)
        cases.append(Case(f"kgrid/params/{name}", ["-m", "pipeline.kgrid", "--engine", "python", "--methods", "SRFS", *common,
                                                    "--results-dir", "r", "--params", str(params / f"{name}.json")], 2))
    cases += octave_front_door_cases(data)
    cases += table_cases(data)
    cases += stats_cases(data)
    cases += har_cases(data)
    cases += steering_cases(data)
    return cases


def octave_front_door_cases(data: Path) -> list[Case]:
    """run_suite / eval_rankings_matlab called with p-grid bounds or method parameters out of range:
    refused before any task (a results folder left uncreated), as the Python front doors do."""
    folds = data / "folds"
    cases = []

    def front_door(name: str, call: str, expect: int) -> None:
        """``call`` returns the run's summary; a refusal after the run began (its results folder made,
        or a task failed instead) is reported as LATE_REFUSAL, which classify counts as a wrong exit."""
        results = data / "octave_runs" / re.sub(r"[^A-Za-z0-9_]", "_", name)
        checked = (f"try, summary = {call}; catch failure, if exist('{{results}}', 'dir'), "
                   f"error('{LATE_REFUSAL}', 'refused after the run began: %s', failure.message); end, "
                   f"rethrow(failure); end, if summary.failed > 0, "
                   f"error('{LATE_REFUSAL}', 'a failed task instead of a refusal'); end")
        cases.append(Case(f"octave/front_door/{name}", [checked.format(results=results, folds=folds)], expect,
                          octave=True))

    suite = "run_suite('{results}', '{folds}', {{'valid'}}, {{'VARIANCE'}}, 'mlknn_k', 3, 'verbose', false"
    for name, options in {"p_min_zero": "'p_min', 0", "p_max_two": "'p_max', 2", "p_min_negative": "'p_min', -0.1",
                          "p_min_above_max": "'p_min', 0.6, 'p_max', 0.5", "p_target_zero": "'p_target', 0",
                          "p_target_above_one": "'p_target', 1.5", "p_step_above_one": "'p_step', 1.5",
                          "p_max_above_one_kgrid": "'grid', 'kgrid', 'p_max', 1.5"}.items():
        front_door(f"run_suite/{name}", f"{suite}, 'grid', 'pgrid', {options})" if "kgrid" not in name
                   else f"{suite}, {options})", 2)
    front_door("run_suite/pgrid_to_one", f"{suite}, 'grid', 'pgrid', 'p_min', 0.5, 'p_max', 1)", 0)
    (data / "octave_rankings" / "EXT").mkdir(parents=True)
    (data / "octave_rankings" / "EXT" / "valid_fold0_ranking.csv").write_bytes(RANKINGS["valid"][0])
    front_door("eval_rankings/p_max_two", f"eval_rankings_matlab('{data / 'octave_rankings'}', '{{folds}}', {{{{'EXT'}}}}, "
               "{{'valid'}}, 'mlknn_k', 3, 'grid', 'pgrid', 'p_max', 2)", 2)
    ranked = "run_suite('{results}', '{folds}', {{'valid'}}, {{'%s'}}, 'mlknn_k', 3, 'verbose', false, 'params', " \
             "struct('%s', struct(%s)))"
    for method, params in (("LRMFS", "'alpha', -1"), ("LRMFS", "'tol', 1"), ("LRMFS", "'mode', 'fastest'"),
                           ("LRMFS", "'max_iter', 0"), ("LSMFS", "'gamma', 0"), ("GRRO", "'num_bins', 1"),
                           ("SCNMF", "'lambda1', -1"), ("RFSFS", "'divergence_limit', 0"), ("SRFS", "'max_iter', 0"),
                           ("LRDG", "'beta', -0.5")):
        name = f"params/{method}_{params.split(',')[0].strip(chr(39))}"
        front_door(name, ranked % (method, method, params), 2)
    front_door("params/LRMFS_valid", ranked % ("LRMFS", "LRMFS", "'alpha', 0.2, 'max_iter', 2"), 0)
    return cases


def _metrics_set(root: Path, edits: dict[tuple[str, str, int], dict] | None = None) -> Path:
    """A small results folder: methods A, B, C on datasets d1..d3, 2 folds, k = 1..3."""
    for method in ("A", "B", "C"):
        for i, dataset in enumerate(("d1", "d2", "d3")):
            for fold in range(2):
                values = [0.2 + 0.1 * ("ABC".index(method)) + 0.01 * i + 0.001 * fold + 0.001 * k for k in range(3)]
                obj = {"grid_mode": "kgrid", "method": method, "dataset": dataset, "fold": fold, "k_values": [1, 2, 3],
                       "grid": {"k_min": 1, "k_max": 3, "k_step": 1}, "mlknn": {"num": 10, "smooth": 1.0},
                       "provenance": {"fold_sha256": f"{i}{fold}" * 32},
                       **{m: values for m in ("micro_f1", "macro_f1", "hamming_loss", "micro_pr_auc",
                                              "macro_pr_auc", "avg_precision", "one_error")}}
                obj.update((edits or {}).get((method, dataset, fold), {}))
                path = root / method / f"{dataset}_fold{fold}_kgrid_metrics.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(obj))
    return root


def _latex_check(label: str) -> Callable[[Path], str | None]:
    def check(work: Path) -> str | None:
        tex = work / "t" / "table_microf1.tex"
        if not tex.is_file():
            return "wrong exit code"
        doc = work / "doc.tex"
        doc.write_text("\\documentclass{article}\\usepackage{booktabs}\\usepackage{amssymb}\\usepackage{graphicx}"
                       f"\\begin{{document}}\\input{{{tex}}}\\end{{document}}\n")
        proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex"],
                              cwd=work, capture_output=True, timeout=120)
        if proc.returncode != 0:
            return "injection"
        text = subprocess.run(["pdftotext", "-raw", "doc.pdf", "-"], cwd=work, capture_output=True, text=True).stdout
        visible = label.strip()
        return None if visible in text else "injection"
    return check


def table_cases(data: Path) -> list[Case]:
    cases = []
    base = ["-m", "pipeline.tables", "--methods", "A", "B", "C", "--ref-method", "A", "--no-figures", "--out-dir", "t"]
    edits = {
        "grid_k_max": {("B", "d1", 0): {"grid": {"k_min": 1, "k_max": 90, "k_step": 1}}},
        "mlknn_k5": {("C", "d2", 1): {"mlknn": {"num": 5, "smooth": 1.0}}},
        "mlknn_smooth": {("C", "d2", 1): {"mlknn": {"num": 10, "smooth": 0.5}}},
        "other_dataset_inside": {("B", "d1", 0): {"dataset": "d2"}},
        "other_fold_inside": {("B", "d1", 0): {"fold": 1}},
        "other_method_inside": {("B", "d1", 0): {"method": "A"}},
        "other_fold_file": {("B", "d1", 0): {"provenance": {"fold_sha256": "f" * 64}}},
        "bad_digest": {("B", "d1", 0): {"provenance": {"fold_sha256": "xyz"}}},
        "grid_not_object": {("B", "d1", 0): {"grid": "k=1..3"}},
        "curve_nan_string": {("B", "d1", 0): {"micro_f1": ["NaN", 1, 2]}},
    }
    for name, edit in edits.items():
        root = _metrics_set(data / "tables" / name, edit)
        cases.append(Case(f"tables/mixed/{name}", [*base, "--results-dir", str(root)], 2))
    root = _metrics_set(data / "tables" / "clean")
    cases.append(Case("tables/ok/clean", [*base, "--results-dir", str(root)], 0))
    for i, label in enumerate(["[2cm]", "[x]", "*x", "a\u2028b", "para\u2029graph", "``a''--b", "!`?`", "\\end{tabular}",
                               "\\input{/etc/passwd}", "x\u202ey", "%comment", "a&b", "\U0001f600", "\u00d0thorn\u00fe"]):
        display = data / "tables" / f"display{i}.json"
        display.write_text(json.dumps({"B": label}))
        check = _latex_check("[2cm]" if label == "[2cm]" else "[x]" if label == "[x]" else "*x" if label == "*x" else "")
        cases.append(Case(f"tables/label/{label!r}", [*base, "--results-dir", str(root), "--display-map", str(display)],
                          0, check=check))
    return cases


def stats_cases(data: Path) -> list[Case]:
    cases = []
    folder = data / "stats"
    folder.mkdir()
    good = "dataset,A,B,C\nd1,0.1,0.2,0.3\nd2,0.3,0.1,0.2\nd3,0.2,0.3,0.1\n"
    for name, (text, code) in {
        "ok": (good, 0), "duplicate_column": (good.replace(",C\n", ",A\n", 1), 2), "duplicate_block": (good.replace("d3", "d1"), 2),
        "nan": (good.replace("0.3,0.1,0.2", "nan,0.1,0.2"), 2), "inf": (good.replace("0.3,0.1,0.2", "inf,0.1,0.2"), 2),
        "text_cell": (good.replace("0.3,0.1,0.2", "x,0.1,0.2"), 2), "one_method": ("dataset,A\nd1,1\nd2,2\n", 2),
        "one_block": ("dataset,A,B\nd1,1,2\n", 2), "empty": ("", 2), "header_only": ("dataset,A,B\n", 2),
        "not_utf8": ("dataset,A,B\nd1,1,2\nd2,2,1\n\udcff", 2), "huge_number": (good.replace("0.1,0.2,0.3", "1e400,0.2,0.3"), 2),
    }.items():
        path = folder / f"{name}.csv"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        cases.append(Case(f"stats/{name}", ["-m", "pipeline.stats", "--scores", str(path)], code))
    huge = folder / "huge.csv"
    with open(huge, "w") as handle:
        handle.write("dataset,A,B\n")
        handle.write("".join(f"d{i},0.{i % 9},0.5\n" for i in range(1_500_000)))
    cases.append(Case("stats/huge_file", ["-m", "pipeline.stats", "--scores", str(huge)], 2))
    return cases


def har_cases(data: Path) -> list[Case]:
    cases = []
    folder = data / "har"
    folder.mkdir()
    rng = np.random.default_rng(0)
    dataset = folder / "tiny.npz"
    np.savez(dataset, windows=rng.normal(size=(40, 120, 6)), labels=np.arange(40) % 2, activity_names=np.array(["a", "b"]))
    evaluate = ["-m", "pipeline.protocols.har", "evaluate", "--model", "x", "--dataset", str(dataset), "--epochs", "1",
                "--output-dir", "out"]
    for name, (array, code) in {"ok": (rng.normal(size=(40, 4)), 0), "no_dimensions": (np.zeros((40, 0)), 2),
                                "no_time_dimensions": (np.zeros((40, 3, 0)), 2), "near_realmax": (np.full((40, 4), 1e300), 2),
                                "inf": (np.full((40, 4), np.inf), 2), "nan": (np.full((40, 4), np.nan), 2),
                                "complex": (np.ones((40, 4)) * 1j, 2), "wrong_rows": (np.ones((39, 4)), 2),
                                "one_d": (np.ones(40), 2), "strings": (np.array(["a"] * 40), 2)}.items():
        path = folder / f"{name}.npy"
        np.save(path, array)
        cases.append(Case(f"har/embeddings/{name}", [*evaluate, "--embeddings", str(path)], code))
    pickle = folder / "pickle.npy"
    np.save(pickle, np.array([{"a": 1}] * 40, dtype=object), allow_pickle=True)
    cases.append(Case("har/embeddings/object_pickle", [*evaluate, "--embeddings", str(pickle)], 2))
    truncated = folder / "truncated.npy"
    np.save(truncated, np.ones((40, 4)))
    truncated.write_bytes(truncated.read_bytes()[:200])
    cases.append(Case("har/embeddings/truncated", [*evaluate, "--embeddings", str(truncated)], 2))
    huge_windows = folder / "huge_windows.npz"
    windows = np.zeros((40, 120, 6))
    windows[0, 0, 0] = 1e300
    np.savez(huge_windows, windows=windows, labels=np.arange(40) % 2, activity_names=np.array(["a", "b"]))
    cases.append(Case("har/dataset/windows_near_realmax", [*evaluate[:6], str(huge_windows), *evaluate[7:],
                                                           "--embedder", "summary_stats"], 2))
    entry = {"applicable": True, "accuracy": 50.0, "f1_macro": 40.0, "f1_weighted": 45.0, "n_samples": 10,
             "n_train_samples": 2, "n_classes": 2}
    for i, name in enumerate(['=HYPERLINK("http://x","y")', "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3", "\t=1"]):
        results = folder / f"table{i}"
        results.mkdir()
        (results / "a_b_evaluation.json").write_text(json.dumps({"schema_version": 1, "dataset": name, "model": "m",
                                                                 "metrics": {"linear_probe": entry}}))
        cases.append(Case(f"har/table/formula_{i}", ["-m", "pipeline.protocols.har", "table", "--input-dir", str(results),
                                                     "--output-dir", "t"], 0, check=_csv_check("t/results_table.csv")))
    return cases


def _csv_check(relative: str) -> Callable[[Path], str | None]:
    def check(work: Path) -> str | None:
        with open(work / relative, newline="") as handle:
            cells = [cell for row in csv.reader(handle) for cell in row]
        risky = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
        safe = []
        for cell in risky:
            try:
                float(cell)
                safe.append(cell)
            except ValueError:
                pass
        return "injection" if len(risky) > len(safe) else None
    return check


def steering_cases(data: Path) -> list[Case]:
    cases = []
    folder = data / "steering"
    folder.mkdir()
    ids = np.repeat(["s0", "s1", "s2"], 10)
    truth = np.linspace(-1, 1, 30)
    reader = ("import sys; from pipeline.cli import run_main; "
              "from pipeline.protocols.steering.predictions import read_predictions; "
              "sys.exit(run_main(lambda argv: read_predictions(argv[0]) is None, sys.argv[1:]))")
    for name, (pred, code) in {"ok": (truth + 0.1, 0), "inf": (np.where(np.arange(30) == 4, np.inf, truth), 2),
                               "near_realmax": (np.full(30, 1e300), 2), "nan": (np.where(np.arange(30) == 4, np.nan, truth), 2),
                               "minus_inf": (np.full(30, -np.inf), 2)}.items():
        path = folder / f"{name}.csv"
        with np.errstate(invalid="ignore", over="ignore"):
            error = np.abs(truth - pred)
        path.write_text("sample_idx,sequence_id,y_true,y_pred,abs_error\n" + "".join(
            f"{i},{s},{float(t)!r},{float(p)!r},{float(e)!r}\n" for i, (s, t, p, e) in enumerate(zip(ids, truth, pred, error))))
        cases.append(Case(f"steering/predictions/{name}", ["-c", reader, str(path)], code))
    return cases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1], help="checkout to attack")
    parser.add_argument("--only", default=None, help="run the cases whose name contains this")
    parser.add_argument("--jobs", type=int, default=3, help="cases run at once")
    parser.add_argument("--memory", type=int, default=4 << 30, help="address-space limit per case (bytes)")
    parser.add_argument("--out", type=Path, default=None, help="write every outcome to this JSON file")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="mlfs-hostile-"))
    try:
        cases = [c for c in build_cases(root) if args.only is None or args.only in c.name]
        for case in cases:
            (root / re.sub(r"[^A-Za-z0-9_.-]", "_", case.name)).mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(lambda c: run_case(c, args.tree.resolve(), args.memory, root), cases))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    counts = {name: sum(o["class"] == name for o in outcomes) for name in CLASSES}
    for outcome in outcomes:
        if outcome["class"]:
            print(f"{outcome['class']}: {outcome['case']} (exit {outcome['exit']}): {outcome['said']}")
    print(json.dumps({"cases": len(outcomes), "fine": sum(o["class"] is None for o in outcomes), **counts}))
    if args.out:
        args.out.write_text(json.dumps(outcomes, indent=1))
    return 1 if any(counts.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
