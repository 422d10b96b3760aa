"""run_suite / run_baseline / eval_rankings_matlab in a real Octave: the results layout, the
parity of its files with the Python front door, failures that stay local, and skip/overwrite."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from matlab_test_paths import FIXTURES, REPO
from pipeline.engines.octave import from_engine_value
from pipeline.errors import EngineError
from pipeline.fileio import dumps_json
from pipeline.methods.base import MethodSpec
from pipeline.runner.executors import run_all
from pipeline.runner.manifest import write_failures
from pipeline.runner.run import RunSettings
from pipeline.runner.tasks import GridSpec, Task

pytestmark = pytest.mark.octave

DATA = REPO / "data" / "paper_matlab_minmax"
METRICS = ("micro_f1", "macro_f1", "hamming_loss", "micro_pr_auc", "macro_pr_auc", "avg_precision",
           "one_error")
# the digest of each file covers its timings and provenance too
NOT_COMPARED = ("time_eval_seconds", "time_rank_seconds", "time_rank_overhead_seconds", "provenance", "content_sha256")
K_ARGS = ["--k-min", "10", "--k-max", "60", "--k-step", "10"]


def run_octave_suite(octave, function, results, methods, *options):
    options = list(options)
    if function == "run_suite":
        args = (str(results), str(DATA), ["demo"], methods)
    else:
        args = (str(results), str(DATA), methods, ["demo"])
    (summary,) = octave.call(function, *args, "folds", 2.0, "verbose", False, *options, nout=1)
    return summary


def run_cli(module, results, *args):
    command = [sys.executable, "-m", module, "--datasets", "demo", "--folds", "2", "--data-dir", str(DATA),
               "--results-dir", str(results), "--no-progress", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=300)


def comparable(path: Path) -> dict:
    record = json.loads(path.read_text())
    for key in NOT_COMPARED:
        record.pop(key, None)
    return record


def result_files(root: Path) -> list[Path]:
    """Result files (not the run history, not temporaries, not the all-features reference, which only the
    Python runner writes)."""
    return sorted(p.relative_to(root) for p in root.glob("*/*")
                  if not p.name.startswith(".") and p.parent.name not in ("runs", "_reference"))


def test_run_suite_writes_the_same_files_as_the_python_cli(octave, tmp_path):
    octave_dir, cli_dir, native_dir = tmp_path / "octave", tmp_path / "cli", tmp_path / "native"
    # GRRO (a real baseline with defaults) checks that the resolved parameters agree too.
    methods = ["VARIANCE", "LABELCORR", "GRRO"]
    summary = run_octave_suite(octave, "run_suite", octave_dir, methods, "k_min", 10.0, "k_max", 60.0,
                               "k_step", 10.0)
    assert summary["done"] == 6 and summary["failed"] == 0
    done = run_cli("pipeline.kgrid", cli_dir, "--engine", "octave", "--evaluator", "octave",
                   "--methods", *methods, *K_ARGS)
    assert done.returncode == 0, done.stderr
    done = run_cli("pipeline.kgrid", native_dir, "--engine", "octave", "--methods", *methods, *K_ARGS)
    assert done.returncode == 0, done.stderr

    files = result_files(octave_dir)
    assert files == result_files(cli_dir) == result_files(native_dir)
    assert sorted(str(f) for f in files) == sorted(
        f"{m}/demo_fold{i}_{kind}" for m in methods for i in (0, 1)
        for kind in ("scores.csv", "ranking.csv", "ranking.json", "time.txt", "kgrid_metrics.json"))
    for rel in files:
        if rel.name.endswith("_ranking.json"):   # what made the ranking: the same code, parameters and data
            records = [json.loads((root / rel).read_text()) for root in (octave_dir, cli_dir, native_dir)]
            first = records[0]
            assert all([r["code"], r["params"], r["engine"], r["training_sha256"]] ==
                       [first["code"], first["params"], "octave", first["training_sha256"]] for r in records)
        elif rel.suffix == ".csv":
            assert (octave_dir / rel).read_bytes() == (cli_dir / rel).read_bytes() == (native_dir / rel).read_bytes()
        elif rel.suffix == ".json":
            # the native and the Octave evaluators agree to the bit: every field but timings and provenance
            assert comparable(octave_dir / rel) == comparable(cli_dir / rel) == comparable(native_dir / rel), rel
        else:
            assert float((octave_dir / rel).read_text()) >= 0
    raw = (octave_dir / files[0].with_name("demo_fold0_kgrid_metrics.json")).read_text()
    assert raw == dumps_json(json.loads(raw))           # strict, sorted, indented like the Python writer


def test_pgrid_and_external_rankings_match_the_python_cli(octave, tmp_path):
    ours, theirs = tmp_path / "octave", tmp_path / "cli"
    for root in (ours, theirs):
        for fold in (0, 1):
            ranking = np.random.default_rng(fold).permutation(120) + 1
            target = root / "EXTERNAL" / f"demo_fold{fold}_ranking.csv"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("".join(f"{v}\n" for v in ranking))
    summary = run_octave_suite(octave, "eval_rankings_matlab", ours, ["EXTERNAL"], "grid", "pgrid")
    assert summary["done"] == 2
    done = run_cli("pipeline.evaluate", theirs, "--grid", "pgrid", "--evaluator", "octave", "--methods", "EXTERNAL")
    assert done.returncode == 0, done.stderr
    for fold in (0, 1):
        rel = Path("EXTERNAL") / f"demo_fold{fold}_pgrid_metrics.json"
        mine = comparable(ours / rel)
        assert mine == comparable(theirs / rel)
        assert mine["k_values"] == [6, 12, 18, 24, 30, 36, 42, 48, 54, 60]
        assert mine["p_values"][2] == 0.15000000000000002 and mine["p_target_used"] == 0.2


def test_a_failing_method_fails_alone_with_a_readable_report(octave, tmp_path):
    results = tmp_path / "run"
    summary = run_octave_suite(octave, "run_suite", results, ["MLFS_TEST_ERROR", "VARIANCE", "MLFS_TEST_BADRANK"],
                               "k_max", 30.0)
    assert (summary["done"], summary["failed"]) == (2, 4)
    report = json.loads((results / "failures.json").read_text())["failed"]
    by_task = {entry["task"]: entry for entry in report}
    assert sorted(by_task) == ["MLFS_TEST_BADRANK/demo/fold0", "MLFS_TEST_BADRANK/demo/fold1",
                               "MLFS_TEST_ERROR/demo/fold0", "MLFS_TEST_ERROR/demo/fold1"]
    error = by_task["MLFS_TEST_ERROR/demo/fold1"]
    assert error["error_type"] == "mlfs:task:methodFailed" and error["fold"] == 1
    assert "deliberate failure on a 320x120 training set" in error["message"]
    assert "[mlfs_test:boom]" in error["message"]
    assert by_task["MLFS_TEST_BADRANK/demo/fold0"]["error_type"] == "mlfs:ranking:zeroBased"
    assert (results / "VARIANCE" / "demo_fold1_kgrid_metrics.json").is_file()
    assert not (results / "MLFS_TEST_BADRANK" / "demo_fold0_ranking.csv").exists()
    assert not list(results.rglob("*.tmp"))
    (record,) = (results / "runs").glob("*.json")
    manifest = json.loads(record.read_text())
    assert manifest["summary"] == {"done": 2, "failed": 4, "skipped": 0}
    assert manifest["finished"] is not None and manifest["arguments"]["methods"][1] == "VARIANCE"
    assert manifest["versions"]["blas"] and manifest["git"]["commit"]
    log = (results / "runs" / manifest["log"]).read_text().splitlines()
    assert len(log) == 6 and sum(" failed MLFS_TEST_ERROR/demo/fold" in line for line in log) == 2


def _bad_output_through_both_doors(octave, tmp_path, fixture: str) -> tuple[dict, str]:
    """run_suite's failure entry for fold 0 of a fixture method whose output must be refused, and the
    stderr of the Python front door running the same file as a plug-in (each fails both folds)."""
    summary = run_octave_suite(octave, "run_suite", tmp_path / "octave", [fixture], "k_max", 30.0)
    assert (summary["done"], summary["failed"]) == (0, 2)
    (entry, _) = json.loads((tmp_path / "octave" / "failures.json").read_text())["failed"]
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(FIXTURES / f"{fixture}.m", plugins)
    done = run_cli("pipeline.kgrid", tmp_path / "python", "--engine", "octave", "--methods", fixture,
                   "--plugins", str(plugins), "--k-max", "30")
    assert done.returncode == 1, done.stderr
    assert not (tmp_path / "python" / fixture / "demo_fold0_ranking.csv").exists()
    return entry, done.stderr


def test_complex_scores_fail_their_task_in_both_front_doors(octave, tmp_path):
    entry, stderr = _bad_output_through_both_doors(octave, tmp_path, "MLFS_TEST_COMPLEX")
    assert entry["error_type"] == "mlfs:task:badScores" and "finite real feature scores" in entry["message"]
    assert "feature scores must be real numbers" in stderr and "complex128" in stderr


def test_scores_the_ranking_does_not_sort_fail_their_task_in_both_front_doors(octave, tmp_path):
    entry, stderr = _bad_output_through_both_doors(octave, tmp_path, "MLFS_TEST_UNSORTED")
    assert entry["error_type"] == "mlfs:task:unsortedScores"
    message = "the ranking does not sort the scores (decreasing): feature 2 (score 2) ranked after feature 1 (score 1)"
    assert message in entry["message"] and message.replace(": feature", " (expected info['scores'] non-increasing "
                                                                       "along the ranking; found feature") in stderr


def test_skip_existing_keeps_only_complete_files(octave, tmp_path):
    results = tmp_path / "run"
    assert run_octave_suite(octave, "run_suite", results, ["VARIANCE"], "k_max", 30.0)["done"] == 2
    metrics = results / "VARIANCE" / "demo_fold0_kgrid_metrics.json"
    first = metrics.read_text()
    again = run_octave_suite(octave, "run_suite", results, ["VARIANCE"], "k_max", 30.0, "skip_existing", True)
    assert (again["skipped"], again["done"]) == (2, 0) and metrics.read_text() == first
    metrics.write_text(first[: len(first) // 2])                      # a truncated file is not complete
    again = run_octave_suite(octave, "run_suite", results, ["VARIANCE"], "k_max", 30.0, "skip_existing", True)
    assert (again["skipped"], again["done"]) == (1, 1)
    recomputed, original = comparable(metrics), json.loads(first)
    for record in (original,):
        for key in NOT_COMPARED:
            record.pop(key)
    assert recomputed == original
    assert not list(results.rglob("*.tmp"))


def test_changed_settings_need_overwrite(octave, tmp_path):
    results = tmp_path / "run"
    run_octave_suite(octave, "run_suite", results, ["VARIANCE"], "k_max", 30.0)
    changed = run_octave_suite(octave, "run_suite", results, ["VARIANCE"], "k_max", 30.0, "mlknn_k", 5.0)
    assert changed["failed"] == 2
    assert from_engine_value(changed["failures"])[0]["error_type"] == "mlfs:task:differentSettings"
    replaced = run_octave_suite(octave, "run_suite", results, ["VARIANCE"], "k_max", 30.0, "mlknn_k", 5.0,
                                "overwrite", True)
    assert replaced["done"] == 2 and not (results / "failures.json").exists()
    record = json.loads((results / "VARIANCE" / "demo_fold0_kgrid_metrics.json").read_text())
    assert record["mlknn"] == {"num": 5, "smooth": 1.0}


@pytest.mark.parametrize("args,identifier", [
    (("fold", 2.0), "mlfs:run_suite:unknownOption"),
    (("k_min", -1.0), "mlfs:run_suite:badValue"),
    (("grid", "xgrid"), "mlfs:run_suite:badValue"),
    (("k_min", 50.0, "k_max", 20.0), "mlfs:run_suite:badValue"),
    (("skip_existing",), "mlfs:run_suite:oddArguments"),
    (("folds", 9.0), "mlfs:fold:missing"),
])
def test_run_suite_option_errors(octave, tmp_path, args, identifier):
    with pytest.raises(EngineError, match=identifier):
        octave.call("run_suite", str(tmp_path), str(DATA), ["demo"], ["VARIANCE"], *args, nout=1)


@pytest.mark.parametrize("args, message", [
    (("p_min", 0.0), "run_suite: option 'p_min' out of range (expected a number in (0, 1]; found 0)"),
    (("p_max", 2.0), "run_suite: option 'p_max' out of range (expected a number in (0, 1]; found 2)"),
    (("p_target", 1.5), "run_suite: option 'p_target' out of range (expected a number in (0, 1]; found 1.5)"),
    (("p_step", 1.5), "run_suite: option 'p_step' out of range"),
    (("p_min", 0.6, "p_max", 0.5), "run_suite: option 'p_min' is larger than p_max (expected <= p_max = 0.5; found 0.6)"),
])
def test_run_suite_refuses_p_grid_bounds_before_any_work(octave, tmp_path, args, message):
    """As the Python front doors: a p outside (0, 1] is refused, not narrowed to the values that fit."""
    results = tmp_path / "never"
    with pytest.raises(EngineError, match="mlfs:run_suite:badValue") as refused:
        octave.call("run_suite", str(results), str(DATA), ["demo"], ["VARIANCE"], "grid", "pgrid", *args, nout=1)
    assert message in str(refused.value)
    assert not results.exists()


def test_octave_front_doors_refuse_parameters_out_of_range_before_any_task(octave, tmp_path):
    """Python's words, the method, the parameter, the range and the value; no results folder made."""
    results = tmp_path / "never"
    with pytest.raises(EngineError, match="mlfs:LRMFS:badParameter") as refused:
        octave.call("run_suite", str(results), str(DATA), ["demo"], ["VARIANCE", "LRMFS"], "params",
                    {"LRMFS": {"alpha": -1.0}}, nout=1)
    assert ("LRMFS: value out of range for parameter 'alpha' of method LRMFS (expected >= 0; found -1)"
            in str(refused.value))
    assert not results.exists()
    with pytest.raises(EngineError, match="mlfs:LSMFS:badParameter") as refused:
        octave.call("run_baseline", str(results), str(DATA), "LSMFS", "demo", 0.0, "params",
                    {"LSMFS": {"gamma": 0.0}}, nout=1)
    assert "(expected > 0; found 0)" in str(refused.value)
    assert not results.exists()


def test_unsafe_names_and_missing_folders_are_rejected(octave, tmp_path):
    with pytest.raises(EngineError, match="mlfs:badName"):
        octave.call("run_suite", str(tmp_path), str(DATA), ["demo"], ["../VARIANCE"], nout=1)
    with pytest.raises(EngineError, match="mlfs:badName"):
        octave.call("run_baseline", str(tmp_path), str(DATA), "VARIANCE", "de/mo", 0.0, nout=1)
    with pytest.raises(EngineError, match="mlfs:run_suite:missingFolder"):
        octave.call("run_suite", str(tmp_path), str(tmp_path / "nope"), ["demo"], ["VARIANCE"], nout=1)
    with pytest.raises(EngineError, match="mlfs:eval_rankings_matlab:missingFolder"):
        octave.call("eval_rankings_matlab", str(tmp_path), str(DATA), ["NOPE"], ["demo"], nout=1)


def test_python_front_door_survives_a_hanging_octave_method(tmp_path, monkeypatch):
    """With --engine octave a hanging method times out, fails its task only, and the run goes on."""
    import pipeline.runner.run as run_module

    hang = MethodSpec(name="HANG", matlab_function="MLFS_TEST_HANG", plugin_dir=str(FIXTURES))
    real_get_method = run_module.get_method
    monkeypatch.setattr(run_module, "get_method", lambda name: hang if name == "HANG" else real_get_method(name))
    settings = RunSettings(data_dir=str(DATA), results_dir=str(tmp_path), grids=(GridSpec("kgrid", k_max=30),),
                           engine="octave", evaluator="native",
                           engine_options={"timeout": 3.0, "extra_paths": [str(FIXTURES)]})
    tasks = [Task("HANG", "demo", 0), Task("VARIANCE", "demo", 0)]
    outcomes = {o.task.key: o for o in run_all(tasks, settings, "serial", 1, progress=False)}
    assert outcomes["HANG/demo/fold0"].status == "failed"
    assert "HANG/demo/fold0: MLFS_TEST_HANG timed out in Octave" in outcomes["HANG/demo/fold0"].message
    assert outcomes["VARIANCE/demo/fold0"].status == "done"
    write_failures(tmp_path, list(outcomes.values()))
    report = json.loads((tmp_path / "failures.json").read_text())["failed"]
    assert [entry["task"] for entry in report] == ["HANG/demo/fold0"]
    assert (tmp_path / "VARIANCE" / "demo_fold0_kgrid_metrics.json").is_file()


def test_resolved_parameters_are_recorded_and_checked(octave, tmp_path):
    """A method's info.params (defaults merged with the given ones) is what "params" records, as in
    Python; a rerun compares the given parameters with it."""
    results = tmp_path / "run"
    given = {"MLFS_TEST_DEFAULTS": {"alpha": 0.25}}
    metrics = results / "MLFS_TEST_DEFAULTS" / "demo_fold0_kgrid_metrics.json"
    run_octave_suite(octave, "run_suite", results, ["MLFS_TEST_DEFAULTS"], "k_max", 20.0, "params", given)
    assert json.loads(metrics.read_text())["params"] == {"alpha": 0.25, "max_iter": 40}
    skipped = run_octave_suite(octave, "run_suite", results, ["MLFS_TEST_DEFAULTS"], "k_max", 20.0,
                               "params", given, "skip_existing", True)
    assert skipped["skipped"] == 2
    reused = run_octave_suite(octave, "run_suite", results, ["MLFS_TEST_DEFAULTS"], "k_max", 20.0, "params", given)
    assert reused["done"] == 2                                  # ranking reused, metrics recomputed
    assert json.loads(metrics.read_text())["params"] == {"alpha": 0.25, "max_iter": 40}
    changed = run_octave_suite(octave, "run_suite", results, ["MLFS_TEST_DEFAULTS"], "k_max", 20.0,
                               "params", {"MLFS_TEST_DEFAULTS": {"alpha": 0.75}})
    assert changed["failed"] == 2
    assert from_engine_value(changed["failures"])[0]["error_type"] == "mlfs:task:differentSettings"


def test_skip_existing_with_a_baseline_run_on_its_defaults(octave, tmp_path):
    """run_suite records a baseline's resolved defaults; a rerun with no params must still skip."""
    results = tmp_path / "run"
    assert run_octave_suite(octave, "run_suite", results, ["GRRO"], "k_max", 20.0)["done"] == 2
    assert json.loads((results / "GRRO" / "demo_fold0_kgrid_metrics.json").read_text())["params"]["alpha"] == 100
    again = run_octave_suite(octave, "run_suite", results, ["GRRO"], "k_max", 20.0, "skip_existing", True)
    assert (again["skipped"], again["done"]) == (2, 0)


def test_each_call_adds_its_own_run_record(octave, tmp_path):
    """eval_rankings_matlab after run_suite keeps run_suite's record (nothing is overwritten)."""
    results = tmp_path / "run"
    run_octave_suite(octave, "run_suite", results, ["VARIANCE"], "k_max", 20.0)
    run_octave_suite(octave, "eval_rankings_matlab", results, ["VARIANCE"], "k_max", 20.0, "grid", "pgrid")
    records = [json.loads(p.read_text()) for p in sorted((results / "runs").glob("*.json"))]
    assert sorted(r["command"] for r in records) == ["eval_rankings_matlab", "run_suite"]
    assert all(r["finished"] and r["summary"]["done"] == 2 for r in records)
    assert len({r["run_id"] for r in records}) == 2
    assert not (results / "config.json").exists()
