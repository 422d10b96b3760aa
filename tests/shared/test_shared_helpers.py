"""Shared helpers: error messages, safe names, atomic writes, ranking validation, LaTeX escaping."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from pipeline.errors import DataError, RankingError
from pipeline.fileio import atomic_write_json, atomic_write_text, dumps_json
from pipeline.names import validate_name
from pipeline.rankings import validate_ranking
from pipeline.report.latex import latex_environment, latex_escape


def test_error_message_names_file_field_expected_found():
    err = DataError("labels outside {0,1}", file="data/x/fold0.mat", field="Y_train",
                    expected="values in {0,1}", found="value 2")
    assert str(err) == "data/x/fold0.mat, field 'Y_train': labels outside {0,1} (expected values in {0,1}; found value 2)"
    assert "\n" not in str(DataError("a\nb"))


@pytest.mark.parametrize("bad", ["../x", "a/b", "..", ".", "", "a\\b", "x..y", "/abs", "-rf", "a b"])
def test_validate_name_rejects_path_like(bad):
    with pytest.raises(Exception, match="invalid"):
        validate_name(bad, "dataset")


@pytest.mark.parametrize("good", ["emotions", "DAGFS", "Arts", "fold-1", "m_2.1+x"])
def test_validate_name_accepts_plain(good):
    assert validate_name(good, "method") == good


def test_strict_json_writes_null_for_nan_and_numpy_types(tmp_path):
    path = atomic_write_json(tmp_path / "a" / "r.json", {"x": np.float64("nan"), "k": np.arange(3), "v": 1.5})
    assert json.loads(path.read_text()) == {"k": [0, 1, 2], "v": 1.5, "x": None}
    assert "NaN" not in dumps_json({"y": [math.inf]})
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["r.json"]  # no temp file left


def test_atomic_write_never_exposes_partial_file(tmp_path):
    """A writer killed mid-write leaves the previous complete file, never a truncated one."""
    target = tmp_path / "r.txt"
    atomic_write_text(target, "old complete\n")
    code = (
        "import os, sys\n"
        "import pipeline.fileio as f\n"
        "real = os.replace\n"
        "def die(*a): os._exit(9)\n"
        "os.replace = die\n"
        f"f.atomic_write_text({str(target)!r}, 'new ' * 100000)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code])
    assert proc.returncode == 9
    assert target.read_text() == "old complete\n"


def test_validate_ranking_messages(tmp_path):
    assert validate_ranking([3, 1, 2], 3).tolist() == [3, 1, 2]
    cases = [([0, 1, 2], "0-based"), ([1, 2], "wrong length"), ([1, 1, 3], "repeats"),
             ([1, 2, 9], "out of range"), ([1.5, 2, 3], "non-integer"), (["a", "b", "c"], "non-numeric"),
             ([1, np.nan, 3], "non-numeric")]
    for ranking, message in cases:
        with pytest.raises(RankingError, match=message):
            validate_ranking(np.array(ranking, dtype=object if isinstance(ranking[0], str) else None), 3,
                             source="r.csv")


def test_latex_escape_and_environment(tmp_path):
    assert latex_escape("A&B_%$#{}~^\\") == r"A\&B\_\%\$\#\{\}{\ttfamily\char126}{\ttfamily\char94}\textbackslash{}"
    (tmp_path / "t.tex.j2").write_text(r"\BLOCK{for n in names}\VAR{n|latex} \\ \BLOCK{endfor}")
    env = latex_environment(tmp_path)
    assert env.get_template("t.tex.j2").render(names=["a_b", "c&d"]) == r"a\_b \\ c\&d \\ "


def test_atomic_files_get_normal_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        path = atomic_write_text(tmp_path / "p.txt", "x")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
