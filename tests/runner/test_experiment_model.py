"""One experiment model for every front door: a suite file and the options of ``pipeline.kgrid`` /
``evaluate`` describe the same experiment, validated by the same schema and run by the same function."""

from __future__ import annotations

import json

import pytest

from runner_helpers import result_contents
from pipeline import evaluate, kgrid
from pipeline.cli import run_main
from pipeline.errors import ConfigError
from pipeline.experiment.model import load_suite
from pipeline.paper.__main__ import main as paper_main

GRID = ["--k-min", "10", "--k-max", "20", "--k-step", "10"]

FILES_SUITE = """
name: files
folds: {mode: files, dir: folds}
methods:
  VARIANCE: {}
  RANDOM: {sweep: {seed: [0, 1]}}
engine: python
grids:
  kgrid: {k_min: 10, k_max: 20, k_step: 10}
run: {executor: serial, results_dir: suite_results}
tables: null
"""


def test_a_suite_of_fold_files_runs_what_kgrid_runs(fold_dir, tmp_path, capsys):
    """The suite's fold files (datasets discovered), sweep and no tables give the files the same
    k-grid run gives; the suite's run is a resumable one (a second run keeps everything)."""
    assert fold_dir == tmp_path / "folds"
    (tmp_path / "suite.yaml").write_text(FILES_SUITE)
    paper = ["run", str(tmp_path / "suite.yaml"), "--root", str(tmp_path), "--no-progress"]
    assert run_main(paper_main, paper) == 0
    assert "8 done, 0 skipped" in capsys.readouterr().err  # 2 folds x (VARIANCE, 2 seeds, all-features reference)
    params = tmp_path / "params.json"
    params.write_text(json.dumps({"RANDOM": {"seed": [0, 1]}}))
    assert run_main(kgrid.main, ["--engine", "python", "--no-progress", "--data-dir", str(fold_dir), "--results-dir",
                                 str(tmp_path / "cli_results"), "--methods", "VARIANCE", "RANDOM",
                                 "--params", str(params), *GRID]) == 0
    assert "8 done, 0 skipped" in capsys.readouterr().err
    suite_files = result_contents(tmp_path / "suite_results")
    assert sorted({name.split("/")[0] for name in suite_files}) == [
        "RANDOM__seed_0", "RANDOM__seed_1", "VARIANCE", "_reference"]
    assert suite_files == result_contents(tmp_path / "cli_results")
    assert not (tmp_path / "paper").exists()  # tables: null
    assert run_main(paper_main, paper) == 0
    assert "0 done, 8 skipped" in capsys.readouterr().err


def test_score_only_scores_given_rankings_of_a_shipped_method_name(fold_dir, tmp_path, capsys):
    """``evaluate``: every method's rankings are given (here under a shipped method's name), never
    ranked; no all-features reference."""
    results = tmp_path / "res"
    assert run_main(kgrid.main, ["--engine", "python", "--no-progress", "--data-dir", str(fold_dir), "--results-dir",
                                 str(results), "--methods", "VARIANCE", *GRID]) == 0
    ranking = (results / "VARIANCE" / "toy_fold0_ranking.csv").read_bytes()
    capsys.readouterr()
    assert run_main(evaluate.main, ["--no-progress", "--data-dir", str(fold_dir), "--results-dir", str(results),
                                    "--methods", "VARIANCE", "--overwrite", *GRID]) == 0
    assert "2 done, 0 skipped" in capsys.readouterr().err
    assert (results / "VARIANCE" / "toy_fold0_ranking.csv").read_bytes() == ranking


@pytest.mark.parametrize("change, field, words", [
    ({"folds": "{mode: files, dir: folds, seed: 3}"}, "folds.seed", "no export settings with mode files"),
    ({"folds": "{mode: files}", "methods": "{SRFS: {tune: {alpha: [0.1, 0.2]}}}",
      "tuning": "{inner: {mode: kfold, count: 2}, criterion: {metric: micro_f1, grid: kgrid}}"},
     "folds.mode", "tuning needs exported folds"),
    ({"datasets": "[]"}, "datasets", "invalid value"),
    ({"datasets": "[emotions, Emotions]"}, "datasets", "listed twice (it would run twice) (found Emotions)"),
    ({"folds": "{mode: kfold, count: 2}"}, "folds.seed", "required key missing"),
    ({"run": "{overwrite: true}"}, "run.overwrite", "false when skip_existing is true"),
    ({"run": "{scheduler: 'nowhere'}"}, "run.scheduler", "a scheduler address such as tcp://HOST:PORT"),
    ({"run": "{max_tasks: 0}"}, "run.max_tasks", "out of range (expected a number in [1, 10000000]; found 0)"),
    ({"methods": "{SRFS: {sweep: {alpha: [1, 1.0]}}}"}, "methods.SRFS.sweep.alpha", "value listed twice"),
    ({"methods": "{SRFS: {sweep: {alpha: []}}}"}, "methods.SRFS.sweep.alpha", "empty value list"),
    ({"methods": "{SRFS: {sweep: {alpha: [-1]}}}"}, "methods.SRFS.sweep.alpha", "value out of range"),
    ({"methods": "{SRFS: {params: {alpha: 0.1}, sweep: {alpha: [0.2]}}}"}, "methods.SRFS.sweep.alpha", "both fixed"),
    ({"methods": "{RANDOM: {seeds: [1, 2], sweep: {seed: [3]}}}"}, "methods.RANDOM.sweep", "cannot be combined"),
    ({"methods": "{VARIANCE: {external: true}}"}, "methods.VARIANCE", "named like a method the suite can run"),
    ({"methods": "{VARIANCE: {}, variance: {}}", "score_only": "true"}, "methods",
     "listed twice (it would run twice) (found variance)"),
    ({"methods": "{SRFS: {tune: {alpha: [1, 1.0]}}}",
      "tuning": "{inner: {mode: kfold, count: 2}, criterion: {metric: micro_f1, grid: kgrid}}"},
     "methods.SRFS.tune.alpha", "candidate value listed twice in the tune grid of SRFS"),
])
def test_suite_keys_of_the_generalised_model_are_checked(tmp_path, change, field, words):
    """Each new key is refused with the key named (as is a given ranking named like a shipped method
    outside score_only)."""
    keys = {"name": "x", "datasets": "[emotions]", "folds": "{mode: kfold, count: 2, seed: 1}",
            "methods": "{VARIANCE: {}}", "grids": "{kgrid: {}}", **change}
    (tmp_path / "suite.yaml").write_text("".join(f"{key}: {value}\n" for key, value in keys.items()))
    with pytest.raises(ConfigError) as info:
        load_suite(tmp_path / "suite.yaml")
    assert info.value.field == field and words in str(info.value), str(info.value)


def test_a_suite_of_given_rankings_and_fold_files_needs_no_export_settings(tmp_path):
    (tmp_path / "suite.yaml").write_text("name: x\nfolds: {mode: files, count: 2}\nscore_only: true\n"
                                         "methods: {VARIANCE: {external: true}}\ngrids: {pgrid: {}}\n")
    suite = load_suite(tmp_path / "suite.yaml")
    assert (suite.score_only, suite.folds, suite.fold_count, suite.datasets) == (True, None, 2, ())
    assert suite.external_methods == ("VARIANCE",) and suite.skip_existing and suite.tables is not None


def test_a_command_line_error_names_the_option(fold_dir, tmp_path, capsys):
    """A key refused by the model is reported under the option the user typed."""
    for extra, words in ((["--scheduler", "nowhere"], "field '--scheduler': invalid value (expected a scheduler "
                                                      "address such as tcp://HOST:PORT; found 'nowhere')"),
                         (["--mlknn-smooth", "0"], "field '--mlknn-smooth': out of range"),
                         (["--k-step", "0"], "field '--k-step': out of range"),
                         (["--folds", "2000"], "field '--folds': out of range (expected a number in [1, 1000]"),
                         (["--skip-existing", "--max-tasks", "1"], "field '--max-tasks': the run has 2 tasks")):
        code = run_main(kgrid.main, ["--engine", "python", "--no-progress", "--data-dir", str(fold_dir),
                                     "--results-dir", str(tmp_path / "res"), "--methods", "VARIANCE", *extra])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "res").exists()
