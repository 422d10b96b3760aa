"""The results store: where each task's files live, and whether they are complete.

Layout (names from :mod:`pipeline.results.layout`; see ``docs/results-schema.md``)::

    <root>/<METHOD>/<DATASET>_fold<i>_scores.csv         "feature,score" then one row per feature, %.17g
    <root>/<METHOD>/<DATASET>_fold<i>_ranking.csv        1-based ranking, one integer per line
    <root>/<METHOD>/<DATASET>_fold<i>_ranking.json       parameters, engine, code fingerprint, timings
    <root>/<METHOD>/<DATASET>_fold<i>_time.txt           the method's own ranking seconds, "%.6f\\n"
    <root>/<METHOD>/<DATASET>_fold<i>_kgrid_metrics.json
    <root>/<METHOD>/<DATASET>_fold<i>_pgrid_metrics.json

Every file is written atomically (temporary name + rename). The scores, the ranking, its record
and the time file are written in that order, so a ranking counts as complete only when the time file exists and the ranking is a valid
permutation of 1..d; a metrics file counts only if it passes its schema (:mod:`pipeline.results.schema`):
every metric, typed, with lists aligned to its grid.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..errors import RankingError
from ..fileio import atomic_write_json, atomic_write_text, ensure_directory, remove_abandoned_temporaries
from ..rankings import read_ranking_file
from ..results.digest import with_digest
from ..results.layout import TaskFiles, task_files


class ResultStore:
    """Files of one results directory (``results/<RUN_DIR>``)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def files(self, folder: str, dataset: str, fold: int) -> TaskFiles:
        return task_files(self.root, folder, dataset, fold)

    def remove_partial_files(self, files: TaskFiles) -> list[Path]:
        """Delete temporary files a dead writer left for this task; a live writer's are kept.

        Call while holding the task's claim: a temporary that names no live writer of this host
        (another host's, an older version's) is then abandoned, whatever its age.
        """
        removed = []
        for final in files.all():
            removed += remove_abandoned_temporaries(final, unnamed_after=0.0)
        return removed

    # -- rankings -------------------------------------------------------------------------
    def write_ranking(self, files: TaskFiles, ranking: np.ndarray, seconds: float, scores: np.ndarray,
                      record: dict) -> None:
        """Write the scores, the ranking, its record (with the ranking file's SHA-256), then the time
        file (complete once the time exists)."""
        files.time.unlink(missing_ok=True)  # an old time file must not vouch for the new ranking mid-write
        atomic_write_text(files.scores, format_scores(scores))
        text = "".join(f"{int(v)}\n" for v in ranking)
        atomic_write_text(files.ranking, text)
        # the record names the file it describes: a ranking edited afterwards no longer matches it
        atomic_write_json(files.ranking_record, {**record, "ranking_sha256": hashlib.sha256(text.encode("ascii")).hexdigest()})
        atomic_write_text(files.time, f"{seconds:.6f}\n")

    def read_time(self, files: TaskFiles) -> float | None:
        """The ranking seconds of ``_time.txt`` (None if absent or unreadable, e.g. external rankings)."""
        try:
            return float(files.time.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None

    def read_ranking(self, path: Path, d: int) -> np.ndarray:
        """Read and validate a ranking file (one value per line, or one comma-separated row).

        The file's size is bounded by d before it is read (:func:`~pipeline.rankings.read_ranking_file`).
        """
        return read_ranking_file(path, d)

    def has_ranking(self, files: TaskFiles, d: int) -> bool:
        """True if the ranking and its time file exist and the ranking is a permutation of 1..d."""
        if not (files.ranking.is_file() and files.time.is_file()):
            return False
        try:
            self.read_ranking(files.ranking, d)
        except RankingError:
            return False
        return True

    # -- metrics --------------------------------------------------------------------------
    def write_metrics(self, files: TaskFiles, mode: str, record: dict) -> Path:
        """Write a metrics file with the digest of its values (:mod:`~pipeline.results.digest`)."""
        return atomic_write_json(files.metrics(mode), with_digest(record))


def format_scores(scores: np.ndarray) -> str:
    """``feature,score`` then one row per feature (1-based, in feature order), each score as ``%.17g``
    (enough digits to read back the same double; MATLAB's sprintf writes the same text)."""
    return "feature,score\n" + "".join(f"{j},{float(v):.17g}\n" for j, v in enumerate(scores, start=1))


def ensure_results_root(root: Path) -> Path:
    """Create the results directory; StorageError if it cannot be (see :func:`ensure_directory`)."""
    return ensure_directory(root, "results directory")
