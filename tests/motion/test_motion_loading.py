"""Safe loading of result files: formats, validation, and crafted hostile files."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from pipeline.errors import DataError
from pipeline.protocols.motion import (FeatureDenormalizer, LoadLimits, load_motion_results,
                                       restricted_loads, save_npz)
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
    # ignored, a misspelt key left every motion at its padded length (FID_k 4,964,446 instead of 57)
    ({"motion": np.zeros((2, 5, 263)), "lenghts": np.array([3, 4])}, "field 'lenghts': a key the reader does "
                                                                      "not read, probably misspelt .expected 'lengths'"),
    ({"motion": np.zeros((2, 5, 263)), "gt_motions": np.zeros((2, 5, 263))}, "expected 'gt_motion'"),
    # 263 frames of 263 features: which axis is which cannot be told (FID_k 66 against 14 when read wrongly)
    ({"motion": np.zeros((2, 263, 263))}, "ambiguous layout"),
    # one lengths array counts the frames of both
    ({"motion": np.zeros((2, 10, 263)), "gt_motion": np.zeros((2, 6, 263))}, "shape differs from 'motion'"),
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


def _npy_with_header(path, shape, payload=b"", descr="<f8"):
    """A .npy whose header declares ``shape`` but which holds only ``payload`` as data."""
    with path.open("wb") as handle:
        np.lib.format.write_array_header_1_0(handle, {"descr": descr, "fortran_order": False,
                                                      "shape": shape})
        handle.write(payload)
    return path


def test_npy_header_declaring_petabytes_is_refused_before_reading(tmp_path):
    path = _npy_with_header(tmp_path / "huge.npy", (10 ** 6, 10 ** 6, 263), b"\0" * 64)  # 1.87 PiB
    with pytest.raises(DataError, match="declares 2,104,000,000,000,000 bytes of data, above"):
        load_motion_results(path)
    with pytest.raises(DataError, match="2,104,000,000,000,000 bytes of data but the file holds 64"):
        load_motion_results(path, LoadLimits(max_bytes=2 ** 62))


def test_truncated_files_are_data_errors(tmp_path):
    whole = tmp_path / "whole.npy"
    np.save(whole, RNG.normal(size=(2, 10, 263)))
    cut = tmp_path / "cut.npy"
    cut.write_bytes(whole.read_bytes()[:-100])
    with pytest.raises(DataError, match="declares 42,080 bytes of data but the file holds 41,980"):
        load_motion_results(cut)
    pickled = _save_npy(tmp_path / "dict.npy", _content())
    pickled.write_bytes(pickled.read_bytes()[:-500])
    with pytest.raises(DataError, match="corrupt pickle|asks for"):
        load_motion_results(pickled)
    (tmp_path / "empty.npy").write_bytes(b"")
    with pytest.raises(DataError, match="not a valid .npy"):
        load_motion_results(tmp_path / "empty.npy")


def test_npz_members_are_checked_before_reading(tmp_path):
    hostile = tmp_path / "hostile.npz"
    member = _npy_with_header(tmp_path / "motion.npy", (10 ** 6, 10 ** 6, 263)).read_bytes()
    with zipfile.ZipFile(hostile, "w") as archive:
        archive.writestr("motion.npy", member)
    with pytest.raises(DataError, match=r"hostile.npz\[motion.npy\]: header declares"):
        load_motion_results(hostile)
    bomb = tmp_path / "bomb.npz"
    np.savez_compressed(bomb, motion=np.zeros((4, 1000, 263)))  # 8.4 MB in a few KB
    assert bomb.stat().st_size < 100_000
    with pytest.raises(DataError, match="members declare 8,416,[0-9]+ uncompressed bytes, above"):
        load_motion_results(bomb, LoadLimits(max_bytes=2 ** 20))
    assert load_motion_results(bomb).motion.shape == (4, 1000, 263)
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DataError, match="not a readable .npz archive"):
        load_motion_results(tmp_path / "junk.npz")


def test_files_above_the_byte_limit_are_refused_unread(tmp_path):
    path = tmp_path / "big.pkl"
    path.write_bytes(pickle.dumps({"motion": np.zeros((2, 5, 263))}))
    with pytest.raises(DataError, match="above the limit of 1,000"):
        load_motion_results(path, LoadLimits(max_bytes=1000))


def test_normalisation_files_are_read_with_size_checks(tmp_path):
    _npy_with_header(tmp_path / "mean.npy", (10 ** 15,))
    np.save(tmp_path / "std.npy", np.ones(263))
    with pytest.raises(DataError, match="mean.npy: header declares 8,000,000,000,000,000 bytes"):
        FeatureDenormalizer(tmp_path / "mean.npy", tmp_path / "std.npy")


@pytest.mark.parametrize("lengths, message", [
    (np.array([3 + 1j, 4]), "not a numeric array"),
    ([[3, 4], [5]], "not a numeric array"),
    (np.array([np.nan, 4.0]), "integers >= 2"),
])
def test_bad_lengths_are_data_errors(tmp_path, lengths, message):
    content = {"motion": np.zeros((2, 5, 263)), "lengths": lengths}
    with pytest.raises(DataError, match=message):
        load_motion_results(_save_npy(tmp_path / "bad.npy", content))


def test_huge_lengths_are_clamped_not_wrapped(tmp_path):
    content = {"motion": np.zeros((2, 5, 263)), "lengths": np.array([1e30, 3.0])}
    with pytest.warns(MotionDataWarning, match="clamped"):
        results = load_motion_results(_save_npy(tmp_path / "l.npy", content))
    assert results.lengths.tolist() == [5, 3]


@pytest.mark.parametrize("rate, found", [(10 ** 5000, "an integer of 16610 bits"),
                                         (float("inf"), "inf"), (44100.5, "44100.5"),
                                         (True, "True")],
                         ids=["huge integer", "infinite", "fractional", "boolean"])
def test_bad_sample_rates_are_described_in_one_line(tmp_path, rate, found):
    content = {"motion": np.zeros((1, 5, 263)),
               "audio_waveforms": [{"waveform": np.ones(4), "sample_rate": rate}]}
    with pytest.raises(DataError, match="bad sample rate") as caught:
        load_motion_results(_save_npy(tmp_path / "a.npy", content))
    assert f"found {found})" in str(caught.value) and len(str(caught.value)) < 300


def test_24_joint_smpl_input_is_accepted(tmp_path):
    path = tmp_path / "smpl.pkl"
    path.write_bytes(pickle.dumps({"motion": RNG.normal(size=(2, 24, 3, 9)), "length": [9, 7]}))
    results = load_motion_results(path)
    assert results.kind == "joints" and results.motion.shape == (2, 9, 24, 3)


def test_other_keys_of_third_party_result_dicts_are_ignored(tmp_path):
    content = {**_content(), "text": ["a person walks"] * 3, "num_samples": 3, "num_repetitions": 1}
    assert load_motion_results(_save_npy(tmp_path / "mdm.npy", content)).motion.shape == (3, 20, 263)


def test_a_std_that_is_not_positive_is_refused(tmp_path):
    np.save(tmp_path / "mean.npy", np.zeros(263))
    std = np.ones(263)
    std[7] = 0.0  # every value of that feature would collapse onto its mean
    np.save(tmp_path / "std.npy", std)
    with pytest.raises(DataError, match=r"std.npy, field 'entry 7': the std of a feature is not positive"):
        FeatureDenormalizer(tmp_path / "mean.npy", tmp_path / "std.npy")
