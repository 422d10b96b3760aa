"""Whether a task's existing files can be kept, and if not, why (the reasons runs and ``status`` print).

A ranking is fresh when it is complete (``_time.txt`` written last), its ``_ranking.json`` records
the same parameters, the SHA-256 of the fold's current training part
(:func:`~pipeline.runner.inner.training_sha256`: the test part does not count), and the code
fingerprint recorded there equals the current one of the method in the engine that will run it. A
metrics file is fresh when it is complete, was made with the same ML-kNN, grid and parameters, from
the current fold file and ranking file (same SHA-256s) and by the current evaluator code. Records
written before the fold hashes were recorded are stale (:data:`BEFORE_FOLD_HASHES`): nothing says
which data they were computed from. A file that no longer matches its own record, edited after it
was written, is stale too: a ranking record names the SHA-256 of its ranking file, a metrics file
carries the digest of its content (:mod:`~pipeline.results.digest`). Each returns ``None`` (fresh) or a short reason, through
:func:`~pipeline.results.staleness.staleness`.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..evaluation.metrics import METRICS
from ..results.digest import content_unchanged
from ..results.layout import TaskFiles
from ..results.staleness import code_changed, evaluator_changed, sha256_or_none, staleness
from .store import ResultStore

#: The reasons of a task that has no result yet (as opposed to a stale one).
NO_RANKING = "no ranking yet"
NO_METRICS = "no metrics yet"
#: The reasons of results computed from other data than the fold file holds now.
TRAINING_CHANGED = "the fold's training part changed"
FOLD_CHANGED = "the fold file changed"
#: The reason of a record that does not name the data it was computed from.
BEFORE_FOLD_HASHES = "made before fold hashes were recorded"
#: The reasons of result files changed after they were written (by hand, by another program).
RANKING_EDITED = "the ranking file differs from the one its record describes"
METRICS_EDITED = "the metrics file differs from its digest (edited after it was written)"
NO_METRICS_DIGEST = "made before metrics files carried a digest of their content"


def ranking_staleness(store: ResultStore, files: TaskFiles, d: int, params: dict, method_code: dict,
                      training: str, selected_by: str | None = None) -> str | None:
    """Why the ranking must be (re)computed, or None if it can be reused.

    ``training``: the SHA-256 of the fold's current training part; ``selected_by``: how the parameters were chosen (a tuned method's ``"inner validation"``), which
    the ranking's record must say too.
    """
    from ..results.schema import read_ranking_record  # pydantic: imported when a record is read

    if not store.has_ranking(files, d):
        return NO_RANKING
    return staleness(files.ranking_record, read_ranking_record, "ranking record",
                     "the ranking has no record of the code that made it", [
                         lambda record: None if record.params == params else
                         "the ranking was made with other parameters",
                         lambda record: same_data(record.training_sha256, training, TRAINING_CHANGED),
                         lambda record: None if record.ranking_sha256 == sha256_or_none(files.ranking) else
                         RANKING_EDITED,
                         lambda record: None if record.selected_by == selected_by else
                         f"the ranking's parameters were not selected by {selected_by or 'the suite'}",
                         lambda record: code_changed("method", None if record.code is None else record.code.as_dict(),
                                                     method_code)])


def metrics_staleness(files: TaskFiles, mode: str, expected: dict, evaluator: str, evaluator_code: dict,
                      fold_file: Path, *, overwrite: bool, replaced_by: str | None = None) -> str | None:
    """Why one grid's metrics must be (re)computed, or None if the file can be kept.

    ``fold_file``: the fold the metrics must have been scored on.

    ``replaced_by``: the reason to give when the file holds other settings that are meant to be
    replaced (a tuned method whose selection changed) instead of refusing them.

    Raises
    ------
    ConfigError
        If the file was made with other settings (ML-kNN, grid or parameters), ``overwrite`` is off
        and ``replaced_by`` is None: keeping both would mix settings in one results folder.
    """
    from ..results.schema import Provenance, read_metrics_file

    path = files.metrics(mode)

    def same_settings(record) -> str | None:
        if all(record.value(key) == value for key, value in expected.items()):
            return None
        if replaced_by is not None:
            return replaced_by
        if not overwrite:
            raise ConfigError("result exists with other settings (ML-kNN, grid or parameters); use --overwrite "
                              "or another results folder", file=path)
        return "other settings (--overwrite)"

    def same_fold(record) -> str | None:
        return same_data((record.provenance or Provenance()).fold_sha256, sha256_or_none(fold_file), FOLD_CHANGED)

    def same_ranking(record) -> str | None:
        recorded = (record.provenance or Provenance()).ranking_sha256
        return None if recorded == sha256_or_none(files.ranking) else "the ranking changed since it was scored"

    def unedited(record) -> str | None:
        if record.content_sha256 is None:
            return NO_METRICS_DIGEST
        return None if content_unchanged(path, record.content_sha256) else METRICS_EDITED

    return staleness(path, lambda p: read_metrics_file(p, mode), "metrics file", NO_METRICS, [
        later_metrics_absent, same_settings, same_fold, same_ranking, unedited,
        lambda record: evaluator_changed(record.provenance or Provenance(), evaluator, evaluator_code)])


def same_data(recorded: str | None, current: str | None, changed: str) -> str | None:
    """None when a record's hash of its input equals the input's current one; else ``changed``, or
    :data:`BEFORE_FOLD_HASHES` when the record has none."""
    if recorded is None:
        return BEFORE_FOLD_HASHES
    return None if recorded == current else changed



def later_metrics_absent(record) -> str | None:
    """The reason for a metrics file made before the evaluator computed some of its metrics."""
    from ..results.schema import absent_metrics

    absent = sorted(absent_metrics(record), key=METRICS.index)
    return f"made before the evaluator computed {', '.join(absent)}" if absent else None
