"""Result files read back by both front doors alike (real GNU Octave): a metrics file damaged in
place is refused by the Python schema (pipeline.results.schema) exactly when the Octave twin
(mlfs_metrics_status) finds it invalid, so both front doors recompute the same tasks on resume; and
a result file nested deeply enough to crash Octave's jsondecode is refused before it is parsed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from matlab_test_paths import REPO
from pipeline.cli import run_main
from pipeline.errors import DataError, EngineError
from pipeline.kgrid import main as kgrid_main
from pipeline.results.schema import absent_metrics, read_metrics_file

pytestmark = pytest.mark.octave

#: key -> damaged value (the workspace's file has 3 grid points); None as value deletes the key.
DAMAGES = {
    "micro_f1 text entry": ("micro_f1", [0.5, "0.5", 0.5]),
    "hamming_loss boolean entry": ("hamming_loss", [0.1, True, 0.1]),
    "macro_f1 short": ("macro_f1", [0.5, 0.5]),
    "one_error null": ("one_error", None),
    "coverage absent": ("coverage", ...),
    "negative time": ("time_rank_seconds", -3.0),
    "text time": ("time_rank_seconds", "fast"),
    "degenerate as numbers": ("degenerate", [0, 0, 0]),
    "fractional counts": ("n_constant_selected", [0.5, 0, 0]),
    "check incomplete": ("n_constant_features", ...),
    "fractional k": ("k_values", [10, 20.5, 30]),
    "empty grid": ("k_values", []),
    "other grid mode": ("grid_mode", "pgrid"),
    "fold digest": ("provenance", {"fold_sha256": "not hex"}),
}
UNDAMAGED = {"null entries": ("macro_pr_auc", [None, 0.5, None]), "no time": ("time_rank_seconds", None)}


@pytest.fixture(scope="module")
def metrics(tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("results")
    assert run_main(kgrid_main, ["--engine", "python", "--methods", "VARIANCE", "--datasets", "demo", "--folds", "1",
                                 "--data-dir", str(REPO / "data" / "paper_matlab_minmax"), "--results-dir",
                                 str(results), "--k-max", "30", "--no-progress"]) == 0
    return json.loads((results / "VARIANCE" / "demo_fold0_kgrid_metrics.json").read_text())


def _write(tmp_path: Path, record: dict, key: str, value) -> Path:
    changed = {k: v for k, v in record.items() if k != key}
    if value is not ...:
        changed[key] = value
    path = tmp_path / "demo_fold0_kgrid_metrics.json"
    path.write_text(json.dumps(changed))
    return path


def _python_keeps(path: Path) -> bool:
    """Whether the Python runner could keep the file: it passes the schema and holds every metric
    (a file that predates one is read by the tables, but scored again by a run)."""
    try:
        return not absent_metrics(read_metrics_file(path, "kgrid"))
    except DataError:
        return False


def _octave_status(octave, path: Path, record: dict) -> str:
    status, _ = octave.call("mlfs_metrics_status", str(path), "kgrid", {"mlknn": record["mlknn"]}, nout=2)
    return status


@pytest.mark.parametrize("case", [*DAMAGES, *UNDAMAGED])
def test_both_front_doors_judge_a_metrics_file_alike(octave, metrics, tmp_path, case):
    key, value = {**DAMAGES, **UNDAMAGED}[case]
    path = _write(tmp_path, metrics, key, value)
    python, octave_status = _python_keeps(path), _octave_status(octave, path, metrics)
    assert (python, octave_status) == ((False, "invalid") if case in DAMAGES else (True, "ok"))


def test_a_result_file_too_deep_for_jsondecode_is_refused_before_parsing(octave, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "b": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(EngineError, match=r"nested too deeply \(expected at most 32 levels; found 100001\)"):
        octave.call("mlfs_read_result_json", str(path), "metrics file", nout=1)
    status, _ = octave.call("mlfs_metrics_status", str(path), "kgrid", {"mlknn": {"num": 10.0}}, nout=2)
    assert status == "invalid"  # and Octave is still there to say so
    path.write_text('{"note": "a [bracket in a string", "nested": [[["\\"[[["]]]}')
    (record,) = octave.call("mlfs_read_result_json", str(path), "metrics file", nout=1)
    assert record["note"] == "a [bracket in a string"


def test_run_suite_leaves_out_info_the_strict_reader_would_refuse(octave, tmp_path):
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "CHATTYM.m").write_text(
        "function [ranking, info] = CHATTYM(X, Y, params, init)\n"
        "  if nargin == 0\n    ranking = struct();\n    return\n  end\n"
        "  deep = {1};\n  for i = 1:40\n    deep = {deep};\n  end\n"
        "  scores = var(X, 0, 1);\n  ranking = mlfs_rank_scores(scores, 'CHATTYM');\n"
        "  info = struct('scores', scores, 'log', repmat('x', 1, 20000), 'deep', {deep}, 'iterations', 3);\n"
        "end\n")
    data = str(REPO / "data" / "paper_matlab_minmax")
    arguments = (str(tmp_path / "results"), data, ["demo"], ["CHATTYM"], "folds", 1.0, "verbose", False,
                 "k_max", 30.0, "plugins", [str(folder)])
    (first,) = octave.call("run_suite", *arguments, nout=1)
    record = json.loads((tmp_path / "results" / "CHATTYM" / "demo_fold0_ranking.json").read_text())
    assert first["done"] == 1 and record["info"] == {"iterations": 3.0}
    (again,) = octave.call("run_suite", *arguments, "skip_existing", True, nout=1)
    octave.call("rmpath", str(folder), nout=0)
    assert (again["skipped"], again["done"]) == (1, 0)
