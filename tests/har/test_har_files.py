"""Hostile and damaged input files: every one ends in one `error:` line and exit 2, nothing allocated blindly."""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pipeline.cli import run_main
from pipeline.errors import ConfigError, DataError
from pipeline.limits import HAR_MAX_ARRAY_BYTES_VARIABLE as MAX_BYTES_ENV
from pipeline.protocols.har.cli import main
from pipeline.protocols.har.files import read_json, read_npy, read_npz


def _header(shape, descr="<f8") -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def _npy_bytes(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def _zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _dataset_arrays(n=20):
    labels = np.repeat([0, 1], n // 2)
    return {"windows": np.random.RandomState(0).standard_normal((n, 120, 6)), "labels": labels,
            "activity_names": np.array(["sitting", "walking"])}


def _cli_error(args, capsys) -> str:
    assert run_main(main, args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


class Explode:
    """Unpickling this runs ``os.system`` (it creates a marker file): a loader must never do it."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


# ------------------------------------------------------------------------ the CLI on empty files
def test_zero_byte_dataset_is_one_line_exit_2(tmp_path, capsys):
    (tmp_path / "empty.npz").write_bytes(b"")
    np.save(tmp_path / "emb.npy", np.ones((20, 4)))
    err = _cli_error(["evaluate", "--model", "m", "--dataset", str(tmp_path / "empty.npz"),
                      "--embeddings", str(tmp_path / "emb.npy"), "--output-dir", str(tmp_path / "out")], capsys)
    assert "empty.npz" in err and "empty file (0 bytes)" in err
    assert not (tmp_path / "out").exists()


def test_zero_byte_embeddings_and_label_embeddings_are_one_line_exit_2(tmp_path, capsys):
    np.savez(tmp_path / "data.npz", **_dataset_arrays())
    (tmp_path / "empty.npy").write_bytes(b"")
    base = ["evaluate", "--model", "tsfm", "--dataset", str(tmp_path / "data.npz"), "--epochs", "1",
            "--output-dir", str(tmp_path / "out")]
    err = _cli_error(base + ["--embeddings", str(tmp_path / "empty.npy")], capsys)
    assert "empty.npy" in err and "empty file (0 bytes)" in err
    np.save(tmp_path / "emb.npy", np.ones((20, 4)))
    (tmp_path / "labels.npz").write_bytes(b"")
    err = _cli_error(base + ["--embeddings", str(tmp_path / "emb.npy"), "--label-embeddings",
                             str(tmp_path / "labels.npz")], capsys)
    assert "labels.npz" in err and "empty file" in err
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- crafted .npy files
def test_npy_header_declaring_a_pebibyte_is_refused_before_allocation(tmp_path):
    path = tmp_path / "huge.npy"
    path.write_bytes(_header((2 ** 40, 120, 6)) + b"\0" * 64)
    with pytest.raises(DataError, match="larger than the limit") as info:
        read_npy(path, field="embeddings")
    assert str(2 ** 40 * 120 * 6 * 8) in str(info.value) and MAX_BYTES_ENV in str(info.value)


def test_truncated_npy_is_refused(tmp_path):
    path = tmp_path / "short.npy"
    path.write_bytes(_npy_bytes(np.ones((80, 24)))[:-100])
    with pytest.raises(DataError, match="truncated") as info:
        read_npy(path)
    assert "80, 24" in str(info.value)


def test_pickled_npy_is_refused_and_runs_no_code(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.npy"
    path.write_bytes(_npy_bytes(np.array([Explode(marker)], dtype=object)))
    with pytest.raises(DataError, match="object arrays are pickles and are refused"):
        read_npy(path)
    assert not marker.exists()


def test_bad_magic_and_version_are_refused(tmp_path):
    path = tmp_path / "text.npy"
    path.write_text("this is not an array\n")
    with pytest.raises(DataError, match="not a readable .npy array"):
        read_npy(path)
    path.write_bytes(b"\x93NUMPY\x09\x00" + _header((2,))[8:])
    with pytest.raises(DataError, match="not a readable .npy array"):
        read_npy(path)


def test_limit_comes_from_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "a.npy"
    np.save(path, np.ones((10, 10)))
    monkeypatch.setenv(MAX_BYTES_ENV, "799")
    with pytest.raises(DataError, match="<= 799 bytes"):
        read_npy(path)
    monkeypatch.setenv(MAX_BYTES_ENV, "800")
    assert read_npy(path).shape == (10, 10)
    monkeypatch.setenv(MAX_BYTES_ENV, "lots")
    with pytest.raises(ConfigError, match=MAX_BYTES_ENV):
        read_npy(path)


# --------------------------------------------------------------------------- crafted .npz files
def test_npz_member_declaring_huge_shape_is_refused(tmp_path):
    path = _zip(tmp_path / "bomb.npz", {"windows.npy": _header((2 ** 33, 120, 6)),
                                        "labels.npy": _npy_bytes(np.zeros(4, dtype=int))})
    with pytest.raises(DataError, match="larger than the limit") as info:
        read_npz(path)
    assert "field 'windows'" in str(info.value)


def test_npz_members_together_over_the_limit(tmp_path, monkeypatch):
    path = tmp_path / "two.npz"
    np.savez(path, a=np.ones(60), b=np.ones(60))          # 480 bytes each
    monkeypatch.setenv(MAX_BYTES_ENV, "700")
    with pytest.raises(DataError, match="together are larger than the limit"):
        read_npz(path)


def test_npz_truncated_member_other_member_and_not_a_zip(tmp_path):
    short = _zip(tmp_path / "short.npz", {"windows.npy": _npy_bytes(np.ones((20, 120, 6)))[:-8]})
    with pytest.raises(DataError, match="archive member is truncated"):
        read_npz(short)
    other = _zip(tmp_path / "other.npz", {"notes.txt": b"hello"})
    with pytest.raises(DataError, match="not an .npy array"):
        read_npz(other)
    (tmp_path / "junk.npz").write_bytes(os.urandom(300))
    with pytest.raises(DataError, match="not a readable .npz archive"):
        read_npz(tmp_path / "junk.npz")


def test_pickled_npz_member_is_refused_and_runs_no_code(tmp_path):
    marker = tmp_path / "pwned"
    path = _zip(tmp_path / "evil.npz", {"windows.npy": _npy_bytes(np.array([Explode(marker)], dtype=object))})
    with pytest.raises(DataError, match="object arrays are pickles"):
        read_npz(path)
    assert not marker.exists()


@pytest.mark.parametrize("change, message", [
    ({"activity_names": np.array("sitting")}, "1-D string array"),
    ({"activity_names": np.array([1, 2])}, "1-D string array"),
    ({"labels": np.zeros((20, 120, 1), dtype=int), "label_index": np.array([0, 1])}, "integer scalar"),
    ({"labels": np.zeros((20, 120, 1))}, "per-step labels must be integers"),
    ({"labels": np.zeros((0, 120, 1), dtype=int)}, "per-step labels must be integers"),
])
def test_malformed_dataset_arrays_are_data_errors(tmp_path, capsys, change, message):
    np.savez(tmp_path / "bad.npz", **{**_dataset_arrays(), **change})
    np.save(tmp_path / "emb.npy", np.ones((20, 4)))
    err = _cli_error(["evaluate", "--model", "m", "--dataset", str(tmp_path / "bad.npz"),
                      "--embeddings", str(tmp_path / "emb.npy"), "--output-dir", str(tmp_path / "out")], capsys)
    assert message in err


def test_step_labels_with_a_huge_spread_fail_fast(tmp_path):
    """A majority vote by bincount would allocate 2**40 counters; the spread is checked first."""
    steps = np.zeros((20, 120, 1), dtype=np.int64)
    steps[0, 0, 0] = 2 ** 40
    np.savez(tmp_path / "spread.npz", **{**_dataset_arrays(), "labels": steps})
    from pipeline.protocols.har.data import load_npz_dataset

    with pytest.raises(DataError, match="span more classes than there are activity names"):
        load_npz_dataset(tmp_path / "spread.npz")


# ------------------------------------------------------------------------------------- JSON
def test_json_reader_bounds_and_reports(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"a": [1, 2')
    with pytest.raises(DataError, match="cannot parse JSON document: .*line 1"):
        read_json(path)
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(DataError, match="not UTF-8"):
        read_json(path)
    path.write_text("[" + "1," * 100 + "1]")
    with pytest.raises(DataError, match="larger than the limit"):
        read_json(path, limit=100)


# ---------------------------------------------------------------- arbitrary bytes never crash
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400), st.sampled_from(["npy", "npz", "npy_prefix", "npz_member"]))
def test_arbitrary_bytes_give_data_errors_only(tmp_path, data, kind):
    path = tmp_path / f"fuzz.{kind[:3]}"
    if kind == "npy_prefix":      # a valid header followed by garbage
        data = _header((3, 4)) + data
    path.write_bytes(data)
    if kind == "npz_member":      # a valid archive whose member is a header plus garbage
        _zip(path, {"a.npy": _header((3, 4)) + data})
    reader = read_npz if kind.startswith("npz") else read_npy
    try:
        reader(path)
    except DataError:
        pass


@pytest.mark.parametrize("extra, fragment", [
    (["--output-dir", "FILE"], "field '--output-dir': is not a folder"),
    (["--cache-dir", "FILE", "--output-dir", "out"], "field '--cache-dir': is not a folder"),
    (["--threads", "0", "--output-dir", "out"], "field '--threads': must be a positive integer"),
])
def test_cli_option_errors_are_one_line(tmp_path, capsys, extra, fragment):
    np.savez(tmp_path / "data.npz", **_dataset_arrays())
    np.save(tmp_path / "emb.npy", np.ones((20, 4)))
    (tmp_path / "FILE").write_text("")
    extra = [str(tmp_path / e) if e in ("FILE", "out") else e for e in extra]
    err = _cli_error(["evaluate", "--model", "m", "--dataset", str(tmp_path / "data.npz"),
                      "--embeddings", str(tmp_path / "emb.npy"), "--epochs", "1", *extra], capsys)
    assert fragment in err and not (tmp_path / "out").exists()


def test_table_needs_an_existing_input_folder(tmp_path, capsys):
    err = _cli_error(["table", "--input-dir", str(tmp_path / "absent")], capsys)
    assert "--input-dir" in err and not (tmp_path / "absent").exists()
