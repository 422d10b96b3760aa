"""The restricted unpickler: genuine pickles of every protocol load; hostile ones fail fast.

Each hostile pickle is built for real (``__reduce__`` payloads or hand-written opcodes) and must
raise a one-line DataError before it allocates more than the file holds.
"""

from __future__ import annotations

import _codecs
import collections
import io
import os
import pickle
import resource
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import DataError
from pipeline.protocols.motion import RestrictedUnpickler, restricted_loads

REPO = Path(__file__).resolve().parents[2]
RECONSTRUCT = np.empty(0).__reduce__()[0]  # numpy's array reconstruction, as its pickles name it


class Call:
    """Pickles as ``func(*args)`` (plus ``state`` for BUILD): how a hostile file calls things."""

    def __init__(self, func, *args, state=None):
        self.func, self.args, self.state = func, args, state

    def __reduce__(self):
        return (self.func, self.args) if self.state is None else (self.func, self.args, self.state)


def shared_nested_lists(depth: int, width: int) -> list:
    """``width ** (depth + 1)`` floats written as ``width × (depth + 1)`` references."""
    level = [0.0] * width
    for _ in range(depth):
        level = [level] * width
    return level


def shared_nested_tuples(depth: int) -> tuple:
    """A tuple whose hash takes ``2 ** depth`` steps: each level holds the one below twice."""
    level = ()
    for _ in range(depth):
        level = (level, level)
    return level


def assert_same(got, expected):
    assert type(got) is type(expected)
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.flags.f_contiguous == expected.flags.f_contiguous
        for a, b in zip(got.ravel().tolist(), expected.ravel().tolist()):
            assert_same(a, b)
    elif isinstance(expected, dict):
        assert list(got) == list(expected)
        for key in expected:
            assert_same(got[key], expected[key])
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            assert_same(a, b)
    else:
        assert got == expected


RESULT_CONTENT = {
    "motion": np.arange(2 * 3 * 263, dtype=np.float32).reshape(2, 3, 263),
    "lengths": np.array([3, 2]), "length": [3, 2],
    "audio_waveforms": [{"waveform": np.linspace(0, 1, 50), "sample_rate": 30720}, None],
    "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    "objects": np.array([{"a": 1}, None], dtype=object),
    "record": np.zeros(2, dtype=[("x", "<f4"), ("y", "<i2")]), "text": np.array(["ab", "c"]),
    "scalars": [np.float64(3.5), np.int64(7), 10 ** 30, -5, True, None, 1 + 2j, 2.5],
    "misc": (b"xy", b"", "s", slice(1, None, 2), {"k", "l"}, collections.OrderedDict(a=1)),
}


@pytest.mark.parametrize("protocol", range(6))
def test_result_content_of_every_protocol_loads_as_pickle_loads_it(protocol):
    data = pickle.dumps(RESULT_CONTENT, protocol=protocol)
    assert_same(restricted_loads(data), pickle.loads(data))


leaves = (st.none() | st.booleans() | st.integers(-10 ** 20, 10 ** 20)
          | st.floats(allow_nan=False) | st.text(max_size=8) | st.binary(max_size=8)
          | st.lists(st.floats(-1e3, 1e3), max_size=6).map(np.array))
nested = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                      | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=5), inner,
                                                                   max_size=4), max_leaves=25)


@settings(max_examples=60, deadline=None)
@given(content=nested, protocol=st.integers(0, 5))
def test_any_plain_content_round_trips(content, protocol):
    data = pickle.dumps(content, protocol=protocol)
    assert_same(restricted_loads(data), pickle.loads(data))


def test_shared_nested_lists_are_refused_before_the_rest_of_the_file_is_read():
    # 12 KB of references standing for 10^12 floats, followed by 8 MB of genuine array data
    data = pickle.dumps({"lengths": shared_nested_lists(3, 1000), "motion": np.zeros(10 ** 6)},
                        protocol=4)
    unpickler = RestrictedUnpickler(io.BytesIO(data), len(data))
    with pytest.raises(pickle.UnpicklingError, match="expands to more than 10,000,000 objects"):
        unpickler.load()
    assert unpickler.reader.remaining > 8 * 10 ** 6  # refused before reaching the array
    with pytest.raises(DataError, match="shared references"):
        restricted_loads(data)


def test_the_element_limit_is_overridable_for_genuine_large_pickles():
    data = pickle.dumps({"lengths": list(range(5000))})
    with pytest.raises(DataError, match="more than 1,000 objects"):
        restricted_loads(data, max_elements=1000)
    assert restricted_loads(data)["lengths"][-1] == 4999


def _opcodes(*parts: bytes) -> bytes:
    return b"".join(parts)


ONE_MB_TEXT = "a" * 10 ** 6  # one object: pickled once, then referenced from the memo


HOSTILE = {
    "bytes(2**63)": (pickle.dumps(Call(bytes, 2 ** 63)), "bytes\\(\\) accepts only"),
    "bytes(10**13)": (pickle.dumps(Call(bytes, 10 ** 13)), "bytes\\(\\) accepts only"),
    "unknown codec": (pickle.dumps(Call(_codecs.encode, "x", "no-such-codec")), "latin1"),
    "zlib codec": (pickle.dumps(Call(_codecs.encode, b"x" * 100, "zlib")), "latin1"),
    "repr of shared lists": (pickle.dumps(Call(str, shared_nested_lists(1, 2000))),
                             "refusing to load global builtins.str"),
    "re-encoding one string": (pickle.dumps([Call(_codecs.encode, ONE_MB_TEXT, "latin1")
                                             for _ in range(50)], protocol=4),
                               "more bytes than the file holds"),
    "array preallocation": (pickle.dumps(Call(RECONSTRUCT, np.ndarray, (10 ** 12,),
                                              b"b")), "more bytes than the file holds"),
    "object array shape": (pickle.dumps(Call(RECONSTRUCT, np.ndarray, (0,), b"b",
                                             state=(1, (10 ** 9,), np.dtype("O"), False, [1, 2]))),
                           "declares 1,000,000,000 items"),
    "array data size": (pickle.dumps(Call(RECONSTRUCT, np.ndarray, (0,), b"b",
                                          state=(1, (10 ** 12,), np.dtype("f8"), False, b"1" * 8))),
                        "buffer size does not match array size"),
    "canonical dtype": (pickle.dumps(Call(np.dtype, "f8")), "numpy.dtype\\(\\) accepts"),
    "tuple keys": (pickle.dumps({(1, 2): 3}), "keys and set elements must be strings"),
    "shared tuple key hashing 2**20 times": (  # {key: 0}, written without hashing the key
        _opcodes(b"\x80\x02}", pickle.dumps(shared_nested_tuples(20), protocol=2)[2:-1], b"K\x00s."),
        "keys and set elements must be strings"),
    "integer keys": (pickle.dumps({2 ** 61 - 1: 0, 0: 1}), "keys and set elements must be strings"),
    "set of tuples": (pickle.dumps({(1,), (2,)}, protocol=2), "keys and set elements"),
    "deep nesting": (pickle.dumps(shared_nested_lists(100, 1), protocol=4), "deeper than 64"),
    "growth after sharing": (_opcodes(b"\x80\x02]q\x00]h\x00ah\x00K\x01a."),
                             "changes after it became part of another one"),
    "newobj": (_opcodes(b"\x80\x02cbuiltins\nset\n)\x81."), "object-construction opcode"),
    "global outside the allow-list": (_opcodes(b"\x80\x02cbuiltins\nlist\n)\x81."),
                                      "refusing to load global builtins.list"),
    "inst": (_opcodes(b"(ibuiltins\nlist\n."), "object-construction opcode"),
    "extension code": (_opcodes(b"\x80\x02\x82\x01."), "extension-registry opcode"),
    "state of a list": (_opcodes(b"\x80\x02]}b."), "set the state of list"),
    "torch tensor": (_opcodes(b"\x80\x04\x8c\x0ctorch._utils\x8c\x12_rebuild_tensor_v2\x93."),
                     "refusing torch object"),
    "os.system": (pickle.dumps(Call(os.system, "true")), "refusing to load global (posix|os)"),
    "8-byte length": (_opcodes(b"\x80\x04\x8e", struct.pack("<Q", 2 ** 62), b"x."),
                      "asks for 4,611,686,018,427,387,904 bytes"),
    "byte array length": (_opcodes(b"\x80\x05\x96", struct.pack("<Q", 2 ** 40), b"."),
                          "asks for 1,099,511,627,776 bytes"),
    "frame length": (_opcodes(b"\x80\x04\x95", struct.pack("<Q", 2 ** 40), b"."),
                     "asks for 1,099,511,627,776 bytes"),
    "truncated": (pickle.dumps(RESULT_CONTENT, protocol=4)[:-100], "corrupt|truncated|asks for"),
    "unbalanced stack": (_opcodes(b"\x80\x02a."), "corrupt pickle"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_pickles_fail_with_a_one_line_data_error(name):
    data, message = HOSTILE[name]
    with pytest.raises(DataError, match=message) as caught:
        restricted_loads(data)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (2 ** 30, 2 ** 30))


@pytest.mark.parametrize("content", [
    {"motion": np.zeros((2, 4, 263)), "lengths": shared_nested_lists(3, 1000)},
    {"motion": np.zeros((2, 4, 263)), "lengths": Call(bytes, 10 ** 13)},
], ids=["shared nested lists", "bytes(10**13)"])
def test_the_command_line_refuses_hostile_files_within_1_gib(tmp_path, content):
    """A real process limited to 1 GiB of address space: before the fix the first file needed
    8 TB (np.asarray of the expanded lists) and the second 10 TB."""
    path = tmp_path / "hostile.npy"
    np.save(path, np.array(content, dtype=object), allow_pickle=True)
    env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "pipeline.protocols.motion",
                           "--external_results_file", str(path)], capture_output=True, text=True,
                          env=env, preexec_fn=_limit_memory, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert "unsafe or unreadable pickle" in done.stderr
