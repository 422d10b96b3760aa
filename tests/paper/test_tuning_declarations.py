"""The ``tuning:`` and ``tune:`` declarations: what is refused before any work, and the selection rule."""

from __future__ import annotations

import json
import math
from dataclasses import asdict

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from pipeline.cli import run_main
from pipeline.data.folds import save_fold, sha256_file
from pipeline.errors import ConfigError
from pipeline.evaluation.metrics import METRICS
from pipeline.paper.__main__ import main
from pipeline.paper.folds import dataset_settings
from pipeline.experiment.model import load_suite
from pipeline.experiment.tuning import check_inner_sizes
from pipeline.results.layout import REFERENCE_FOLDER, candidate_id
from pipeline.runner.inner import TuningSpec, best_candidate, criterion_scores, make_inner_splits
from pipeline.runner.tasks import GridSpec

BASE = """
name: t
datasets: [emotions]
folds: {mode: holdout, count: 2, seed: 1, test_size: 0.2}
grids: {kgrid: {k_min: 1, k_max: 3, k_step: 1}, pgrid: {p_target: 0.2}}
"""
TUNING = """
tuning:
  inner: {mode: holdout, count: 1, test_size: 0.25, seed: 0}
  criterion: {metric: micro_f1, grid: kgrid}
"""


def _suite(tmp_path, methods: str, tuning: str = TUNING):
    path = tmp_path / "suite.yaml"
    path.write_text(BASE + tuning + "methods:\n" + methods)
    return path


def _refusal(tmp_path, capsys, methods: str, tuning: str = TUNING, *extra) -> str:
    """The one line ``status`` refuses the suite with (exit 2); ``run`` refuses it alike, before any work."""
    suite = _suite(tmp_path, methods, tuning)
    code = run_main(main, ["status", str(suite), "--root", str(tmp_path), *extra])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    before = sorted(tmp_path.rglob("*"))
    assert run_main(main, ["run", str(suite), "--root", str(tmp_path), "--no-progress", *extra]) == 2
    assert capsys.readouterr().err == err and sorted(tmp_path.rglob("*")) == before
    return err


@pytest.mark.parametrize("methods, field, message", [
    ("  GRRO: {tune: {gamma: [1, 2]}}\n", "GRRO.tune.gamma", "unknown parameter(s) ['gamma'] for method GRRO"),
    ("  GRRO: {tune: {num_bins: [2, 2.5]}}\n", "GRRO.tune.num_bins",
     "invalid value for parameter 'num_bins' of method GRRO (expected an integer"),
    ("  GRRO: {tune: {alpha: [0.5, true]}}\n", "GRRO.tune.alpha", "(expected a finite number, like the default"),
    ("  GRRO: {tune: {alpha: [0.5, [1]]}}\n", "GRRO.tune.alpha.1", "found [1]"),
    ("  GRRO: {tune: {alpha: []}}\n", "GRRO.tune.alpha", "expected a non-empty list of candidate values; found []"),
    ("  GRRO: {tune: {alpha: 3}}\n", "GRRO.tune.alpha", "expected a valid list; found 3"),
    ("  GRRO: {tune: {alpha: [1, 1]}}\n", "GRRO.tune.alpha", "listed twice"),
    ("  GRRO: {tune: {alpha: [1, 1.0]}}\n", "GRRO.tune.alpha", "listed twice"),
    ("  GRRO: {tune: {}}\n", "GRRO.tune", "expected at least one parameter with its candidate values"),
    ("  GRRO: {tune: [alpha]}\n", "GRRO.tune", "must be a mapping"),
    ("  LRMFS: {tune: {seed: [1, 2]}}\n", "LRMFS.tune.seed", "list random starts under seeds"),
    ("  GRRO: {params: {alpha: 1}, tune: {alpha: [1, 2]}}\n", "GRRO.tune.alpha", "alpha is both fixed and tuned"),
])
def test_bad_tune_grids_are_refused_with_one_line(tmp_path, capsys, methods, field, message):
    err = _refusal(tmp_path, capsys, methods)
    assert message in err and "suite.yaml" in err and f"field 'methods.{field}'" in err


KFOLD = TUNING.replace("holdout, count: 1, test_size: 0.25", "kfold, count: 3")


@pytest.mark.parametrize("tuning, field, message", [
    ("", "methods.GRRO.tune", "tune needs the suite's tuning section"),
    (TUNING.replace("holdout, count: 1", "bagging, count: 1"), "tuning.inner.mode",
     "expected 'kfold' or 'holdout'; found 'bagging'"),
    (TUNING.replace("micro_f1", "accuracy"), "tuning.criterion.metric", "found 'accuracy'"),
    (TUNING.replace("grid: kgrid", "grid: kgrid, at: p_target"), "tuning.criterion.at",
     "p_target applies to grid pgrid only"),
    (TUNING.replace("grid: kgrid", "grid: pgrid, at: median"), "tuning.criterion.at", "expected 'mean' or 'p_target'"),
    (TUNING.replace("test_size: 0.25", "test_size: 1.5"), "tuning.inner.test_size", "expected less than 1"),
    (TUNING.replace("test_size: 0.25", "test_size: 0"), "tuning.inner.test_size", "expected greater than 0"),
    (TUNING.replace("grid: kgrid", "grid: qgrid"), "tuning.criterion.grid", "expected 'kgrid' or 'pgrid'"),
    (KFOLD.replace("count: 3", "count: 1"), "tuning.inner.count", "at least 2 folds for mode kfold; found 1"),
    (KFOLD.replace("count: 3", "count: 3, test_size: 0.2"), "tuning.inner.test_size", "applies to holdout only"),
    (TUNING.replace("seed: 0", "seed: 4294967295"), "tuning.inner.seed", "seed out of range"),
    (TUNING.replace("count: 1", "count: 1.0"), "tuning.inner.count", "expected a valid integer"),
    (TUNING.replace("  criterion: {metric: micro_f1, grid: kgrid}\n", ""), "tuning.criterion", "required key missing"),
    (TUNING + "  extra: 1\n", "tuning.extra", "unknown key"),
])
def test_bad_tuning_sections_are_refused_with_one_line(tmp_path, capsys, tuning, field, message):
    err = _refusal(tmp_path, capsys, "  GRRO: {tune: {alpha: [1, 2]}}\n", tuning)
    assert message in err and f"field '{field}'" in err


_TUNING_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 5), st.integers(2**31, 2**40), st.floats(allow_nan=False),
    st.sampled_from(["holdout", "kfold", "micro_f1", "hamming_loss", "kgrid", "pgrid", "mean", "p_target", "false",
                     "0.3", "seed"]),
    st.lists(st.one_of(st.integers(0, 3), st.floats(0, 2), st.booleans(), st.text(max_size=3), st.just([1])),
             max_size=3),
    st.dictionaries(st.sampled_from(["alpha", "mode", "x"]), st.integers(0, 2), max_size=2))


@st.composite
def tuned_declarations(draw) -> dict:
    """The tuning section and a method's tune grid of a valid suite, with one to three keys set or removed."""
    inner = {"mode": "holdout", "count": 1, "test_size": 0.25, "seed": 0}
    criterion = {"metric": "micro_f1", "grid": "kgrid"}
    tune = {"alpha": [1, 2]}
    tuning, method = {"inner": inner, "criterion": criterion}, {"tune": tune}
    for _ in range(draw(st.integers(1, 3))):
        node = draw(st.sampled_from([inner, criterion, tuning, method, tune]))
        key = draw(st.sampled_from(["mode", "count", "test_size", "seed", "metric", "grid", "at", "inner", "tune",
                                    "params", "alpha", "beta", "num_bins", "x"]))
        if draw(st.booleans()) and isinstance(node, dict):
            node.pop(key, None)
        elif isinstance(node, dict):
            node[key] = draw(_TUNING_VALUES)
    return {"tuning": tuning, "methods": {"GRRO": method}}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(declared=tuned_declarations())
def test_generated_tuning_declarations_validate_or_are_refused_alike_by_status_and_run(tmp_path_factory, capsys,
                                                                                        declared):
    root = tmp_path_factory.mktemp("generated")
    suite = root / "suite.yaml"
    suite.write_text(BASE + yaml.safe_dump(declared))
    code = run_main(main, ["status", str(suite), "--root", str(root)])
    err = capsys.readouterr().err
    if code == 0:
        return
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "suite.yaml" in err, err
    assert run_main(main, ["run", str(suite), "--root", str(root), "--no-progress"]) == 2
    assert capsys.readouterr().err == err and sorted(root.iterdir()) == [suite]


def test_a_criterion_grid_the_suite_does_not_declare_is_refused(tmp_path, capsys):
    path = _suite(tmp_path, "  GRRO: {tune: {alpha: [1, 2]}}\n", TUNING.replace("grid: kgrid", "grid: pgrid"))
    path.write_text(path.read_text().replace(", pgrid: {p_target: 0.2}", ""))
    assert run_main(main, ["status", str(path), "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "field 'tuning.criterion.grid': the criterion's grid is not one of the suite's grids" in err
    assert "expected ['kgrid']; found 'pgrid'" in err


def test_a_declared_tuning_is_read_as_written(tmp_path):
    suite = load_suite(_suite(tmp_path, "  GRRO: {tune: {alpha: [1, 2.5], num_bins: [3]}}\n",
                              KFOLD.replace("micro_f1, grid: kgrid", "hamming_loss, grid: pgrid, at: p_target")))
    assert suite.methods[0].tune == (("alpha", (1, 2.5)), ("num_bins", (3,)))
    declared = suite.tuning
    assert (declared.mode, declared.count, declared.seed, declared.test_size) == ("kfold", 3, 0, None)
    assert (declared.metric, declared.grid.mode, declared.statistic) == ("hamming_loss", "pgrid", "p_target")
    holdout = load_suite(_suite(tmp_path, "  GRRO: {tune: {alpha: [1]}}\n",
                                TUNING.replace("count: 1, test_size: 0.25, seed: 0", "count: 2"))).tuning
    assert (holdout.test_size, holdout.seed, holdout.statistic) == (0.25, 0, "mean")  # the documented defaults


def test_a_candidate_set_beyond_max_tasks_is_refused_before_it_is_expanded(tmp_path, capsys):
    err = _refusal(tmp_path, capsys, "  GRRO: {tune: {alpha: [1.0, 2.0, 3.0], beta: [1.0, 2.0]}}\n", TUNING,
                   "--max-tasks", "13")
    assert "the run has 14 tasks (tuning candidates included)" in err  # 2 folds x (1 final + 6 candidates)
    huge = "  GRRO: {tune: {alpha: [%s], beta: [%s]}}\n" % (", ".join(map(str, range(1, 10**3))),
                                                         ", ".join(map(str, range(1, 10**3))))
    assert "the run has 1996004 tasks" in _refusal(tmp_path, capsys, huge)  # counted, never expanded


def test_the_candidate_set_is_the_cartesian_product_in_declared_order(tmp_path):
    suite = load_suite(_suite(tmp_path, "  GRRO: {tune: {beta: [0.1, 10], alpha: [1, 100, 1000]}}\n  LRMFS: {}\n"))
    assert suite.methods[0].candidates() == [{"beta": b, "alpha": a} for b in (0.1, 10) for a in (1, 100, 1000)]
    candidates = suite.candidate_tasks()
    assert len(candidates) == 12 and {t.stage for t in candidates} == {"candidate"}
    assert len({t.key for t in candidates}) == 12 and len({candidate_id(t.params_json) for t in candidates}) == 6
    assert suite.methods[1].candidates() == [] and {t.method for t in candidates} == {"GRRO"}
    assert [t.stage for t in suite.tasks() if t.method != REFERENCE_FOLDER] == ["tuned", "", "tuned", ""]


def test_an_inner_split_too_small_for_the_labels_is_refused(tmp_path, capsys):
    suite = load_suite(_suite(tmp_path, "  GRRO: {tune: {alpha: [1, 2]}}\n"))
    check_inner_sizes(suite, tmp_path)  # no fold exported yet: nothing to check
    rng = np.random.default_rng(0)
    folds = tmp_path / "data" / "paper_matlab_minmax" / "emotions"
    for fold in (0, 1):  # 40 training rows: 10 validation rows cannot hold 12 labels
        Y = (rng.random((40, 12)) < 0.3).astype(np.int8)
        save_fold(folds / f"fold{fold}.mat", rng.random((40, 5)), Y, rng.random((5, 5)), Y[:5])
        sidecar = {"settings": asdict(dataset_settings(suite, "emotions")),  # as if exported with the suite's settings
                   "n_train": 40, "n_test": 5, "fold_sha256": sha256_file(folds / f"fold{fold}.mat")}
        (folds / f"fold{fold}.json").write_text(json.dumps(sidecar))
    with pytest.raises(ConfigError, match="fold0.mat.*too small to hold every label.*found 10 validation"):
        check_inner_sizes(suite, folds.parent)
    err = _refusal(tmp_path, capsys, "  GRRO: {tune: {alpha: [1, 2]}}\n")  # at the door of status and run
    assert "fold0.mat, field 'tuning.inner': the inner split is too small to hold every label" in err


def _spec(**changes) -> TuningSpec:
    values = dict(mode="holdout", count=2, seed=3, test_size=0.3, scaler="minmax", clip_test=False,
                  metric="hamming_loss", grid=GridSpec("pgrid", p_min=0.2, p_max=0.6, p_step=0.2, p_target=0.4))
    return TuningSpec(**{**values, **changes})


def test_inner_splits_partition_the_training_part_and_are_rescaled_on_their_training_part():
    rng = np.random.default_rng(1)
    X, Y = rng.random((80, 6)) * 7 + 2, (rng.random((80, 4)) < 0.4).astype(np.uint8)
    first, second = make_inner_splits(X, Y, _spec()), make_inner_splits(X, Y, _spec())
    assert [s.describe() for s in first] == [s.describe() for s in second]  # deterministic for the seed
    for split in first:
        assert sorted(np.concatenate([split.train, split.validation]).tolist()) == list(range(80))
        assert split.X_train.min(axis=0) == pytest.approx(0) and split.X_train.max(axis=0) == pytest.approx(1)
        scale = (X[split.train].max(axis=0) - X[split.train].min(axis=0))
        assert np.allclose(split.X_validation, (X[split.validation] - X[split.train].min(axis=0)) / scale)
        assert np.array_equal(split.Y_validation, Y[split.validation])
    assert first[0].describe()["indices_sha256"] != first[1].describe()["indices_sha256"]


def test_the_p_grid_criterion_is_the_mean_or_the_value_at_p_target():
    curves = {"k_values": [2, 4, 6], **{m: [0.3, 0.1, 0.2] for m in METRICS}}
    assert criterion_scores(curves, _spec(), 10)["criterion"] == pytest.approx(0.2)  # p 0.2, 0.4, 0.6 -> k 2, 4, 6
    assert criterion_scores(curves, _spec(statistic="p_target"), 10)["criterion"] == 0.1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.just(math.nan), st.sampled_from([0.25, 0.5])), min_size=1,
                max_size=8), st.booleans())
def test_the_best_candidate_respects_direction_ignores_nan_and_breaks_ties_to_the_first(criteria, higher):
    chosen = best_candidate(criteria, higher)
    numbers = [c for c in criteria if not math.isnan(c)]
    if not numbers:
        assert chosen == 0
        return
    best = max(numbers) if higher else min(numbers)
    assert criteria[chosen] == best and chosen == criteria.index(best)


def test_the_parameter_report_labels_test_set_sweeps_as_optimistic(tmp_path):
    from pipeline.fileio import atomic_write_json
    from pipeline.methods import get_method
    from pipeline.paper.parameters import selection_of, write_parameter_report

    defaults = get_method("GRRO").resolve_params({})
    for folder, params in (("GRRO", defaults), ("GRRO__alpha_1", {**defaults, "alpha": 1}),
                           ("SRFS__seed_1", get_method("SRFS").resolve_params({"seed": 1})),
                           ("LSMFS", get_method("LSMFS").resolve_params({"alpha": 0.5}))):
        atomic_write_json(tmp_path / folder / "emotions_fold0_kgrid_metrics.json", {"params": params})
    kinds = {f: selection_of(tmp_path, f, ["emotions"], 1) for f in ("GRRO", "GRRO__alpha_1", "SRFS__seed_1", "LSMFS")}
    assert {f: s.kind for f, s in kinds.items()} == {"GRRO": "defaults", "GRRO__alpha_1": "sweep",
                                                      "SRFS__seed_1": "defaults", "LSMFS": "declared"}
    assert kinds["LSMFS"].detail == "alpha=0.5"
    write_parameter_report(tmp_path, list(kinds), ["emotions"], 1, tmp_path / "out", figures=False)
    table = (tmp_path / "out" / "parameter_selection.md").read_text()
    assert "| GRRO\\_\\_alpha\\_1 | test-set sweep (optimistic) | alpha=1; picked on the outer test part |" in table
    assert "test-set sweep (optimistic)" in (tmp_path / "out" / "parameter_selection.tex").read_text()
