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
