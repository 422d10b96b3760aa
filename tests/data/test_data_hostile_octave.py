"""The MATLAB/Octave twins refuse what the Python side refuses (real GNU Octave): fold files from
their headers (compressed ones with every block type, then a corpus of crafted folds: bombs, lying
headers, corrupt streams, extreme values, broken files, through both loaders; the bombs in an
Octave process limited to 1 GiB of address space), names, ranking files, parameter types, p-grid
size and duplicate names."""

from __future__ import annotations

import math
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest
import scipy.io
from hypothesis import given, settings, strategies as st

from hostile_mat import compressed, file_bytes, lying_bomb, matrix, matrix_head, stored_as_uint8, zero_bomb
from pipeline.data.folds import load_fold, max_feature_magnitude
from pipeline.errors import ConfigError, DataError, EngineError, RankingError
from pipeline.names import validate_name
from pipeline.rankings import read_ranking_file

pytestmark = pytest.mark.octave
REPO = Path(__file__).resolve().parents[2]


def _octave_error(octave, function, *args, nout: int = 1) -> str | None:
    """The Octave error message of ``function(*args)``, or None if it succeeded."""
    try:
        octave.call(function, *args, nout=nout)
    except EngineError as exc:
        return str(exc)
    return None


_STRATEGIES = [zlib.Z_DEFAULT_STRATEGY, zlib.Z_FIXED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FILTERED]


def _compressed_with(element: bytes, level: int, strategy: int) -> bytes:
    packer = zlib.compressobj(level, zlib.DEFLATED, 15, 8, strategy)
    stream = packer.compress(element) + packer.flush()
    return struct.pack("<II", 15, len(stream)) + stream


@pytest.mark.parametrize("level, strategy", [(0, zlib.Z_DEFAULT_STRATEGY), (1, zlib.Z_FILTERED),
                                             *((9, strategy) for strategy in _STRATEGIES)])
def test_compressed_folds_of_every_block_type_load_alike(octave, tmp_path, level, strategy):
    """Stored, fixed and dynamic Huffman blocks: Octave reads each variable's header (inflated by
    gzip) and loads the fold as the Python loader does."""
    arrays = _arrays(np.random.default_rng(level + 10 * strategy), d=37)
    long_name = "n" * 63  # the longest MATLAB name: the header still fits in the 256 bytes read
    path = tmp_path / "fold0.mat"
    path.write_bytes(file_bytes(*(_compressed_with(matrix(key, value), level, strategy)
                                  for key, value in {**arrays, long_name: np.zeros((1, 3))}.items())))
    (fold,) = octave.call("mlfs_load_fold", str(path), nout=1)
    for key, value in arrays.items():
        np.testing.assert_array_equal(np.asarray(fold[key]), value, err_msg=key)
        np.testing.assert_array_equal(getattr(load_fold(path), key), value, err_msg=key)


def test_compressed_fold_without_gzip_fails_with_its_reason(octave, tmp_path):
    path = tmp_path / "fold0.mat"
    scipy.io.savemat(path, _arrays(np.random.default_rng(3)), do_compression=True)
    oc = octave.start()
    oc.eval(f"saved_path = getenv('PATH'); setenv('PATH', '{tmp_path}');")  # a folder without gzip
    try:
        message = _octave_error(octave, "mlfs_load_fold", str(path))
    finally:
        oc.eval("setenv('PATH', saved_path);")
    assert "mlfs:fold:noGzip" in message and "needs the gzip program on the PATH" in message, message
    octave.call("mlfs_load_fold", str(path), nout=1)  # and with gzip back on the PATH it loads


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
    raw("tiny_lying_header_3_4_gb", _crafted(rng, {"X_train": compressed(matrix_head("X_train", (20000, 21250))[0])}),
        False)
    element = matrix("X_train", rng.random((30, 4)))
    for name, stream in (("no_zlib_header", b"\x00\x00abc"), ("corrupt_deflate", zlib.compress(element)[:2] + b"\xff" * 40),
                         ("stream_cut_inside_header", zlib.compress(element, 0)[:20])):
        raw(name, _crafted(rng, {"X_train": struct.pack("<II", 15, len(stream)) + stream}), False)
    _add_shared_verdict_cases(rng, raw)
    return cases


def _add_shared_verdict_cases(rng, raw) -> None:
    """Files that run_suite used to take differently from the Python loader (issue 26)."""
    labels = (rng.random((30, 2)) > 0.5).astype(np.int8)
    raw("double_stored_as_uint8", _crafted(rng, {"X_train": compressed(stored_as_uint8("X_train", rng.integers(0, 9, (30, 4))))}),
        True)
    raw("duplicate_x_train", _crafted(rng, {}, (compressed(matrix("X_train", rng.random((30, 4)))),)), False)
    raw("duplicate_y_test_plain", _crafted(rng, {}, (matrix("Y_test", labels[:10]),)), False)
    raw("empty_test_part", _crafted(rng, {"X_test": matrix("X_test", np.zeros((0, 4))),
                                          "Y_test": matrix("Y_test", np.zeros((0, 2)))}), False)
    raw("empty_train_part", _crafted(rng, {"X_train": matrix("X_train", np.zeros((0, 4))),
                                           "Y_train": matrix("Y_train", np.zeros((0, 2)))}), False)
    raw("no_labels", _crafted(rng, {"Y_train": matrix("Y_train", np.zeros((30, 0))),
                                    "Y_test": matrix("Y_test", np.zeros((10, 0)))}), False)
    raw("nul_in_extra_name", _crafted(rng, {}, (matrix("X_train\0evil", rng.random((3, 4))),)), False)
    raw("nul_cut_y_test", _crafted(rng, {"Y_test": matrix("Y_test\0", labels[:10])}), False)
    for key, value, where in (("X_train", np.nan, (3, 1)), ("X_test", -np.inf, (0, 0)), ("Y_train", 2.0, (5, 1)),
                              ("Y_test", -1.0, (2, 0)), ("Y_train", np.nan, (0, 0)), ("Y_test", 0.5, (1, 1))):
        arrays = _arrays(rng)
        arrays[key] = arrays[key].astype(float)
        arrays[key][where] = value
        raw(f"{key}_{value}", file_bytes(*(compressed(matrix(k, v)) for k, v in arrays.items())), False)


_FOUND_IN_MESSAGES = {  # case -> what both loaders' messages show (field and value found)
    "duplicate_x_train": "field 'X_train': variable stored twice",
    "empty_test_part": "field 'X_test': no instances (expected >= 1 row; found",
    "no_labels": "field 'Y_train': no labels (expected >= 1 column; found",
    "nul_in_extra_name": "field 'X_train\\0evil': variable name holds a NUL byte",
    "X_train_nan": "field 'X_train': non-finite feature values (expected finite values; found 1 NaN/Inf, first at row 3, column 1)",
    "Y_train_2.0": "field 'Y_train': labels must be 0 or 1 (expected values in {0, 1}; found 1 other values, e.g.",
}


def test_both_loaders_refuse_the_same_fold_files_without_inflating_them(octave, tmp_path):
    verdicts = {}
    for name, (path, accepted) in _cases(tmp_path).items():
        try:
            load_fold(path)
            python_ok = True
        except DataError:
            python_ok = False
        message = _octave_error(octave, "mlfs_load_fold", str(path))
        assert message is None or "mlfs:fold:" in message, message
        verdicts[name] = (python_ok, message is None, accepted)
    assert all(python_ok == octave_ok == accepted for python_ok, octave_ok, accepted in verdicts.values()), verdicts


def test_both_loaders_name_the_file_field_and_value_alike(octave, tmp_path):
    cases = _cases(tmp_path)
    for name, shown in _FOUND_IN_MESSAGES.items():
        path = str(cases[name][0])
        with pytest.raises(DataError) as info:
            load_fold(path)
        message = _octave_error(octave, "mlfs_load_fold", path)
        for text in (str(info.value), message):
            assert f"{path}, {shown}" in text, (name, text)


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


def test_bombs_are_refused_by_octave_within_1_gib_of_address_space(tmp_path):
    """Each bomb is refused from its header by an octave-cli limited to 1 GiB of address space,
    while `load` itself, given the same file, runs out of that memory: it allocates what a
    compressed header declares (a 744-byte file declaring 3.4 GB took Octave 7 to 10 GB)."""
    cases = _cases(tmp_path)
    real_bomb = tmp_path / "real_bomb" / "fold0.mat"  # 1.3 GB of zeros in about 1.3 MB
    real_bomb.parent.mkdir()
    real_bomb.write_bytes(_crafted(np.random.default_rng(2), {"X_train": zero_bomb("X_train", (20000, 8000))}))
    bombs = [str(cases[name][0]) for name in ("tiny_lying_header_3_4_gb", "lying_bomb_3_4_gb", "junk_variable_bomb")]
    bombs.append(str(real_bomb))
    listed = ", ".join(f"'{path}'" for path in bombs)
    script = (f"addpath('{REPO / 'matlab' / 'util'}'); bombs = {{{listed}}};"
              "for i = 1:numel(bombs), try, mlfs_load_fold(bombs{i}); disp('loaded'); "
              "catch failure, disp(failure.identifier); end, end;"
              "for i = [1, numel(bombs)], try, load(bombs{i}); disp('loaded'); catch failure, disp(failure.message); end, end")
    limit = 2 ** 30

    def limited():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = subprocess.run(["octave-cli", "--no-gui", "--quiet", "--no-window-system", "--eval", script],
                          preexec_fn=limited, capture_output=True, text=True, timeout=600)
    lines = proc.stdout.splitlines()
    assert lines[:4] == ["mlfs:fold:tooLarge"] * 4, proc.stdout + proc.stderr
    assert len(lines) == 6 and all("out of memory" in line for line in lines[4:]), proc.stdout + proc.stderr


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


@pytest.mark.parametrize("name", ["demo\n", "x" * 129, "a b", "", "..", "caf\u00e9", "x" * 128, "a.b+c-d_9"])
def test_names_refused_by_both_sides_alike(octave, name):
    try:
        validate_name(name, "dataset")
        python_refuses = False
    except ConfigError:
        python_refuses = True
    message = _octave_error(octave, "mlfs_validate_name", name, "dataset")
    assert (message is not None) == python_refuses, (name, message)
    if python_refuses:
        assert "mlfs:badName" in message


@pytest.mark.parametrize("content, identifier, shown", [
    (b"1\n" * 5000, "mlfs:ranking:tooLarge", "found 10000 bytes"),
    (b"1\n2\n1e30\n", "mlfs:ranking:outOfRange", "found '1e30' (entry 3)"),
    (b"1\n2\n-3\n", "mlfs:ranking:outOfRange", "found '-3' (entry 3)"),
    (b"1\n2.5\n3\n", "mlfs:ranking:notInteger", "found '2.5' (entry 2)"),
    (b"1\n2\n2.9999999999999999999\n", "mlfs:ranking:notInteger", "(entry 3)"),
    (b"1\n2\n" + b"0" * 40 + b"3\n", "mlfs:ranking:tooLong", "(entry 3, 41 characters)"),
    (b"1\n1_0\n3\n", "mlfs:ranking:notNumeric", "found '1_0'"),
    (b"1\n2+0i\n3\n", "mlfs:ranking:notNumeric", "found '2+0i'"),
    (b"1\nInf\n3\n", "mlfs:ranking:notNumeric", "found 'Inf'"),
    (b"1\n1\n3\n", "mlfs:ranking:repeated", "repeats feature 1"),
])
def test_ranking_files_refused_by_both_readers_alike(octave, tmp_path, content, identifier, shown):
    path = tmp_path / "r.csv"
    path.write_bytes(content)
    with pytest.raises(RankingError):
        read_ranking_file(path, 3)
    message = _octave_error(octave, "mlfs_read_ranking", str(path), 3.0)
    assert message is not None and identifier in message and shown in message


def test_ranking_files_accepted_by_both_readers_alike(octave, tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"\xef\xbb\xbf" + b"3.000000000000000000e+00\r\n1\r\n2.0\r\n")
    assert read_ranking_file(path, 3).tolist() == [3, 1, 2]
    (ranking,) = octave.call("mlfs_read_ranking", str(path), 3.0, nout=1)
    assert np.asarray(ranking).reshape(-1).tolist() == [3.0, 1.0, 2.0]
    path.write_bytes(b"0.3e1\n1\n20e-1\n")  # integers written with a fraction and an exponent
    assert read_ranking_file(path, 3).tolist() == [3, 1, 2]
    (ranking,) = octave.call("mlfs_read_ranking", str(path), 3.0, nout=1)
    assert np.asarray(ranking).reshape(-1).tolist() == [3.0, 1.0, 2.0]


_DEFAULTS = {"alpha": 0.1, "max_iter": 30.0, "mode": "fast", "paired": True, "seed": 0.0}


@pytest.mark.parametrize("params, accepted", [
    ({"seed": 4.0, "alpha": 2.0, "mode": "slow", "paired": False}, True),
    ({"seed": 2.0**32 - 1}, True),
    ({"seed": 1.7}, False), ({"seed": -1.0}, False), ({"seed": 2.0**32}, False), ({"seed": "abc"}, False),
    ({"alpha": True}, False), ({"alpha": math.nan}, False), ({"alpha": "0.5"}, False),
    ({"mode": 3.0}, False), ({"paired": 1.0}, False),
])
def test_method_parameters_checked_by_type_in_octave(octave, params, accepted):
    message = _octave_error(octave, "mlfs_method_params", "SRFS", _DEFAULTS, params)
    assert (message is None) == accepted, message
    if not accepted:
        assert "mlfs:SRFS:badParameter" in message and f"'{next(iter(params))}'" in message


def test_p_grid_cap_and_duplicate_names_in_octave(octave):
    options = {"grid": "pgrid", "mlknn_k": 10.0, "mlknn_smooth": 1.0, "k_min": 10.0, "k_max": 300.0, "k_step": 10.0,
               "p_min": 0.05, "p_max": 0.5, "p_step": 1e-300, "p_target": 0.2}  # as mlfs_suite_options completes them
    message = _octave_error(octave, "mlfs_check_grid_options", "run_suite", options, nout=0)
    assert "mlfs:run_suite:badValue" in message and "too many points" in message
    message = _octave_error(octave, "mlfs_cellstr_arg", ["SRFS", "GRRO", "SRFS"], "method", "run_suite")
    assert "mlfs:run_suite:badArgument" in message and "method 'SRFS' listed twice" in message
