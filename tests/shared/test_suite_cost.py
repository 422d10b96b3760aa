"""bench/suite_cost.py: the wall time of a suite's tasks on W workers, and the seconds it reads from
the records a run wrote (the script never runs a suite itself)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hypothesis import given, strategies as st

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import suite_cost  # noqa: E402

from pipeline.runner.tasks import Task  # noqa: E402

DURATIONS = st.lists(st.floats(0.0, 1e4, allow_nan=False), min_size=1, max_size=60)


@given(DURATIONS, st.integers(1, 8))
def test_the_wall_time_lies_within_the_list_scheduling_bounds(seconds, workers):
    """One worker takes the sum; W workers at least the longest task and sum / W, at most
    sum / W + the longest task (Graham's bound for tasks handed out in order)."""
    span = suite_cost.makespan(seconds, workers)
    total, longest = sum(seconds), max(seconds)
    tolerance = 1e-9 * (total + 1)
    assert max(longest, total / workers) - tolerance <= span <= total / workers + longest + tolerance
    if workers == 1:
        assert abs(span - total) <= tolerance


def test_a_task_costs_its_ranking_and_one_evaluation_and_a_missing_record_is_not_a_number(tmp_path):
    task = Task("SRFS", "emotions", 0)
    (tmp_path / "SRFS").mkdir()
    (tmp_path / "SRFS" / "emotions_fold0_ranking.json").write_text(
        json.dumps({"time_rank_seconds": 2.0, "time_rank_overhead_seconds": 0.5}))
    assert suite_cost.task_seconds(tmp_path, task) is None  # not evaluated yet
    for grid in ("kgrid", "pgrid"):  # one ML-kNN pass scores both grids: both records hold its time
        (tmp_path / "SRFS" / f"emotions_fold0_{grid}_metrics.json").write_text(json.dumps({"time_eval_seconds": 3.0}))
    assert suite_cost.task_seconds(tmp_path, task) == 5.5


SUITE = """
name: budgets
datasets: [emotions]
folds: {mode: holdout, count: 1, seed: 42, test_size: reference}
methods: {SRFS: {}, MDFS: {}, GRRO: {}}
engine: python
grids: {kgrid: {k_min: 10, k_max: 30, k_step: 10}}
run: {results_dir: results/budgets}
"""


def test_a_task_out_of_budget_costs_what_it_used_and_is_named_with_its_budget(tmp_path, capsys):
    """SRFS finished (5.5 s), MDFS was stopped at its time budget after 600 s, GRRO has not run: the
    suite has ended two tasks, 605.5 s of them, and names MDFS's budget and GRRO as not done."""
    from pipeline.experiment.model import load_suite
    from pipeline.paper.run import PaperPaths
    from pipeline.results.budget import write_budget_record

    (tmp_path / "suite.yaml").write_text(SUITE)
    results = PaperPaths.of(load_suite(tmp_path / "suite.yaml"), tmp_path).results
    (results / "SRFS").mkdir(parents=True)
    (results / "SRFS" / "emotions_fold0_ranking.json").write_text(
        json.dumps({"time_rank_seconds": 2.0, "time_rank_overhead_seconds": 0.5}))
    (results / "SRFS" / "emotions_fold0_kgrid_metrics.json").write_text(json.dumps({"time_eval_seconds": 3.0}))
    write_budget_record(results, "MDFS", "emotions", 0, {
        "task": "MDFS/emotions/fold0", "budget": "time", "limit": 600, "seconds": 600.2,
        "peak_memory_bytes": 2**30, "message": "out of its time budget of 600 s after 600.2 s"})

    assert suite_cost.stopped_at_budget(results, Task("MDFS", "emotions", 0)) == ("time", 600.2)
    assert suite_cost.stopped_at_budget(results, Task("SRFS", "emotions", 0)) is None
    assert suite_cost.main([str(tmp_path / "suite.yaml"), "--root", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "2 of 4 tasks ended (1 of them out of budget), 0.17 task-hours recorded" in printed
    assert "the ended tasks on 1 worker(s): 0.17 h of wall time" in printed
    assert "out of budget: MDFS on emotions (time, 600 s)" in printed
    assert "GRRO/emotions/fold0" in printed and "not done (2)" in printed  # GRRO and the all-features reference
