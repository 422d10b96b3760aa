"""Hostile ranking files: a huge file is refused from its size before it is read, and a value that
is not an integer in 1..d is reported as it is written in the file."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest

from pipeline import evaluate
from pipeline.cli import run_main
from pipeline.errors import RankingError
from pipeline.rankings import max_ranking_bytes, read_ranking_file, validate_ranking
from pipeline.runner.store import ResultStore


def test_a_37_mb_ranking_is_refused_from_its_size_with_bounded_memory(tmp_path):
    store = ResultStore(tmp_path)
    files = store.files("M", "toy", 0)
    files.ranking.parent.mkdir()
    files.time.write_text("0.1\n")
    path = files.ranking
    path.write_bytes(b"1\n" * 18_500_000)  # 37 MB for a fold of 25 features
    tracemalloc.start()
    with pytest.raises(RankingError) as info:
        read_ranking_file(path, 25)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 100_000  # nothing of the file was read
    assert str(info.value) == (f"{path}: ranking file is larger than a ranking of 25 features can be "
                               f"(expected at most {25 * 32 + 1024} bytes (32 per feature + 1024); "
                               "found 37000000 bytes)")
    assert not store.has_ranking(files, 25)  # counts as absent: it is recomputed


@pytest.mark.parametrize("formatting", ["%d", "%.18e", "%10d", "%.1f"])
def test_the_size_bound_admits_every_usual_way_of_writing_a_ranking(tmp_path, formatting):
    d = 1836
    ranking = np.random.default_rng(0).permutation(d) + 1
    path = tmp_path / "r.csv"
    np.savetxt(path, ranking, fmt=formatting, newline="\r\n")  # CRLF: the longest line end
    assert path.stat().st_size <= max_ranking_bytes(d)
    np.testing.assert_array_equal(read_ranking_file(path, d), ranking)


@pytest.mark.parametrize("text, message", [
    ("1\n2\n1e30\n", "ranking index out of range (expected values in 1..3; found '1e30' (entry 3))"),
    ("3\n1\n99999999999999999999999\n", "ranking index out of range (expected values in 1..3; found '99999999999999999999...' (entry 3))"),
    ("1\n-2\n3\n", "ranking index out of range (expected values in 1..3; found '-2' (entry 2))"),
    ("1\n2.5\n3\n", "ranking holds non-integer values (expected integers 1..d; found '2.5' (entry 2))"),
    ("1\ninf\n3\n", "ranking holds a non-numeric value (expected integers 1..d; found 'inf')"),
    ("1\n1_0\n3\n", "ranking holds a non-numeric value (expected integers 1..d; found '1_0')"),
    ("1\n\u0662\n3\n", "ranking holds a non-numeric value (expected integers 1..d; found '\u0662')"),
    ("1\n2\n0x3\n", "ranking holds a non-numeric value (expected integers 1..d; found '0x3')"),
])
def test_bad_values_are_reported_as_written(tmp_path, text, message):
    path = tmp_path / "r.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RankingError) as info:
        read_ranking_file(path, 3)
    assert str(info.value) == f"{path}: {message}"


def test_decimal_and_exponent_forms_of_integers_are_accepted(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("\ufeff3.0, 1e0 ,+2\n\n", encoding="utf-8")
    assert read_ranking_file(path, 3).tolist() == [3, 1, 2]


@pytest.mark.parametrize("values, found", [
    (np.array([1.0, 2.0, 1e30]), "found 1e+30 (entry 3)"),
    (np.array([1, 2, 2**63], dtype=np.uint64), f"found {2**63} (entry 3)"),
    (np.array([1, -5, 3]), "found -5 (entry 2)"),
])
def test_in_memory_rankings_are_range_checked_before_the_cast(values, found):
    with pytest.raises(RankingError, match="out of range") as info:
        validate_ranking(values, 3, source="method output")
    assert found in str(info.value)


def test_evaluate_cli_on_a_huge_ranking_is_exit_2(tmp_path, capsys, fold_dir):
    results = tmp_path / "res"
    (results / "OTHER").mkdir(parents=True)
    for fold in (0, 1):
        (results / "OTHER" / f"toy_fold{fold}_ranking.csv").write_bytes(b"1\n" * 1_000_000)
        (results / "OTHER" / f"toy_fold{fold}_time.txt").write_text("0.1\n")
    code = run_main(evaluate.main, ["--methods", "OTHER", "--no-progress", "--data-dir", str(fold_dir),
                                    "--results-dir", str(results)])
    err = capsys.readouterr().err
    assert code == 2 and "toy_fold0_ranking.csv: ranking file is larger than a ranking of 25 features" in err
    failures = json.loads((results / "failures.json").read_text())["failed"]
    assert {f["error_type"] for f in failures} == {"RankingError"}
