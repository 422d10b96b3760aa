"""The results store: layout, ranking validation on read, completeness checks."""

import hashlib
import json

import numpy as np
import pytest

from pipeline.data.folds import sha256_file
from pipeline.errors import ConfigError, RankingError, StorageError
from pipeline.evaluation.metrics import METRICS
from pipeline.fileio import Writer, atomic_write_json
from pipeline.results.digest import with_digest
from pipeline.runner.fingerprint import evaluator_fingerprint
from pipeline.runner.freshness import metrics_staleness
from pipeline.runner.store import ResultStore, ensure_results_root
from pipeline.runner.tasks import GridSpec, Task


def test_layout_matches_schema(tmp_path):
    files = ResultStore(tmp_path).files("DAGFS", "emotions", 3)
    assert files.ranking == tmp_path / "DAGFS" / "emotions_fold3_ranking.csv"
    assert files.time.name == "emotions_fold3_time.txt"
    assert files.metrics("kgrid").name == "emotions_fold3_kgrid_metrics.json"
    assert files.metrics("pgrid").name == "emotions_fold3_pgrid_metrics.json"


@pytest.mark.parametrize("method,dataset", [("../evil", "x"), ("DAGFS", "a/b"), ("..", "x")])
def test_path_like_names_rejected(tmp_path, method, dataset):
    with pytest.raises(ConfigError, match="invalid"):
        ResultStore(tmp_path).files(method, dataset, 0)
    with pytest.raises(ConfigError, match="invalid"):
        Task(method, dataset, 0)


def test_ranking_round_trip_and_completeness(tmp_path):
    store = ResultStore(tmp_path)
    files = store.files("M", "D", 0)
    store.write_ranking(files, np.array([3, 1, 2]), 0.25, np.array([0.5, -0.0, 1e-300 * 3]), {"method": "M"})
    assert files.scores.read_text() == "feature,score\n1,0.5\n2,-0\n3,3.0000000000000002e-300\n"
    assert files.ranking.read_text() == "3\n1\n2\n"
    assert files.time.read_text() == "0.250000\n"
    assert store.read_ranking(files.ranking, 3).tolist() == [3, 1, 2]
    assert store.has_ranking(files, 3)
    assert not store.has_ranking(files, 4)  # wrong d: not a valid ranking for this fold
    files.time.unlink()
    assert not store.has_ranking(files, 3)  # the time file is written last: no time, not complete


@pytest.mark.parametrize("text,message", [("0\n1\n2\n", "0-based"), ("1\n1\n2\n", "repeats"),
                                          ("1\n2\n", "wrong length"), ("1\nx\n3\n", "non-numeric"),
                                          ("1\n2\n7\n", "out of range")])
def test_bad_ranking_files(tmp_path, text, message):
    path = tmp_path / "r.csv"
    path.write_text(text)
    with pytest.raises(RankingError, match=message) as info:
        ResultStore(tmp_path).read_ranking(path, 3)
    assert str(path) in str(info.value)


def test_ranking_as_one_comma_separated_row(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("2,3,1\n")
    assert ResultStore(tmp_path).read_ranking(path, 3).tolist() == [2, 3, 1]


#: The file the metrics records of these tests were "scored on": its SHA-256 is all that counts here.
FOLD_BYTES = b"a fold file"


def _record(mode="kgrid", n=3, fold_sha256=hashlib.sha256(FOLD_BYTES).hexdigest(), **extra):
    record = {"grid_mode": mode, "k_values": list(range(1, n + 1)), "mlknn": {"num": 10, "smooth": 1.0},
              "provenance": {"fold_sha256": fold_sha256, "ranking_sha256": None, "evaluator": "native",
                             "code": {"evaluator": evaluator_fingerprint("native")}}}
    record.update({key: [0.5] * n for key in METRICS})
    if mode == "pgrid":
        record["p_values"] = [0.1] * n
    record.update(extra)
    return record


def test_metrics_staleness_reads_the_file_through_its_schema(tmp_path):
    files = ResultStore(tmp_path).files("M", "D", 0)
    expected = {"mlknn": {"num": 10, "smooth": 1.0}}
    fold_file = tmp_path / "fold0.mat"
    fold_file.write_bytes(FOLD_BYTES)

    def reason(mode="kgrid", wanted=expected, overwrite=False):
        return metrics_staleness(files, mode, wanted, "native", evaluator_fingerprint("native"), fold_file,
                                 overwrite=overwrite)

    assert reason() == "no metrics yet"
    atomic_write_json(files.kgrid, with_digest(_record()))
    assert reason() is None
    with pytest.raises(ConfigError, match="other settings"):
        reason(wanted={"mlknn": {"num": 5, "smooth": 1.0}})
    assert reason(wanted={"mlknn": {"num": 5, "smooth": 1.0}}, overwrite=True) == "other settings (--overwrite)"
    for edit, field in [({"macro_f1": [0.5]}, "macro_f1"), ({"micro_f1": [0.5, "x", 0.5]}, "micro_f1.1"),
                        ({"micro_f1": [0.5, True, 0.5]}, "micro_f1.1"), ({"time_rank_seconds": -1.0},
                                                                          "time_rank_seconds")]:
        atomic_write_json(files.kgrid, _record(**edit))  # what the tables would refuse, the run recomputes
        assert reason() == f"the metrics file is partial or unreadable ({field})"
    files.kgrid.write_text(json.dumps(_record())[:40])  # truncated JSON
    assert reason() == "the metrics file is partial or unreadable"
    record = _record()
    del record["coverage"]
    atomic_write_json(files.kgrid, record)
    assert reason() == "made before the evaluator computed coverage"
    atomic_write_json(files.pgrid, with_digest(_record("pgrid")))
    assert reason("pgrid") is None
    atomic_write_json(files.pgrid, with_digest(_record("pgrid", fold_sha256=None)))
    assert reason("pgrid") == "made before fold hashes were recorded"
    atomic_write_json(files.pgrid, _record("pgrid"))
    assert reason("pgrid") == "made before metrics files carried a digest of their content"
    edited = with_digest(_record("pgrid"))
    edited["micro_f1"] = [0.5, 0.5, 0.9]
    atomic_write_json(files.pgrid, edited)
    assert reason("pgrid") == "the metrics file differs from its digest (edited after it was written)"
    atomic_write_json(files.pgrid, with_digest(_record("pgrid")))
    fold_file.write_bytes(FOLD_BYTES + b" changed")
    assert sha256_file(fold_file) != _record()["provenance"]["fold_sha256"]
    assert reason("pgrid") == "the fold file changed"


def test_results_root_cannot_be_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(StorageError, match="cannot create results directory: a file of that name exists"):
        ensure_results_root(tmp_path / "f")


def test_grid_spec_validation():
    assert GridSpec().describe() == {"k_min": 10, "k_max": 300, "k_step": 10}
    assert GridSpec("pgrid").describe()["p_target"] == 0.2
    with pytest.raises(ConfigError):
        GridSpec("qgrid")


def test_partial_files_of_a_killed_writer_are_removed(tmp_path):
    store = ResultStore(tmp_path)
    files = store.files("M", "D", 0)
    files.ranking.parent.mkdir(parents=True)
    litter = [files.ranking.parent / f".{files.time.name}.ab12.tmp",
              files.ranking.parent / f".{files.kgrid.name}.x9.tmp"]
    for path in litter:
        path.write_text("partial")
    keep = files.ranking.parent / ".D_fold1_time.txt.zz.tmp"  # another task's: not ours to remove
    keep.write_text("partial")
    live = files.ranking.parent / f".{files.ranking.name}.{Writer.current()}.q1.tmp"  # a live writer's
    live.write_text("being written")
    assert sorted(store.remove_partial_files(files)) == sorted(litter)
    assert keep.exists() and live.exists() and not any(p.exists() for p in litter)
