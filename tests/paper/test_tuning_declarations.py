"""The ``tuning:`` and ``tune:`` declarations: what is refused before any work, and the selection rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.cli import run_main
from pipeline.data.folds import save_fold
from pipeline.errors import ConfigError
from pipeline.evaluation.metrics import METRICS
from pipeline.paper.__main__ import main
from pipeline.paper.suite import load_suite
from pipeline.paper.tuning import check_inner_sizes
from pipeline.runner.inner import TuningSpec, best_candidate, criterion_scores, make_inner_splits
from pipeline.runner.tasks import REFERENCE_METHOD, GridSpec

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
    code = run_main(main, ["status", str(_suite(tmp_path, methods, tuning)), "--root", str(tmp_path), *extra])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize("methods, message", [
    ("  GRRO: {tune: {gamma: [1, 2]}}\n", "unknown parameter(s) ['gamma'] for method GRRO"),
    ("  GRRO: {tune: {num_bins: [2, 2.5]}}\n", "invalid value for parameter 'num_bins'"),
    ("  GRRO: {tune: {alpha: []}}\n", "must be a non-empty list of candidate values"),
    ("  GRRO: {tune: {alpha: 3}}\n", "must be a non-empty list of candidate values"),
    ("  GRRO: {tune: {alpha: [1, 1]}}\n", "listed twice"),
    ("  GRRO: {tune: {}}\n", "tune declares no parameter"),
    ("  LRMFS: {tune: {seed: [1, 2]}}\n", "seed is not tuned"),
    ("  GRRO: {params: {alpha: 1}, tune: {alpha: [1, 2]}}\n", "both fixed (params) and tuned (tune)"),
])
def test_bad_tune_grids_are_refused_with_one_line(tmp_path, capsys, methods, message):
    err = _refusal(tmp_path, capsys, methods)
    assert message in err and "suite.yaml" in err


@pytest.mark.parametrize("tuning, message", [
    ("", "tune needs the suite's tuning section"),
    (TUNING.replace("holdout, count: 1", "bagging, count: 1"), "unknown inner split mode"),
    (TUNING.replace("micro_f1", "accuracy"), "unknown metric"),
    (TUNING.replace("grid: kgrid", "grid: kgrid, at: p_target"), "unknown criterion statistic"),
    (TUNING.replace("test_size: 0.25", "test_size: 1.5"), "holdout needs a test fraction"),
    (TUNING.replace("grid: kgrid", "grid: qgrid"), "the criterion's grid is not one of the suite's grids"),
])
def test_bad_tuning_sections_are_refused_with_one_line(tmp_path, capsys, tuning, message):
    assert message in _refusal(tmp_path, capsys, "  GRRO: {tune: {alpha: [1, 2]}}\n", tuning)


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
    assert len({t.key for t in candidates}) == 12 and len({t.candidate_id for t in candidates}) == 6
    assert suite.methods[1].candidates() == [] and {t.method for t in candidates} == {"GRRO"}
    assert [t.stage for t in suite.tasks() if t.method != REFERENCE_METHOD] == ["tuned", "", "tuned", ""]


def test_an_inner_split_too_small_for_the_labels_is_refused(tmp_path):
    suite = load_suite(_suite(tmp_path, "  GRRO: {tune: {alpha: [1, 2]}}\n"))
    rng = np.random.default_rng(0)
    for fold in (0, 1):  # 40 training rows: 10 validation rows cannot hold 12 labels
        Y = (rng.random((40, 12)) < 0.3).astype(np.int8)
        save_fold(tmp_path / "emotions" / f"fold{fold}.mat", rng.random((40, 5)), Y, rng.random((5, 5)), Y[:5])
    with pytest.raises(ConfigError, match="fold0.mat.*too small to hold every label.*found 10 validation"):
        check_inner_sizes(suite, tmp_path)


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
