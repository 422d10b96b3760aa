"""LSMFS, LRDG and RFSFS end to end: the k-grid CLI on both engines, MATLAB/Octave's run_suite on
the same exported real fold, and a diverging setting reported as a failed task by both front
doors (real Octave)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.data.folds import load_fold
from pipeline.kgrid import main as kgrid_main
from pipeline.methods import get_method

pytestmark = pytest.mark.octave
METHODS = ["LSMFS", "LRDG", "RFSFS"]
GRID = ["--k-min", "10", "--k-max", "30", "--k-step", "10", "--no-progress"]


@pytest.fixture(scope="module")
def data_dir(real_folds):
    """emotions exported by the data layer: one holdout fold, min-max scaled on its training part."""
    return real_folds("emotions")


@pytest.fixture(scope="module")
def kgrid_runs(tmp_path_factory, data_dir):
    results = {}
    for engine in ("octave", "python"):
        root = tmp_path_factory.mktemp(f"results2_{engine}")
        assert kgrid_main(["--engine", engine, "--methods", *METHODS, "--datasets", "emotions",
                           "--data-dir", str(data_dir), "--results-dir", str(root), *GRID]) == 0
        results[engine] = root
    return results


def read_ranking(path):
    return np.loadtxt(path, dtype=np.int64)


@pytest.mark.parametrize("method", METHODS)
def test_kgrid_cli_runs_each_method_on_both_engines(kgrid_runs, method):
    for engine, root in kgrid_runs.items():
        record = json.loads((root / method / "emotions_fold0_kgrid_metrics.json").read_text())
        assert record["params"] == get_method(method).resolve_params({})
        assert record["k_values"] == [10, 20, 30] and record["provenance"]["engine"] == engine
        assert 0 < record["micro_f1_mean"] < 1
        assert sorted(read_ranking(root / method / "emotions_fold0_ranking.csv").tolist()) == list(range(1, 73))


@pytest.mark.parametrize("method", ["LSMFS", "RFSFS"])
def test_engines_write_the_same_ranking(kgrid_runs, method):
    np.testing.assert_array_equal(*[read_ranking(root / method / "emotions_fold0_ranking.csv")
                                    for root in kgrid_runs.values()])


def test_run_suite_matches_the_cli(octave_engine, data_dir, tmp_path, kgrid_runs):
    fold = load_fold(data_dir / "emotions" / "fold0.mat")
    n, d = fold.X_train.shape
    init = {}
    for method in METHODS:
        spec = get_method(method)
        init[method] = spec.initial_matrices(n, d, fold.n_labels, spec.resolve_params({}))
    results = tmp_path / "suite"
    (summary,) = octave_engine.session.call(
        "run_suite", str(results), str(data_dir), ["emotions"], METHODS, "folds", 1.0, "k_min", 10.0,
        "k_max", 30.0, "k_step", 10.0, "verbose", False, "init", init, nout=1)
    assert int(summary["done"]) == 3 and int(summary["failed"]) == 0
    for method in METHODS:       # the same Octave computation as the CLI's Octave engine
        np.testing.assert_array_equal(read_ranking(results / method / "emotions_fold0_ranking.csv"),
                                      read_ranking(kgrid_runs["octave"] / method / "emotions_fold0_ranking.csv"))
        record = json.loads((results / method / "emotions_fold0_kgrid_metrics.json").read_text())
        assert record["params"] == get_method(method).resolve_params({})


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
    (summary,) = octave_engine.session.call(
        "run_suite", str(results), str(data_dir), ["emotions"], ["LSMFS"], "folds", 1.0, "k_max", 20.0,
        "verbose", False, "params", {"LSMFS": {"alpha": 1e-6}}, nout=1)
    assert int(summary["failed"]) == 1
    (failure,) = json.loads((results / "failures.json").read_text())["failed"]
    assert failure["message"].startswith("LSMFS/emotions/fold0: LSMFS failed: LSMFS diverged at iteration ")
    assert "mlfs:LSMFS:diverged" in failure["message"]


def test_run_suite_without_init_draws_its_own_seeded_start(octave_engine, data_dir, tmp_path):
    rankings = []
    for attempt in range(2):
        results = tmp_path / f"suite_no_init_{attempt}"
        (summary,) = octave_engine.session.call(
            "run_suite", str(results), str(data_dir), ["emotions"], METHODS, "folds", 1.0, "k_max", 20.0,
            "verbose", False, nout=1)
        assert int(summary["done"]) == 3 and int(summary["failed"]) == 0
        rankings.append([read_ranking(results / method / "emotions_fold0_ranking.csv") for method in METHODS])
    for first, second in zip(*rankings):                       # mlfs_seeded_uniform(seed): reproducible
        assert sorted(first.tolist()) == list(range(1, 73))
        np.testing.assert_array_equal(first, second)
