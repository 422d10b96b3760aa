"""Hostile arguments and parameter files through the k-grid/p-grid front doors: every one ends with
exit code 2 and one line naming what is wrong, before any task runs; parameter types are checked
against the method's defaults; duplicates and oversized sweeps are refused."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest

from pipeline import kgrid, pgrid
from pipeline.cli import run_main
from pipeline.errors import ConfigError
from pipeline.experiment.model import parameter_variants
from pipeline.limits import MAX_GRID_POINTS, MAX_SEED
from pipeline.methods import available_methods, get_method
from pipeline.runner.tasks import GridSpec, Task


def _run(main, fold_dir, tmp_path, capsys, *extra, methods=("RANDOM",)):
    code = run_main(main, ["--engine", "python", "--no-progress", "--methods", *methods,
                           "--data-dir", str(fold_dir), "--results-dir", str(tmp_path / "res"), *extra])
    return code, capsys.readouterr().err


def _refused(code: int, err: str, *fragments: str) -> None:
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


@pytest.mark.parametrize("extra, fragments", [
    (["--datasets", "d" * 240], ["dataset name too long (expected at most 128 characters"]),
    (["--datasets", "toy\n"], ["invalid dataset name 'toy\\n'"]),
    (["--task-timeout", "-1"], ["field '--task-timeout': out of range (expected a number in (0, 604800]; found -1.0)"]),
    (["--task-timeout", "nan"], ["field '--task-timeout'"]),
    (["--claim-stale-after", "0"], ["field '--claim-stale-after'"]),
    (["--mlknn-smooth", "inf"], ["field '--mlknn-smooth'"]),
    (["--mlknn-k", "0"], ["field '--mlknn-k': out of range (expected a number in [1, 1000]; found 0)"]),
    (["--jobs", "0"], ["field '--jobs'"]),
    (["--folds", "0"], ["field '--folds'"]),
    (["--max-tasks", "0"], ["field '--max-tasks'"]),
    (["--k-min", "0"], ["field '--k-min': out of range (expected a number in [1, 1000000]; found 0)"]),
    (["--k-min", "50", "--k-max", "20"], ["k_min is larger than k_max"]),
    (["--datasets", "toy", "toy"], ["field '--datasets': listed twice (it would run twice) (found toy)"]),
])
def test_bad_arguments_are_refused_before_any_task(fold_dir, tmp_path, capsys, extra, fragments):
    code, err = _run(kgrid.main, fold_dir, tmp_path, capsys, *extra)
    _refused(code, err, *fragments)
    assert not (tmp_path / "res" / "RANDOM").exists()


def test_duplicate_methods_are_refused(fold_dir, tmp_path, capsys):
    code, err = _run(kgrid.main, fold_dir, tmp_path, capsys, methods=("RANDOM", "VARIANCE", "RANDOM"))
    _refused(code, err, "field '--methods': listed twice (it would run twice) (found RANDOM)")


@pytest.mark.parametrize("step", ["1e-300", "1e-5", "nan", "0", "-0.05", "1.5"])
def test_p_step_that_would_explode_or_vanish_is_refused(fold_dir, tmp_path, capsys, step):
    code, err = _run(pgrid.main, fold_dir, tmp_path, capsys, "--p-step", step)
    _refused(code, err, "field '--p-step'")


@pytest.mark.parametrize("extra, fragments", [
    (["--p-min", "0"], ["field '--p-min': out of range (expected a number in (0, 1]; found 0.0)"]),
    (["--p-min", "-0.5", "--p-max", "-0.1"], ["field '--p-min': out of range", "found -0.5"]),
    (["--p-max", "2"], ["field '--p-max': out of range (expected a number in (0, 1]; found 2.0)"]),
    (["--p-max", "1.0000001"], ["field '--p-max'", "found 1.0000001"]),
    (["--p-target", "0"], ["field '--p-target': out of range"]),
    (["--p-target", "1.5"], ["field '--p-target': out of range", "found 1.5"]),
    (["--p-target", "nan"], ["field '--p-target': invalid value (expected a finite number; found nan)"]),
    (["--p-min", "0.6"], ["field '--p-min': p_min is larger than p_max (expected <= p_max = 0.5; found 0.6)"]),
])
def test_p_grid_bounds_are_refused_not_narrowed(fold_dir, tmp_path, capsys, extra, fragments):
    """Any p outside (0, 1] (or p_min > p_max) is the user's error: once the grid was silently cut
    to (0, 1] and a run over --p-max 2 looked like one over --p-max 1."""
    code, err = _run(pgrid.main, fold_dir, tmp_path, capsys, *extra)
    _refused(code, err, *fragments)
    assert not (tmp_path / "res").exists()


def test_p_grid_bounds_refused_by_the_real_command(fold_dir, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pipeline.pgrid", "--engine", "python", "--methods", "RANDOM",
                           "--data-dir", str(fold_dir), "--results-dir", str(tmp_path / "res"), "--p-max", "2"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("error: field '--p-max': out of range (expected a number in (0, 1]; found 2.0)\n")
    assert not (tmp_path / "res").exists()


def test_p_grid_point_cap_is_exact():
    assert GridSpec("pgrid", p_min=0.0001, p_max=1.0, p_step=0.0001)  # 10 000 points
    with pytest.raises(ConfigError, match="too many points"):
        GridSpec("pgrid", p_min=0.0001, p_max=1.0, p_step=0.0000999)
    assert MAX_GRID_POINTS == 10_000


def _params(tmp_path, content, suffix=".json") -> str:
    path = tmp_path / f"params{suffix}"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


@pytest.mark.parametrize("content, fragments", [
    ({"SRFS": {"seed": "abc"}}, ["field 'SRFS.seed': invalid value for parameter 'seed' of method SRFS",
                                 f"expected an integer in [0, {MAX_SEED}]; found 'abc' (str)"]),
    ({"SRFS": {"seed": -1}}, ["found -1 (int)"]),
    ({"LRMFS": {"seed": 2**32}}, [f"found {2**32} (int)"]),
    ({"RANDOM": {"seed": 1.7}}, ["found 1.7 (float)"]),
    ({"SRFS": {"max_iter": 1.7}}, ["'max_iter'", "expected an integer (|value| <= 2**53), like the default 30"]),
    ({"SRFS": {"max_iter": True}}, ["found True (bool)"]),
    ({"SRFS": {"alpha": True}}, ["'alpha'", "expected a finite number, like the default 0.1; found True (bool)"]),
    ({"SRFS": {"alpha": "0.5"}}, ["found '0.5' (str)"]),
    ({"LRMFS": {"mode": 3}}, ["'mode'", "expected a string, like the default 'fast'"]),
    ({"DAGFS": {"paired_penalty": 1}}, ["'paired_penalty'", "expected true or false; found 1 (int)"]),
    ('{"SRFS": {"alpha": NaN}}', ["field 'SRFS.alpha': not a finite number (expected a finite number; found NaN)"]),
    ('{"SRFS": {"alpha": 1e999}}', ["field 'SRFS.alpha': not a finite number"]),
    ({"SRFS": {"alpha": 10**400}}, ["field 'SRFS.alpha': integer too long (expected at most 24 digits"]),
    ({"SRFS": {"alpha": [0.1, 0.2, 0.1]}}, ["field 'SRFS.alpha': value listed twice in the parameter sweep of SRFS"]),
    ({"RANDOM": {"seed": [1, 2, 1]}}, ["value listed twice", "found 1"]),
    ({"SRFS": {"alpha": [1, 1.0]}}, ["value listed twice", "found 1.0"]),
    ({"SRFS": {"alpha": []}}, ["empty value list"]),
    ({"SRFS": {"alpha": [[0.1]]}}, ["found [0.1] (list)"]),
    ({"SRFS": {"alpha": list(range(1, 1001)), "beta": list(range(1, 1001))}},
     ["the parameter sweep of SRFS has 1000000 combinations", "at most 10000 (raise --max-tasks"]),
    ("SRFS:\n  1: 2\n", ["unknown parameter(s) [1] for method SRFS"]),
    ({"NOPE": {}}, ["unknown method 'NOPE'"]),
    ("SRFS:\n  seed: 1.7\n", ["found 1.7 (float)"]),
    ("SRFS:\n  alpha: yes\n", ["found True (bool)"]),
])
def test_bad_parameter_files_are_refused(fold_dir, tmp_path, capsys, content, fragments):
    suffix = ".yaml" if isinstance(content, str) and not content.startswith("{") else ".json"
    method = next(iter(content)) if isinstance(content, dict) else re.match(r'[{"]*(\w+)', content).group(1)
    code, err = _run(kgrid.main, fold_dir, tmp_path, capsys, "--params", _params(tmp_path, content, suffix),
                     methods=(method,))
    _refused(code, err, *fragments)


def test_an_oversized_parameter_file_is_not_read(fold_dir, tmp_path, capsys):
    path = tmp_path / "params.json"
    path.write_text('{"RANDOM": {"seed": 1}}' + " " * (1 << 20))
    code, err = _run(kgrid.main, fold_dir, tmp_path, capsys, "--params", str(path))
    _refused(code, err, "parameter file too large (expected at most 1048576 bytes; found 1048599 bytes)")


def test_max_tasks_caps_the_run_and_lifts_the_cap(fold_dir, tmp_path, capsys):
    params = _params(tmp_path, {"RANDOM": {"seed": [0, 1, 2]}})  # 3 variants x 2 folds = 6 tasks
    code, err = _run(kgrid.main, fold_dir, tmp_path, capsys, "--params", params, "--max-tasks", "5")
    _refused(code, err, "field '--max-tasks': the run has 6 tasks (expected at most 5 (raise --max-tasks")
    assert not (tmp_path / "res" / "RANDOM__seed_0").exists()
    code, err = _run(kgrid.main, fold_dir, tmp_path, capsys, "--params", params, "--max-tasks", "6")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "res").iterdir() if p.is_dir() and p.name != "runs") == [
        "RANDOM__seed_0", "RANDOM__seed_1", "RANDOM__seed_2", "_reference"]


def test_sweep_expansion_is_refused_before_building_combinations():
    with pytest.raises(ConfigError, match="has 1000000 combinations"):
        parameter_variants("SRFS", {"alpha": list(range(1000)), "beta": list(range(1000))}, 999_999)
    assert len(parameter_variants("SRFS", {"alpha": [1, 2], "beta": [3]}, 2)) == 2


_RIGHT = {int: [0, 7, -3, 2**53], float: [0.5, 1, -2, 1e300], bool: [True, False], str: ["x", ""]}
_WRONG = {int: [1.7, True, "3", None, 2**53 + 1, [1]], float: [True, "0.1", math.nan, math.inf, None, [0.1]],
          bool: [1, 0, "true", None], str: [3, None, True, ["a"]]}


@pytest.mark.parametrize("method", available_methods())
def test_every_default_accepts_its_type_and_refuses_others(method):
    spec = get_method(method)
    for name, default in spec.defaults.items():
        kind = type(default)
        right = [0, 1, MAX_SEED] if name == "seed" else _RIGHT[kind]
        wrong = [-1, MAX_SEED + 1, 1.0, True] if name == "seed" else _WRONG[kind]
        allowed = spec.allowed.get(name)
        for value in [v for v in right if allowed is None or allowed.admits(v)]:
            assert spec.resolve_params({name: value})[name] == value
        for value in wrong:
            with pytest.raises(ConfigError, match=f"invalid value for parameter '{name}' of method {method}"):
                spec.resolve_params({name: value})


@pytest.mark.parametrize("method, params", [
    ("LRMFS", {"alpha": -1}), ("LRMFS", {"tol": 1}), ("LRMFS", {"max_iter": 0}), ("LRMFS", {"mode": "slow"}),
    ("LSMFS", {"gamma": 0}), ("LSMFS", {"divergence_limit": 0}), ("SRFS", {"beta": -0.1}),
    ("RFSFS", {"max_iter": -5}), ("SCNMF", {"lambda1": -1}), ("LRDG", {"gamma": -2}), ("GRRO", {"num_bins": 1}),
    ("DAGFS", {"transfer_graph": "undirected"}), ("DAGFS", {"feature_lift": "x" * 9000}), ("DAGFS", {"topK": 0}),
])
def test_parameter_ranges_are_user_errors_at_the_door(fold_dir, tmp_path, capsys, method, params):
    code, err = _run(kgrid.main, fold_dir, tmp_path, capsys, "--params", _params(tmp_path, {method: params}),
                     methods=(method,))
    (name,) = params
    _refused(code, err, f"field '{method}.{name}': value out of range for parameter '{name}' of method {method}")
    assert len(err) < 1000 and not (tmp_path / "res" / method).exists()


def test_unknown_keys_of_mixed_types_are_listed():
    with pytest.raises(ConfigError, match=r"unknown parameter\(s\) \[1, 'x'\] for method SRFS"):
        get_method("SRFS").resolve_params({1: 2, "x": 3, "alpha": 0.5})


@pytest.mark.parametrize("kwargs, fragment", [
    ({"fold": 1.5}, "fold index must be an integer >= 0"),
    ({"fold": True}, "fold index must be an integer >= 0"),
    ({"fold": -1}, "fold index must be an integer >= 0"),
    ({"params_json": "[1, 2]"}, "task parameters must be a JSON object"),
    ({"params_json": "{not json"}, "task parameters must be a JSON object"),
    ({"dataset": "toy\n"}, "invalid dataset name"),
    ({"label": "SRFS__alpha_0.1\n"}, "invalid method label name"),
])
def test_tasks_validate_their_fields(kwargs, fragment):
    fields = {"method": "SRFS", "dataset": "toy", "fold": 0, **kwargs}
    with pytest.raises(ConfigError, match=fragment):
        Task(**fields)
