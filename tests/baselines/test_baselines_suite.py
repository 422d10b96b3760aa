"""The seven baselines (LRMFS, GRRO, SRFS, SCNMF, LSMFS, LRDG, RFSFS) end to end: the k-grid CLI on
both engines with defaults and a --params file, MATLAB/Octave's run_suite on the same exported real
fold (from a start it draws itself or one it is given), and a diverging setting reported as a failed
task by both front doors (real Octave)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.data.folds import load_fold
from pipeline.kgrid import main as kgrid_main
from pipeline.methods import get_method

pytestmark = pytest.mark.octave
METHODS = ["LRMFS", "GRRO", "SRFS", "SCNMF", "LSMFS", "LRDG", "RFSFS"]
#: The --params file of the CLI runs: two methods off their defaults, the others at them.
PARAMS = {"LRMFS": {"alpha": 1.0, "seed": 4}, "SCNMF": {"lambda2": 10}}
PARAMS_YAML = "LRMFS:\n  alpha: 1.0\n  seed: 4\nSCNMF:\n  lambda2: 10\n"
K_VALUES = [10, 20, 30, 40]
GRID = ["--k-min", "10", "--k-max", "40", "--k-step", "10", "--no-progress"]
#: LRDG is chaotic: a rounding-level difference between the engines grows to O(1) within ~10
#: iterations, so its two engines' rankings differ (test_baselines_parity.py compares its iterates).
SAME_RANKING_IN_BOTH_ENGINES = [method for method in METHODS if method != "LRDG"]
N_FEATURES = 72  # emotions


@pytest.fixture(scope="module")
def data_dir(real_folds):
    """emotions exported by the data layer: one holdout fold, min-max scaled on its training part."""
    return real_folds("emotions")


@pytest.fixture(scope="module")
def kgrid_runs(tmp_path_factory, data_dir):
    """The k-grid CLI with the seven methods and the --params file on the Octave and the Python engine."""
    params_file = tmp_path_factory.mktemp("params") / "params.yaml"
    params_file.write_text(PARAMS_YAML, encoding="utf-8")
    results = {}
    for engine in ("octave", "python"):
        root = tmp_path_factory.mktemp(f"results_{engine}")
        assert kgrid_main(["--engine", engine, "--methods", *METHODS, "--datasets", "emotions", "--data-dir",
                           str(data_dir), "--results-dir", str(root), "--params", str(params_file), *GRID]) == 0
        results[engine] = root
    return results


def read_ranking(path):
    return np.loadtxt(path, dtype=np.int64)


def run_suite(octave_engine, results, data_dir, methods, *options):
    """run_suite on the emotions fold -> its summary (the options are run_suite's name/value pairs)."""
    (summary,) = octave_engine.session.call("run_suite", str(results), str(data_dir), ["emotions"], list(methods),
                                            "folds", 1.0, "verbose", False, *options, nout=1)
    return summary


@pytest.mark.parametrize("method", METHODS)
def test_kgrid_cli_runs_each_method_with_its_resolved_parameters(kgrid_runs, method):
    for engine, root in kgrid_runs.items():
        record = json.loads((root / method / "emotions_fold0_kgrid_metrics.json").read_text())
        assert record["params"] == get_method(method).resolve_params(PARAMS.get(method, {}))
        assert record["k_values"] == K_VALUES
        assert record["provenance"]["engine"] == engine
        assert 0 < record["micro_f1_mean"] < 1
        ranking = read_ranking(root / method / "emotions_fold0_ranking.csv")
        assert sorted(ranking.tolist()) == list(range(1, N_FEATURES + 1))


@pytest.mark.parametrize("method", SAME_RANKING_IN_BOTH_ENGINES)
def test_octave_and_python_engines_write_the_same_ranking(kgrid_runs, method):
    rankings = [read_ranking(root / method / "emotions_fold0_ranking.csv") for root in kgrid_runs.values()]
    np.testing.assert_array_equal(*rankings)


def test_params_file_changes_the_ranking(kgrid_runs, data_dir):
    fold = load_fold(data_dir / "emotions" / "fold0.mat")
    spec = get_method("SCNMF")
    default_ranking, _ = spec.run(fold.X_train, fold.Y_train, spec.resolve_params({}), None)
    written = read_ranking(kgrid_runs["python"] / "SCNMF" / "emotions_fold0_ranking.csv")
    tuned, _ = spec.run(fold.X_train, fold.Y_train, spec.resolve_params({"lambda2": 10}), None)
    np.testing.assert_array_equal(written, tuned)
    assert not np.array_equal(written, default_ranking)


@pytest.mark.parametrize("start_given", [False, True], ids=["start_drawn_by_run_suite", "start_given"])
def test_run_suite_writes_the_rankings_of_the_cli(octave_engine, data_dir, tmp_path, kgrid_runs, start_given):
    """Without 'init', run_suite draws the same starting matrices as the Python harness by itself;
    with it, it starts from the ones given: either way, the same Octave computation as the CLI's."""
    suite_params = {method: {name: float(value) for name, value in values.items()} for method, values in PARAMS.items()}
    options = ["k_min", 10.0, "k_max", 40.0, "k_step", 10.0, "params", suite_params]
    if start_given:
        fold = load_fold(data_dir / "emotions" / "fold0.mat")
        n, d = fold.X_train.shape
        init = {}
        for method in METHODS:
            spec = get_method(method)
            init[method] = spec.initial_matrices(n, d, fold.n_labels, spec.resolve_params(PARAMS.get(method, {})))
        options += ["init", init]
    summary = run_suite(octave_engine, tmp_path / "suite", data_dir, METHODS, *options)
    assert int(summary["done"]) == len(METHODS) and int(summary["failed"]) == 0
    for method in METHODS:
        np.testing.assert_array_equal(read_ranking(tmp_path / "suite" / method / "emotions_fold0_ranking.csv"),
                                      read_ranking(kgrid_runs["octave"] / method / "emotions_fold0_ranking.csv"))
        record = json.loads((tmp_path / "suite" / method / "emotions_fold0_kgrid_metrics.json").read_text())
        assert record["k_values"] == K_VALUES
        assert record["params"] == get_method(method).resolve_params(PARAMS.get(method, {}))


def test_run_suite_with_defaults_draws_a_reproducible_start(octave_engine, data_dir, tmp_path):
    rankings = []
    for attempt in range(2):
        results = tmp_path / f"suite_defaults_{attempt}"
        summary = run_suite(octave_engine, results, data_dir, METHODS, "k_max", 20.0)
        assert int(summary["done"]) == len(METHODS) and int(summary["failed"]) == 0
        rankings.append([read_ranking(results / method / "emotions_fold0_ranking.csv") for method in METHODS])
    for first, second in zip(*rankings):                       # mlfs_seeded_uniform(seed): reproducible
        assert sorted(first.tolist()) == list(range(1, N_FEATURES + 1))
        np.testing.assert_array_equal(first, second)


def test_diverging_run_fails_the_task_with_method_dataset_fold_and_iteration(octave_engine, data_dir, tmp_path,
                                                                              capsys):
    params_file = tmp_path / "params.yaml"
    params_file.write_text("LSMFS:\n  alpha: 1.0e-6\n", encoding="utf-8")
    for engine in ("octave", "python"):
        root = tmp_path / f"diverging_{engine}"
        code = kgrid_main(["--engine", engine, "--methods", "LSMFS", "--datasets", "emotions", "--data-dir",
                           str(data_dir), "--results-dir", str(root), "--params", str(params_file), *GRID])
        assert code == 1
        (failure,) = json.loads((root / "failures.json").read_text())["failed"]
        assert (failure["method"], failure["dataset"], failure["fold"]) == ("LSMFS", "emotions", 0)
        assert failure["error_type"] == "EngineError"
        assert "LSMFS diverged at iteration " in failure["message"]
        assert "LSMFS/emotions/fold0" in capsys.readouterr().err
        assert not (root / "LSMFS" / "emotions_fold0_ranking.csv").exists()
    results = tmp_path / "suite_diverging"
    summary = run_suite(octave_engine, results, data_dir, ["LSMFS"], "k_max", 20.0, "params",
                        {"LSMFS": {"alpha": 1e-6}})
    assert int(summary["failed"]) == 1
    (failure,) = json.loads((results / "failures.json").read_text())["failed"]
    assert failure["message"].startswith("LSMFS/emotions/fold0: LSMFS failed: LSMFS diverged at iteration ")
    assert "mlfs:LSMFS:diverged" in failure["message"]
