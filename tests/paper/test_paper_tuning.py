"""Hyperparameter selection on inner splits, end to end on real data (docs/tuning.md).

A small tuned suite (emotions and yeast, two outer folds, GRRO with four candidates and LRMFS,
which has random starts, with two) runs on Dask workers from a private copy of the code, so the
test can edit one method's source. It checks that the chosen candidate is the best recorded inner
criterion, that the final ranking is the one a plain run with the chosen parameters makes, that the
tuning record does not change when only the outer test part of a fold does, that a second run does
nothing, and that editing one method's code makes exactly its candidates and final tasks stale.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline.data.folds import load_fold, save_fold
from pipeline.experiment.model import load_suite
from pipeline.experiment.run import run_settings
from pipeline.experiment.tuning import tuned_tasks
from pipeline.paper.run import PaperPaths
from pipeline.runner.executors import run_all
from pipeline.runner.run import RunSettings
from pipeline.runner.tasks import Task, canonical_params

REPO = Path(__file__).resolve().parents[2]

SUITE = """
name: tuned
datasets: [emotions, yeast]
folds: {mode: holdout, count: 2, seed: 42, test_size: reference}
tuning:
  inner: {mode: holdout, count: 1, test_size: 0.25, seed: 0}
  criterion: {metric: hamming_loss, grid: kgrid}
methods:
  GRRO: {tune: {alpha: [1.0, 100.0], beta: [0.1, 10.0]}}
  LRMFS: {params: {max_iter: 5}, tune: {alpha: [0.01, 1.0]}}
engine: python
grids:
  kgrid: {k_min: 10, k_max: 30, k_step: 10}
run: {executor: dask, jobs: 2}
tables: {ref_method: GRRO, figures: false}
"""


#: The tuned suite's first run (real data, a Dask cluster, a code copy, subprocesses) takes 45-80 s
#: on the shared machine: its four tests run in ``make test``. The fast lane keeps tuning end to end
#: on the demo folds (test_a_candidate_record_damaged_in_place_is_scored_again).
IN_MAKE_TEST = pytest.mark.slow


@pytest.fixture(scope="module")
def tuned_run(tmp_path_factory, shared_data):
    """A code copy, the suite, and the outcome of its first run: (home, environment, first run)."""
    home = tmp_path_factory.mktemp("tuned")
    # numba's compiled-function caches come along (they are checked against the sources' time stamps)
    shutil.copytree(REPO / "python", home / "code" / "python", ignore=shutil.ignore_patterns("*.pyc"))
    (home / "suite.yaml").write_text(SUITE)
    env = {**os.environ, "PYTHONPATH": str(home / "code" / "python"), "MLFS_SHARED_DATA": str(shared_data)}
    return home, env, _paper(home, env, "run")


def _paper(home: Path, env: dict, command: str) -> subprocess.CompletedProcess:
    extra = ["--no-progress"] if command == "run" else []
    return subprocess.run([sys.executable, "-m", "pipeline.paper", command, str(home / "suite.yaml"), "--root",
                           str(home / "root"), *extra], capture_output=True, text=True, env=env, cwd=home,
                          timeout=900)


def _records(home: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted((home / "root" / "results" / "tuned").glob("*/*_tuning.json"))]


def _without_times(value):
    """A record without its measured seconds (everything else must match exactly)."""
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if not k.startswith(("time_", "timings"))}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


@IN_MAKE_TEST
def test_the_chosen_candidate_is_the_best_inner_criterion(tuned_run):
    home, _, first = tuned_run
    assert first.returncode == 0, first.stderr
    assert "36 done, 0 skipped" in first.stderr  # 24 candidates, 8 final tasks, 4 all-features references
    records = _records(home)
    assert len(records) == 8
    for record in records:
        assert record["criterion"]["direction"] == "lower is better"  # hamming loss, from METRICS' metadata
        criteria = [c["criterion"] for c in record["candidates"]]
        assert len(criteria) == (4 if record["method"] == "GRRO" else 2)
        for candidate in record["candidates"]:
            (split,) = candidate["per_split"]
            assert candidate["criterion"] == pytest.approx(np.mean(split["hamming_loss"]), rel=1e-12)
        assert record["chosen"]["index"] == criteria.index(min(criteria))  # ties: the first
        final = json.loads((home / "root" / "results" / "tuned" / record["method"] /
                            f"{record['dataset']}_fold{record['fold']}_ranking.json").read_text())
        assert final["params"] == record["chosen"]["params"] and final["selected_by"] == "inner validation"
        (split,) = record["inner_splits"]
        assert split["n_train"] + split["n_validation"] == json.loads(
            (home / "root" / "data" / "paper_matlab_minmax" / record["dataset"] /
             f"fold{record['fold']}.json").read_text())["n_train"]
    lrmfs = [r for r in records if r["method"] == "LRMFS"]
    assert all(r["chosen"]["params"]["seed"] == 0 and r["chosen"]["params"]["max_iter"] == 5 for r in lrmfs)
    report = home / "root" / "paper" / "tables" / "parameters"
    assert "| GRRO | inner-split tuning | hamming\\_loss (mean over the kgrid) on inner holdout x1, 0.25 validation; " \
           "4 candidates: alpha in {1, 100}; beta in {0.1, 10} |" in (report / "parameter_selection.md").read_text()
    chosen = (report / "chosen_parameters.md").read_text()
    main_tex = (home / "root" / "paper" / "tables" / "kgrid" / "main.tex").read_text()
    assert "\\input{../parameters/parameter_selection.tex}" in main_tex  # how parameters were chosen, in the paper
    for dataset in ("emotions", "yeast"):
        picks = [r["chosen"]["overrides"]["beta"] for r in records if r["dataset"] == dataset and r["method"] == "GRRO"]
        count = max(picks.count(v) for v in picks)
        assert f"| {dataset} | " in chosen and f"({count}/2)" in chosen.split(f"| {dataset} | ")[1].split("\n")[0]


@IN_MAKE_TEST
def test_the_final_ranking_is_a_plain_run_with_the_chosen_parameters(tuned_run, tmp_path):
    home, _, _ = tuned_run
    results = home / "root" / "results" / "tuned"
    folds = home / "root" / "data" / "paper_matlab_minmax"
    tasks = [Task(r["method"], r["dataset"], r["fold"], canonical_params({**({"max_iter": 5} if r["method"] == "LRMFS"
                                                                             else {}), **r["chosen"]["overrides"]}))
             for r in _records(home) if r["dataset"] == "emotions"]
    settings = RunSettings(data_dir=str(folds), results_dir=str(tmp_path), grids=load_suite(home / "suite.yaml").grids,
                           engine="python")
    assert {o.status for o in run_all(tasks, settings, progress=False)} == {"done"}
    for task in tasks:
        name = f"{task.dataset}_fold{task.fold}"
        assert (tmp_path / task.method / f"{name}_ranking.csv").read_bytes() == \
               (results / task.method / f"{name}_ranking.csv").read_bytes()
        plain = json.loads((tmp_path / task.method / f"{name}_kgrid_metrics.json").read_text())
        tuned = json.loads((results / task.method / f"{name}_kgrid_metrics.json").read_text())
        assert tuned["micro_f1"] == plain["micro_f1"] and tuned["selected_by"] == "inner validation"


@IN_MAKE_TEST
def test_the_outer_test_part_does_not_reach_tuning(tuned_run, tmp_path):
    """Folds whose test parts are replaced give the same tuning records (timings aside)."""
    home, _, _ = tuned_run
    changed = tmp_path / "folds"
    for source in (home / "root" / "data" / "paper_matlab_minmax").glob("*/fold*.mat"):
        fold = load_fold(source)
        rng = np.random.default_rng(7)
        target = changed / source.parent.name / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        save_fold(target, fold.X_train, fold.Y_train, rng.random(fold.X_test.shape), fold.Y_test[::-1])
    suite = load_suite(home / "suite.yaml")
    paths = PaperPaths(root=tmp_path, folds=changed, results=tmp_path / "results")
    settings = run_settings(suite, paths.folds, paths.results)
    outcomes = run_all(suite.candidate_tasks(), settings, progress=False)
    assert {o.status for o in outcomes} == {"done"}
    ready, waiting = tuned_tasks(suite, settings)
    assert len(ready) == 8 and waiting == []
    again = [json.loads(p.read_text()) for p in sorted((tmp_path / "results").glob("*/*_tuning.json"))]
    assert [_without_times(r) for r in again] == [_without_times(r) for r in _records(home)]


@IN_MAKE_TEST
def test_a_second_run_does_nothing_and_a_code_edit_makes_exactly_its_tasks_stale(tuned_run):
    home, env, _ = tuned_run
    before = [p.read_bytes() for p in sorted((home / "root" / "results" / "tuned").glob("*/*_tuning.json"))]
    suite = home / "suite.yaml"  # the first run was on Dask; this one is checked serially, without a cluster
    suite.write_text(suite.read_text().replace("run: {executor: dask, jobs: 2}", "run: {executor: serial}"))
    second = _paper(home, env, "run")
    assert second.returncode == 0, second.stderr
    assert "0 done, 36 skipped" in second.stderr and "kgrid tables: up to date" in second.stderr
    assert [p.read_bytes() for p in sorted((home / "root" / "results" / "tuned").glob("*/*_tuning.json"))] == before

    source = home / "code" / "python" / "pipeline" / "methods" / "grro.py"
    source.write_text(source.read_text() + "_EDITED = True\n")  # code (a comment would change no fingerprint)
    status = _paper(home, env, "status")
    assert status.returncode == 0, status.stderr
    assert "remaining: 4 task(s) and 16 tuning candidate(s)" in status.stdout
    not_done = [line for line in status.stdout.splitlines()[3:] if not line.startswith("tables")]
    assert len(not_done) == 20 and all(" GRRO/" in line for line in not_done)
    assert sum("candidate" in line and "method code changed (methods/grro.py)" in line for line in not_done) == 16
    assert "8 done, 0 missing, 4 stale, 0 failed of 12 tasks" in status.stdout  # 8 finals, 4 references
    assert "8 done, 0 missing, 16 stale, 0 failed of 24 tuning candidates" in status.stdout
    assert sum(line.startswith("stale") and "its tuning candidates are not up to date" in line
               for line in not_done) == 4


DEMO_TUNED = """
name: demo_tuned
datasets: [demo]
folds: {mode: holdout, count: 1, seed: 42, test_size: 0.2}
tuning:
  inner: {mode: holdout, count: 1, test_size: 0.25, seed: 0}
  criterion: {metric: hamming_loss, grid: kgrid}
methods:
  GRRO: {tune: {alpha: [1.0, 100.0]}}
  VARIANCE: {}
engine: python
grids:
  kgrid: {k_min: 10, k_max: 30, k_step: 10}
tables: {ref_method: VARIANCE, figures: false}
"""


@pytest.fixture(scope="module")
def demo_tuned_run(tmp_path_factory) -> Path:
    """A finished run of DEMO_TUNED (suite.yaml and its --root), made once; tests damage a copy."""
    from pipeline.cli import run_main
    from pipeline.paper.__main__ import main

    home = tmp_path_factory.mktemp("demo_tuned")
    (home / "suite.yaml").write_text(DEMO_TUNED)
    assert run_main(main, ["run", str(home / "suite.yaml"), "--root", str(home), "--no-progress"]) == 0
    return home


@pytest.mark.parametrize("damage, field", [
    (lambda record: record.update(criterion="0.2"), "criterion"),
    (lambda record: record["splits"][0].pop("time_rank_seconds"), "splits.0.time_rank_seconds"),
    (lambda record: record["splits"][0].update(hamming_loss=[0.1, "x", 0.1]), "splits.0.hamming_loss.1"),
    (lambda record: record.update(code={"method": "x"}), "code.method"),
])
def test_a_candidate_record_damaged_in_place_is_scored_again(demo_tuned_run, tmp_path, capsys, damage, field):
    from pipeline.cli import run_main
    from pipeline.paper.__main__ import main

    home = tmp_path / "home"
    shutil.copytree(demo_tuned_run, home)
    suite = home / "suite.yaml"
    paper = ["run", str(suite), "--root", str(home), "--no-progress"]
    capsys.readouterr()
    assert run_main(main, ["status", str(suite), "--root", str(home)]) == 0
    assert "remaining: nothing" in capsys.readouterr().out  # the copy is as fresh as the run it was made from
    (candidate, _) = sorted((home / "results" / "demo_tuned" / "GRRO" / "demo_fold0_candidates").glob("*.json"))
    original = json.loads(candidate.read_text())
    record = json.loads(candidate.read_text())
    damage(record)
    candidate.write_text(json.dumps(record))
    capsys.readouterr()
    assert run_main(main, ["status", str(suite), "--root", str(home)]) == 0
    assert f"the candidate record is partial or unreadable ({field})" in capsys.readouterr().out
    assert run_main(main, paper) == 0
    assert f"recomputed 1 stale task(s): the candidate record is partial or unreadable ({field})" in \
        capsys.readouterr().err
    assert json.loads(candidate.read_text())["criterion"] == original["criterion"]  # scored again, alike


@pytest.mark.slow  # chromium takes 3-10 s to start and parse Plotly; the page's content: tests/report/test_report_explorer.py
def test_the_runs_explorer_opens_offline_in_chromium_and_the_metric_selector_redraws(demo_tuned_run, tmp_path):
    """pipeline.paper run writes explorer_kgrid.html beside main.tex; headless chromium opens it from
    file:// with every network address unreachable: no console error, no request but the page, the
    metric selector changes the plotted values, the CD chart and GRRO's sensitivity are drawn, a click
    on a column header sorts the table."""
    sys.path.insert(0, str(REPO / "tests" / "report"))
    from headless_browser import Browser, chromium_path

    if chromium_path() is None:
        pytest.fail("chromium is not installed: run `make chromium` (Debian package chromium)")
    tables = demo_tuned_run / "paper" / "tables" / "kgrid"
    page = tables / "explorer_kgrid.html"
    assert (tables / "main.tex").is_file() and page.is_file()
    plotted = "JSON.stringify(document.getElementById('curves').data.map(trace => trace.y))"
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        before = json.loads(browser.evaluate(plotted))
        browser.evaluate("(() => { const select = document.getElementById('metric-select');"
                         " select.value = 'hamming_loss'; select.dispatchEvent(new Event('change')); })()")
        after = json.loads(browser.evaluate(plotted))
        sensitivity = browser.evaluate("document.getElementById('sensitivity').data[0].y.length")
        cd_methods = browser.evaluate("document.getElementById('cd').data[0].text")
        column = "document.querySelector('table.sortable')"  # the first score table, sorted by its last column
        browser.evaluate(f"{column}.tHead.rows[0].lastElementChild.click()")
        keys = browser.evaluate(f"Array.from({column}.tBodies[0].rows, row => row.lastElementChild.dataset.key)")
        shot = browser.screenshot(tmp_path / "explorer.png")
        assert browser.errors == []
        assert browser.requested_urls() == [page.as_uri()]
    assert before and after and before != after
    assert sorted(cd_methods) == ["GRRO", "VARIANCE"]
    assert keys and [float(k) for k in keys] == sorted(float(k) for k in keys)
    assert sensitivity == 2  # GRRO's two candidates of alpha
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
