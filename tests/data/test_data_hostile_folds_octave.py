"""The Octave fold loader (mlfs_load_fold.m) refuses the same hostile files as the Python one, from
their headers (real GNU Octave): mlfs_inflate_prefix against zlib, then a corpus of crafted folds
(bombs, lying headers, extreme values, broken files) through both loaders."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import scipy.io
from hypothesis import given, settings, strategies as st

from hostile_mat import compressed, file_bytes, lying_bomb, matrix, matrix_head
from pipeline.data.folds import load_fold, max_feature_magnitude
from pipeline.engines.octave import OctaveSession
from pipeline.errors import DataError, EngineError

pytestmark = pytest.mark.octave


@pytest.fixture(scope="module")
def octave():
    session = OctaveSession(timeout=600)
    session.start()
    yield session
    session.close()


_STRATEGIES = [zlib.Z_DEFAULT_STRATEGY, zlib.Z_FIXED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FILTERED]


@settings(max_examples=25, deadline=None)
@given(data=st.one_of(st.binary(min_size=0, max_size=600),
                      st.lists(st.sampled_from([b"X_train", b"\0\0\0\0", b"\x0e\0\0\0", b"MATLAB"]),
                               max_size=80).map(b"".join)),
       level=st.integers(0, 9), strategy=st.sampled_from(_STRATEGIES), n=st.integers(1, 700))
def test_inflate_prefix_is_zlib_on_every_block_type(octave, data, level, strategy, n):
    packer = zlib.compressobj(level, zlib.DEFLATED, 15, 8, strategy)
    stream = packer.compress(data) + packer.flush()
    (out,) = octave.call("mlfs_inflate_prefix", np.frombuffer(stream, np.uint8), float(n), nout=1)
    assert bytes(np.asarray(out, dtype=np.uint8).reshape(-1)) == data[:n]


def test_inflate_prefix_refuses_corrupt_streams(octave):
    for stream in (b"\x78", b"\x00\x00abc", zlib.compress(b"x" * 100)[:4] + b"\xff" * 20):
        with pytest.raises(EngineError, match="mlfs:inflate:corrupt"):
            octave.call("mlfs_inflate_prefix", np.frombuffer(stream, np.uint8), 50.0, nout=1)


def _arrays(rng, d=4):
    return {"X_train": rng.random((30, d)), "Y_train": (rng.random((30, 2)) > 0.5).astype(np.int8),
            "X_test": rng.random((10, d)), "Y_test": (rng.random((10, 2)) > 0.5).astype(np.int8)}


def _crafted(rng, replace: dict[str, bytes], extra: tuple[bytes, ...] = ()) -> bytes:
    """A compressed fold file whose variables in ``replace`` are the given raw elements."""
    elements = [replace.get(key) or compressed(matrix(key, value)) for key, value in _arrays(rng).items()]
    return file_bytes(*elements, *extra)


def _cases(tmp_path) -> dict:
    """name -> (path, expected verdict: True = accepted by both loaders)."""
    rng = np.random.default_rng(0)
    limit = max_feature_magnitude(4)
    cases = {}

    def savemat(name, arrays, accepted, **options):
        path = tmp_path / name / "fold0.mat"
        path.parent.mkdir()
        scipy.io.savemat(path, arrays, **options)
        cases[name] = (path, accepted)

    def raw(name, content, accepted):
        path = tmp_path / name / "fold0.mat"
        path.parent.mkdir()
        path.write_bytes(content)
        cases[name] = (path, accepted)

    savemat("valid_compressed", _arrays(rng), True, do_compression=True)
    savemat("valid_plain", _arrays(rng), True)
    at_limit, above = _arrays(rng), _arrays(rng)
    at_limit["X_train"][5, 3] = -limit
    above["X_test"][2, 1] = np.nextafter(limit, np.inf)
    savemat("at_magnitude_limit", at_limit, True, do_compression=True)
    savemat("above_magnitude_limit", above, False, do_compression=True)
    savemat("mat_v4", _arrays(rng), False, format="4")
    raw("truncated", cases["valid_plain"][0].read_bytes()[:600], False)
    raw("crafted_valid", _crafted(rng, {}), True)
    raw("lying_bomb_3_4_gb", _crafted(rng, {"X_train": lying_bomb("X_train", (20000, 21250), 3_400_000)}), False)
    raw("junk_variable_bomb", _crafted(rng, {}, (lying_bomb("junk", (20000, 21250), 3_400_000),)), False)
    raw("lying_data_tag", _crafted(rng, {"Y_test": compressed(matrix_head("Y_test", (10, 2), data_bytes=80_000_000)[0])}),
        False)
    return cases


def test_both_loaders_refuse_the_same_fold_files_without_inflating_them(octave, tmp_path):
    verdicts = {}
    for name, (path, accepted) in _cases(tmp_path).items():
        try:
            load_fold(path)
            python_ok = True
        except DataError:
            python_ok = False
        try:
            octave.call("mlfs_load_fold", str(path), nout=1)
            octave_ok = True
        except EngineError as exc:
            octave_ok = False
            assert "mlfs:fold:" in str(exc), str(exc)
        verdicts[name] = (python_ok, octave_ok, accepted)
    assert all(python_ok == octave_ok == accepted for python_ok, octave_ok, accepted in verdicts.values()), verdicts


def test_octave_messages_name_file_field_limit_and_value(octave, tmp_path):
    cases = _cases(tmp_path)
    bomb = str(cases["lying_bomb_3_4_gb"][0])
    with pytest.raises(EngineError) as info:
        octave.call("mlfs_load_fold", bomb, nout=1)
    assert "mlfs:fold:tooLarge" in str(info.value)
    assert "arrays larger than the size limit (expected at most 1073741824 bytes as float64" in str(info.value)
    with pytest.raises(EngineError) as info:
        octave.call("mlfs_load_fold", str(cases["above_magnitude_limit"][0]), nout=1)
    message = str(info.value)
    assert "field 'X_test': feature value too large" in message
    assert "sqrt(realmax / (8 d)) for d = 4" in message and "at row 2, column 1" in message
    with pytest.raises(EngineError, match="field 'junk': variable larger than the size limit"):
        octave.call("mlfs_load_fold", str(cases["junk_variable_bomb"][0]), nout=1)
    with pytest.raises(DataError, match="field 'junk': variable larger than the size limit"):
        load_fold(cases["junk_variable_bomb"][0])


def test_size_limit_from_the_environment_on_both_sides(octave, tmp_path, monkeypatch):
    path = tmp_path / "fold0.mat"
    scipy.io.savemat(path, _arrays(np.random.default_rng(1)), do_compression=True)
    total = 8 * (30 + 10) * (4 + 2)
    oc = octave.start()
    try:
        for limit, accepted in ((total - 1, False), (total, True)):
            monkeypatch.setenv("MLFS_MAX_FOLD_BYTES", str(limit))
            oc.eval(f"setenv('MLFS_MAX_FOLD_BYTES', '{limit}');")
            if accepted:
                assert load_fold(path).X_train.shape == (30, 4)
                octave.call("mlfs_load_fold", str(path), nout=1)
                continue
            with pytest.raises(DataError, match=f"found {total} bytes declared"):
                load_fold(path)
            with pytest.raises(EngineError, match=f"mlfs:fold:tooLarge.*found {total} bytes declared|"
                                                  f"found {total} bytes declared.*mlfs:fold:tooLarge"):
                octave.call("mlfs_load_fold", str(path), nout=1)
    finally:
        oc.eval("unsetenv('MLFS_MAX_FOLD_BYTES');")
