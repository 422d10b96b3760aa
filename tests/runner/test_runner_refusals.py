"""Arguments the Python front door once accepted though they were wrong (issue 32): each is now
refused by the command with exit 2 and one line naming the field and what was expected, before
anything is written. The same cases through ``run_suite`` are in tests/matlab/test_matlab_refusals.py.

The commands run in this process, through the entry point ``python -m`` calls (``run_main``: the
exit code and the line on stderr); a real process refusing its input is
tests/shared/test_hostile_documents.py, test_hostile_cases_as_real_processes."""

from __future__ import annotations

import json

import pytest

from pipeline import evaluate, kgrid
from pipeline.cli import run_main

N_TRAIN = 60  # make_fold_dir's training rows


@pytest.mark.parametrize("methods, params, extra, line", [
    # once ignored: a parameter file's entry for a method the run does not run, or a misspelt one
    (["VARIANCE"], {"VARIANCE": {}, "LRMFS": {"alpha": 0.1}}, [],
     "params.json, field 'LRMFS': parameters of a method this run does not run (they would be ignored) "
     "(expected one of --methods ['VARIANCE'])"),
    (["LRMFS"], {"LRMSF": {"alpha": 0.1}}, [], "field 'LRMSF': parameters of a method this run does not run"),
    # once two results folders that a file system ignoring case makes one
    (["VARIANCE", "variance"], None, [], "field '--methods': listed twice (it would run twice) (found variance)"),
    # once a method folder beside the run's own failures file
    (["failures.json"], None, [], "invalid method name 'failures.json': a results folder uses it for itself "
                                  "(expected a name other than ['failures.json', 'runs'] (in any case))"),
    # once every task failed on its own, with no error line for the option
    (["VARIANCE"], None, ["--mlknn-k", str(N_TRAIN)],
     f"fold0.mat, field 'X_train': ML-kNN needs more training instances than neighbours "
     f"(expected n_train > {N_TRAIN}; found n_train = {N_TRAIN})"),
])
def test_wrong_arguments_are_refused_before_anything_runs(fold_dir, tmp_path, capsys, methods, params, extra, line):
    if params is not None:
        (tmp_path / "params.json").write_text(json.dumps(params))
        extra = [*extra, "--params", str(tmp_path / "params.json")]
    results = tmp_path / "results"
    code = run_main(kgrid.main, ["--no-progress", "--data-dir", str(fold_dir), "--results-dir", str(results),
                                 "--engine", "python", "--methods", *methods, *extra])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert line in err
    assert not results.exists()


def test_given_rankings_named_alike_in_another_case_are_refused(fold_dir, tmp_path, capsys):
    results = tmp_path / "results"
    for name in ("RANKS", "ranks"):
        (results / name).mkdir(parents=True)
    code = run_main(evaluate.main, ["--no-progress", "--data-dir", str(fold_dir), "--results-dir", str(results),
                                    "--methods", "RANKS", "ranks"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err == "error: field '--methods': listed twice (it would run twice) (found ranks)\n"
    assert sorted(path.name for path in results.iterdir()) == ["RANKS", "ranks"]
