"""A suite's tuned methods: the checks made before any work, and the selection between the phases.

``paper run`` runs every candidate (and every untuned task) first; then, per (method variant,
dataset, outer fold), :func:`~pipeline.runner.tuning.select` picks the best candidate on the inner
criterion and writes the tuning record; then the tuned methods' final tasks rank the whole outer
training part with the chosen parameters and are scored on the outer test part (docs/tuning.md).
"""

from __future__ import annotations

from collections import defaultdict

from ..data.folds import fold_path
from ..data.matheader import read_mat_headers
from ..errors import ConfigError
from ..runner.run import RunSettings
from ..runner.tasks import Task, canonical_params
from ..runner.tuning import select
from .model import Experiment


def check_task_count(suite: Experiment, max_tasks: int) -> None:
    """ConfigError when the suite's tasks and candidates exceed ``max_tasks`` (counted, not expanded)."""
    runs = sum(len(suite.folds_of(dataset)) for dataset in suite.datasets)
    total = runs * sum(entry.variant_count() * (1 + entry.candidate_count()) for entry in suite.methods)
    if total > max_tasks:
        tuned = " (tuning candidates included)" if any(entry.tune for entry in suite.methods) else ""
        raise ConfigError(f"the run has {total} tasks{tuned}", field="--max-tasks",
                          expected=f"at most {max_tasks} (raise --max-tasks to run them)")


def check_inner_sizes(suite: Experiment, folds_dir) -> None:
    """ConfigError, before any work, when an inner split of some fold cannot hold every label.

    Read from the fold files' headers: an inner validation part needs at least as many rows as the
    fold has labels, and an inner training part more rows than ML-kNN's neighbour count. A fold
    not exported yet is skipped (``paper run`` checks again once it has exported the folds).
    """
    spec = suite.tuning
    if spec is None or not any(entry.tune for entry in suite.methods):
        return
    for dataset in suite.datasets:
        for fold in suite.folds_of(dataset):
            path = fold_path(folds_dir, dataset, fold)
            if not path.is_file():
                continue
            dims = {variable.name: variable.dims for variable in read_mat_headers(path)}.get("Y_train")
            if not dims or len(dims) != 2:
                continue  # an unreadable fold is reported by its task, precisely
            n_train, n_labels = int(dims[0]), int(dims[1])
            share = spec.test_size if spec.mode == "holdout" else 1.0 / spec.count
            n_validation = int(n_train * share)
            if n_validation < n_labels or n_train - n_validation <= suite.mlknn_k:
                raise ConfigError("the inner split is too small to hold every label", file=path,
                                  field="tuning.inner",
                                  expected=f">= {n_labels} validation rows (one per label) and > {suite.mlknn_k} "
                                           "inner training rows",
                                  found=f"{n_validation} validation and {n_train - n_validation} training rows "
                                        f"of {n_train}")


def tuned_tasks(suite: Experiment, settings: RunSettings, *, record: bool = True) -> tuple[list[Task], list[Task]]:
    """(final tasks with their chosen parameters, tuned tasks still waiting for candidates).

    With ``record`` the tuning records are written (``paper run``); without, nothing is (``status``).
    """
    candidates = defaultdict(list)
    for task in suite.candidate_tasks():
        candidates[(task.folder, task.dataset, task.fold)].append(task)
    ready, waiting = [], []
    for task in suite.tasks():
        if task.stage != "tuned":
            continue
        chosen = select(settings.results_dir, candidates[(task.folder, task.dataset, task.fold)], settings,
                        record=record)
        if chosen is None:
            waiting.append(task)
        else:
            ready.append(Task(task.method, task.dataset, task.fold,
                              canonical_params({**task.overrides, **chosen}), task.label, "tuned"))
    return ready, waiting
