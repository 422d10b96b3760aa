"""Safe loading of result files (spec §3.1)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from pipeline.errors import DataError
from pipeline.protocols.motion import load_motion_results, restricted_loads, save_npz
from pipeline.protocols.motion.loading import MotionDataWarning

RNG = np.random.default_rng(0)


class _RunsShell:
    """A payload whose unpickling would call os.system (the attack the loader must block)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def _content(n=3, t=20):
    return {"motion": RNG.normal(size=(n, t, 263)).astype(np.float32),
            "gt_motion": RNG.normal(size=(n, t, 263)).astype(np.float32),
            "lengths": np.array([20, 15, 30]),
            "audio_waveforms": [{"waveform": RNG.normal(size=100), "sample_rate": 30720}, None,
                                {"waveform": RNG.normal(size=50), "sample_rate": 22050}]}


def _save_npy(path, content):
    np.save(path, np.array(content, dtype=object), allow_pickle=True)
    return path


def test_payload_calling_os_system_is_refused_and_never_runs(tmp_path):
    marker = tmp_path / "pwned"
    payload = {"motion": np.zeros((1, 4, 263)), "evil": _RunsShell(marker)}
    for protocol in (2, 5):
        pkl = tmp_path / f"evil{protocol}.pkl"
        pkl.write_bytes(pickle.dumps(payload, protocol=protocol))
        with pytest.raises(DataError, match=r"refusing to load global (posix|os)\.system"):
            load_motion_results(pkl)
    npy = _save_npy(tmp_path / "evil.npy", payload)
    with pytest.raises(DataError, match="refusing to load global"):
        load_motion_results(npy)
    assert not marker.exists()
    # control: the unrestricted unpickler really would have run the command
    subprocess.run([sys.executable, "-c", f"import pickle; pickle.load(open({str(pkl)!r}, 'rb'))"],
                   check=False, capture_output=True)
    assert marker.exists()


def test_torch_objects_and_user_classes_are_refused():
    torch_like = b"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00\x8c\x0ctorch._utils\x8c\x12_rebuild_tensor_v2\x93."
    with pytest.raises(DataError, match="torch object"):
        restricted_loads(torch_like)
    with pytest.raises(DataError, match="collections.Counter"):
        restricted_loads(pickle.dumps({"a": __import__("collections").Counter("ab")}))


def test_npy_dict_loads_with_every_field(tmp_path):
    content = _content()
    with pytest.warns(MotionDataWarning, match="clamped"):
        results = load_motion_results(_save_npy(tmp_path / "r.npy", content))
    np.testing.assert_allclose(results.motion, content["motion"])
    np.testing.assert_allclose(results.gt_motion, content["gt_motion"])
    assert results.lengths.tolist() == [20, 15, 20]
    assert results.audio[1] is None and results.audio[2].sample_rate == 22050
    np.testing.assert_allclose(results.audio[0].waveform, content["audio_waveforms"][0]["waveform"])
    assert results.kind == "features"


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pkl_with_singular_length_and_alternative_layouts(tmp_path, protocol):
    motion = RNG.normal(size=(2, 263, 1, 12))
    path = tmp_path / "closd.pkl"
    path.write_bytes(pickle.dumps({"motion": motion, "length": [12, 9]}, protocol=protocol))
    results = load_motion_results(path)
    assert results.motion.shape == (2, 12, 263)
    np.testing.assert_array_equal(results.motion[1, 3], motion[1, :, 0, 3])
    assert results.lengths.tolist() == [12, 9]


def test_joint_input_and_npz_round_trip(tmp_path):
    joints = RNG.normal(size=(3, 22, 3, 10))
    path = tmp_path / "joints.pkl"
    path.write_bytes(pickle.dumps({"motion": joints, "gt_motion": joints + 1, "lengths": [10, 5, 7],
                                   "audio_waveforms": [None, {"waveform": np.ones(8),
                                                              "sample_rate": 100}, None]}))
    results = load_motion_results(path)
    assert results.kind == "joints" and results.motion.shape == (3, 10, 22, 3)
    np.testing.assert_array_equal(results.motion[2, 4, 21], joints[2, 21, :, 4])
    again = load_motion_results(save_npz(results, tmp_path / "converted.npz"))
    np.testing.assert_array_equal(again.motion, results.motion)
    np.testing.assert_array_equal(again.gt_motion, results.gt_motion)
    assert again.lengths.tolist() == [10, 5, 7]
    assert [a is None for a in again.audio] == [True, False, True]
    assert again.audio[1].sample_rate == 100


@pytest.mark.parametrize("content, message", [
    ({"motion": np.zeros((2, 10, 262))}, "unexpected shape"),
    ({"lengths": np.array([3])}, "missing key"),
    ({"motion": np.full((1, 5, 263), np.nan)}, "non-finite value"),
    ({"motion": np.zeros((2, 5, 263)), "lengths": np.array([5])}, "bad lengths"),
    ({"motion": np.zeros((2, 5, 263)), "lengths": np.array([5, 1])}, "integers >= 2"),
    ({"motion": np.zeros((2, 5, 263)), "gt_motion": np.zeros((2, 5, 22, 3))}, "unexpected shape"),
    ({"motion": np.zeros((1, 5, 263)), "audio_waveforms": [{"waveform": np.ones(3)}]}, "bad audio"),
])
def test_malformed_content_names_the_field(tmp_path, content, message):
    with pytest.raises(DataError, match=message):
        load_motion_results(_save_npy(tmp_path / "bad.npy", content))


def test_missing_file_and_unknown_suffix(tmp_path):
    with pytest.raises(DataError, match="not found"):
        load_motion_results(tmp_path / "none.npy")
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(DataError, match="unsupported file type"):
        load_motion_results(tmp_path / "x.txt")


def test_npz_with_object_arrays_is_refused(tmp_path):
    path = tmp_path / "obj.npz"
    np.savez(path, motion=np.array([{"a": 1}], dtype=object))
    with pytest.raises(DataError, match="without pickle"):
        load_motion_results(path)
