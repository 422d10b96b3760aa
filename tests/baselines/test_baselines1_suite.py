"""LRMFS, GRRO, SRFS and SCNMF end to end: the k-grid CLI on both engines with defaults and a
--params file, and MATLAB/Octave's run_suite on the same exported real folds (real Octave)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.data.folds import load_fold
from pipeline.kgrid import main as kgrid_main
from pipeline.methods import get_method

pytestmark = pytest.mark.octave
METHODS = ["LRMFS", "GRRO", "SRFS", "SCNMF"]
PARAMS_YAML = "LRMFS:\n  alpha: 1.0\n  seed: 4\nSCNMF:\n  lambda2: 10\n"


@pytest.fixture(scope="module")
def data_dir(real_folds):
    """emotions exported by the data layer: one holdout fold, min-max scaled on its training part."""
    return real_folds("emotions")


@pytest.fixture(scope="module")
def kgrid_runs(tmp_path_factory, data_dir):
    """The k-grid CLI with the four methods on the Octave and the Python engine."""
    params_file = tmp_path_factory.mktemp("params") / "params.yaml"
    params_file.write_text(PARAMS_YAML, encoding="utf-8")
    results = {}
    for engine in ("octave", "python"):
        root = tmp_path_factory.mktemp(f"results_{engine}")
        code = kgrid_main(["--engine", engine, "--methods", *METHODS, "--datasets", "emotions",
                           "--data-dir", str(data_dir), "--results-dir", str(root), "--params",
                           str(params_file), "--k-min", "10", "--k-max", "40", "--k-step", "10",
                           "--no-progress"])
        assert code == 0
        results[engine] = root
    return results


def read_ranking(path):
    return np.loadtxt(path, dtype=np.int64)


@pytest.mark.parametrize("method", METHODS)
def test_kgrid_cli_runs_each_method_with_its_resolved_parameters(kgrid_runs, method):
    for engine, root in kgrid_runs.items():
        record = json.loads((root / method / "emotions_fold0_kgrid_metrics.json").read_text())
        expected = get_method(method).resolve_params(
            {"LRMFS": {"alpha": 1.0, "seed": 4}, "SCNMF": {"lambda2": 10}}.get(method, {}))
        assert record["params"] == expected
        assert record["k_values"] == [10, 20, 30, 40]
        assert record["provenance"]["engine"] == engine
        assert 0 < record["micro_f1_mean"] < 1
        ranking = read_ranking(root / method / "emotions_fold0_ranking.csv")
        assert sorted(ranking.tolist()) == list(range(1, 73))


@pytest.mark.parametrize("method", METHODS)
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


def test_run_suite_runs_the_four_methods(octave_engine, data_dir, tmp_path, kgrid_runs):
    params = {"LRMFS": {"alpha": 1.0, "seed": 4.0}, "SCNMF": {"lambda2": 10.0}}
    results = tmp_path / "suite"
    # no 'init': run_suite draws the same starting matrices as the Python harness by itself
    (summary,) = octave_engine.session.call(
        "run_suite", str(results), str(data_dir), ["emotions"], METHODS, "folds", 1.0, "k_min", 10.0,
        "k_max", 40.0, "k_step", 10.0, "verbose", False, "params", params, nout=1)
    assert int(summary["done"]) == 4 and int(summary["failed"]) == 0
    for method in METHODS:
        ranking = read_ranking(results / method / "emotions_fold0_ranking.csv")
        cli = read_ranking(kgrid_runs["octave"] / method / "emotions_fold0_ranking.csv")
        np.testing.assert_array_equal(ranking, cli)
        record = json.loads((results / method / "emotions_fold0_kgrid_metrics.json").read_text())
        assert record["k_values"] == [10, 20, 30, 40]


def test_run_suite_with_defaults_and_no_init(octave_engine, data_dir, tmp_path):
    results = tmp_path / "suite_defaults"
    (summary,) = octave_engine.session.call(
        "run_suite", str(results), str(data_dir), ["emotions"], ["LRMFS", "SRFS"], "folds", 1.0,
        "k_max", 20.0, "verbose", False, nout=1)
    assert int(summary["done"]) == 2 and int(summary["failed"]) == 0
    for method in ("LRMFS", "SRFS"):
        assert sorted(read_ranking(results / method / "emotions_fold0_ranking.csv").tolist()) == list(range(1, 73))
