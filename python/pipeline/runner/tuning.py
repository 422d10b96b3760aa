"""Candidate tasks and the selection they feed (docs/tuning.md).

A candidate task (:attr:`~pipeline.runner.tasks.Task.stage` ``"candidate"``) ranks the features of
every inner training part of one outer fold with one candidate's parameters and scores each ranking
with ML-kNN on the matching inner validation part. Its record,
``<METHOD>/<DATASET>_fold<i>_candidates/<candidate id>.json``, is fresh while the outer training part
(its SHA-256, not the fold file's: the outer test part does not count), the tuning settings, the
parameters and the method's and evaluator's code stay the same.

:func:`select` reads a fold's candidate records in declared order, picks the best aggregated
criterion (ties to the first candidate) and writes ``<METHOD>/<DATASET>_fold<i>_tuning.json``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.folds import fold_path, load_fold
from ..errors import EngineError, PipelineError
from ..fileio import atomic_write_json, dumps_json, remove_abandoned_temporaries
from ..methods import get_method
from ..rankings import validate_ranking
from ..results.layout import candidate_id, candidate_path, tuning_path
from ..results.staleness import code_changed, staleness
from .fingerprint import evaluator_fingerprint, method_fingerprint
from .inner import best_candidate, criterion_scores, fold_training_sha256
from .records import union_of_k
from .tasks import Task

#: What the final records say about parameters chosen by this module.
SELECTED_BY_INNER = "inner validation"
TUNING_SCHEMA = "mlfs-bench/tuning/1"
#: The reason of a candidate that has no record yet (as opposed to a stale one).
NO_CANDIDATE = "no candidate scores yet"


@dataclass(frozen=True)
class CandidatePlan:
    """What a candidate task needs: ``reason`` why it must be computed (None: its record is fresh)."""

    method_spec: object
    params: dict
    path: Path
    fold_file: Path
    expected: dict
    code: dict
    reason: str | None


def plan_candidate(task: Task, settings) -> CandidatePlan:
    """Decide from the candidate's record and the current code whether it must run (no side effects)."""
    method_spec = get_method(task.method)
    params = method_spec.resolve_params(task.overrides)
    fold_file = fold_path(settings.data_dir, task.dataset, task.fold)
    expected = {"params": params, "training_sha256": fold_training_sha256(fold_file),
                "tuning": settings.tuning.describe(), "mlknn": settings.mlknn,
                "evaluator": settings.evaluator}
    code = {"method": method_fingerprint(method_spec, settings.engine_for(method_spec)),
            "evaluator": evaluator_fingerprint(settings.evaluator)}
    path = candidate_path(settings.results_dir, task.folder, task.dataset, task.fold, task.params_json)
    reason = "--overwrite" if settings.overwrite else _candidate_staleness(path, expected, code)
    return CandidatePlan(method_spec, params, path, fold_file, expected, code, reason)


def _candidate_staleness(path: Path, expected: dict, code: dict) -> str | None:
    from ..results.schema import read_candidate_file  # pydantic: imported when a record is read

    def same(key: str, reason: str):
        return lambda record: None if getattr(record, key) == expected[key] else reason

    def same_code(part: str):
        def check(record) -> str | None:
            recorded = record.code.get(part)
            return code_changed(part, None if recorded is None else recorded.as_dict(), code[part])
        return check

    return staleness(path, read_candidate_file, "candidate record", NO_CANDIDATE, [
        same("params", "the candidate record holds other parameters"),
        same("training_sha256", "the outer training part changed"),
        *(same(key, f"other {key} settings") for key in ("tuning", "mlknn", "evaluator")),
        same_code("method"), same_code("evaluator")])


def run_candidate(task: Task, settings, bench) -> tuple[str, str]:
    """Bring one candidate's record up to date; return (status, reason). Call holding its claim."""
    from ..results.schema import CANDIDATE_SCHEMA

    plan = plan_candidate(task, settings)
    remove_abandoned_temporaries(plan.path, unnamed_after=0.0)  # a killed writer's, as for ordinary tasks
    if plan.reason is None:
        return "skipped", ""
    fold = load_fold(plan.fold_file, dataset=task.dataset, index=task.fold)
    splits = bench.inner_splits(plan.fold_file, fold)
    engine = bench.engine_for(plan.method_spec)
    d = fold.n_features
    k_values = union_of_k([settings.tuning.grid], d)
    results, failure = [], None
    for split, prepared in splits:
        context = f"{task.key} inner split {split.index}"
        try:
            results.append(_score_split(plan, engine, split, prepared, fold.n_labels, k_values, settings,
                                        bench, context))
        except EngineError as exc:  # the method failed with these parameters: the candidate loses
            failure = str(exc)
            break
    criteria = [r["criterion"] for r in results]
    record = {"schema": CANDIDATE_SCHEMA, "method": task.method, "folder": task.folder, "dataset": task.dataset,
              "fold": task.fold, "overrides": task.overrides, **plan.expected, "code": plan.code,
              "inner_splits": [split.describe() for split, _ in splits], "splits": results,
              "criterion": float(np.mean(criteria)) if criteria and failure is None else float("nan")}
    if failure is not None:
        record["failed"] = failure
    atomic_write_json(plan.path, record)
    return "done", plan.reason if failure is None else f"{plan.reason}; the method failed, the candidate loses"


def _score_split(plan, engine, split, prepared, n_labels, k_values, settings, bench, context) -> dict:
    """Rank one inner training part with the candidate's parameters and score it on the validation
    part, ``prepared`` by the evaluator once for all candidates."""
    d = split.X_train.shape[1]
    init = plan.method_spec.initial_matrices(split.X_train.shape[0], d, n_labels, plan.params)
    started = time.perf_counter()
    ranking, info = engine.rank(plan.method_spec, split.X_train, split.Y_train, plan.params, init, context=context)
    wall = time.perf_counter() - started
    try:
        ranking = validate_ranking(ranking, d, source=f"{plan.method_spec.name} output for {context}")
    except PipelineError as exc:
        raise EngineError(str(exc)) from exc
    started = time.perf_counter()
    curves = bench.evaluator.evaluate_prepared(prepared, ranking, k_values, context=context)
    return {"split": split.index, **criterion_scores(curves, settings.tuning, d),
            "time_rank_seconds": float(info.get("compute_seconds", wall)),
            "time_eval_seconds": time.perf_counter() - started}


def select(results_dir: str | Path, candidates: list[Task], settings, *, record: bool = True) -> dict | None:
    """Choose among one fold's candidates (declared order) and, with ``record``, write its tuning record.

    Returns the chosen parameter overrides, or None while a candidate's record is missing or stale.
    The record is rewritten only when its content changes, so a rerun leaves it byte-identical.
    """
    from ..results.schema import candidate_file_data

    plans = [plan_candidate(task, settings) for task in candidates]
    if any(plan.reason is not None for plan in plans):
        return None
    records = [candidate_file_data(plan.path) for plan in plans]  # each passed its schema just now
    criteria = [_number(record["criterion"]) for record in records]
    chosen = best_candidate(criteria, settings.tuning.higher_is_better)  # the first if every one failed
    first = candidates[0]
    tuning = {
        "schema": TUNING_SCHEMA, "method": first.method, "folder": first.folder, "dataset": first.dataset,
        "fold": first.fold, **settings.tuning.describe(), "mlknn": settings.mlknn,
        "evaluator": settings.evaluator, "training_sha256": records[0]["training_sha256"],
        "inner_splits": records[0]["inner_splits"],
        "candidates": [_candidate_summary(task, record) for task, record in zip(candidates, records)],
        "chosen": {"index": chosen, "overrides": candidates[chosen].overrides,
                   "params": records[chosen]["params"], "criterion": criteria[chosen]},
        "selected_by": SELECTED_BY_INNER,
        "timings": {"candidates_rank_seconds": sum(s["time_rank_seconds"] for r in records for s in r["splits"]),
                    "candidates_eval_seconds": sum(s["time_eval_seconds"] for r in records for s in r["splits"])},
    }
    path = tuning_path(results_dir, first.folder, first.dataset, first.fold)
    existing = path.read_text(encoding="utf-8") if record and path.is_file() else None
    if record and existing != dumps_json(tuning):
        atomic_write_json(path, tuning)
    return candidates[chosen].overrides


def _candidate_summary(task: Task, record: dict) -> dict:
    failed = {"failed": record["failed"]} if "failed" in record else {}
    return {"id": candidate_id(task.params_json), "overrides": task.overrides, "criterion": record["criterion"],
            **failed,
            "per_split": [{"split": s["split"], "criterion": s["criterion"], "k_values": s["k_values"],
                           record["tuning"]["criterion"]["metric"]: s[record["tuning"]["criterion"]["metric"]],
                           "time_rank_seconds": s["time_rank_seconds"], "time_eval_seconds": s["time_eval_seconds"]}
                          for s in record["splits"]]}


def _number(value) -> float:
    """A recorded criterion as a float (strict JSON stores NaN as null)."""
    return float("nan") if value is None else float(value)
