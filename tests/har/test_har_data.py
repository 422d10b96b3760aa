"""The data contract: shapes, channels, finite values, label table, per-class minimum, no pickle."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import DataError
from pipeline.protocols.har.data import (HarDataset, dataset_from_names, load_npz_dataset, to_har_windows,
                                         window_labels_from_steps)


def _windows(n, seed=0):
    return np.random.RandomState(seed).standard_normal((n, 120, 6))


def _dataset(windows=None, labels=None, names=("sitting", "walking")):
    windows = _windows(6) if windows is None else windows
    labels = np.array([0, 0, 0, 1, 1, 1]) if labels is None else labels
    return HarDataset(name="toy", windows=windows, labels=labels, activity_names=names)


def test_valid_dataset_keeps_float64_and_int64():
    data = _dataset(windows=_windows(6).astype(np.float32))
    assert data.windows.dtype == np.float64 and data.labels.dtype == np.int64
    assert data.n_classes == 2 and data.n_windows == 6
    assert data.per_step_labels().shape == (6, 120)


@pytest.mark.parametrize("shape, fragment", [((6, 120, 3), "wrong shape"), ((6, 100, 6), "wrong shape"),
                                             ((6, 720), "wrong shape")])
def test_shape_and_channel_mismatch_is_rejected(shape, fragment):
    with pytest.raises(DataError, match=fragment) as info:
        _dataset(windows=np.zeros(shape))
    assert "(N, 120, 6)" in str(info.value) and str(shape) in str(info.value)


def test_nan_window_is_rejected_with_its_index():
    windows = _windows(6)
    windows[4, 10, 2] = np.nan
    with pytest.raises(DataError, match="NaN") as info:
        _dataset(windows=windows)
    assert "first at index 4" in str(info.value)


def test_label_outside_table_is_rejected():
    with pytest.raises(DataError, match="not in the activity-name table"):
        _dataset(labels=np.array([0, 0, 0, 1, 1, 2]))
    with pytest.raises(DataError, match="not in the activity-name table") as info:
        dataset_from_names("toy", _windows(4), ["walk", "walk", "run", "swim"], activity_names=["run", "walk"])
    assert "swim" in str(info.value)


def test_class_with_one_sample_is_rejected():
    with pytest.raises(DataError, match="at least 2 windows") as info:
        _dataset(labels=np.array([0, 0, 0, 0, 0, 1]))
    assert "'walking': 1" in str(info.value)


def test_unsorted_activity_names_are_rejected():
    with pytest.raises(DataError, match="sorted"):
        _dataset(names=("walking", "sitting"))


def test_path_like_dataset_name_is_rejected():
    with pytest.raises(Exception, match="invalid dataset name"):
        HarDataset(name="../x", windows=_windows(4), labels=np.array([0, 0, 1, 1]), activity_names=("a", "b"))


def test_majority_vote_subtracts_minimum_and_breaks_ties_low():
    steps = np.zeros((2, 120, 2), dtype=int) + 5
    steps[0, :70, 0] = 7          # majority 7 -> 2 after subtracting the minimum 5
    steps[1, :60, 0] = 6          # 60/60 tie between 6 and 5 -> smallest (0)
    labels, per_step = window_labels_from_steps(steps, n_classes=3)
    assert labels.tolist() == [2, 0]
    assert per_step.min() == 0 and per_step.shape == (2, 120)


def test_content_hash_changes_with_data():
    a, b = _dataset(), _dataset(windows=_windows(6, seed=1))
    assert a.content_hash() == _dataset().content_hash() != b.content_hash()


def test_npz_round_trip_and_pickle_refused(tmp_path):
    path = tmp_path / "toy.npz"
    np.savez(path, windows=_windows(4), labels=np.array([0, 0, 1, 1]), activity_names=np.array(["a", "b"]))
    data = load_npz_dataset(path)
    assert data.name == "toy" and data.activity_names == ("a", "b")
    evil = tmp_path / "evil.npz"
    np.savez(evil, windows=_windows(4), labels=np.array([0, 0, 1, 1]),
             activity_names=np.array(["a", {"b": 1}], dtype=object))
    with pytest.raises(DataError, match="are pickles and are refused") as info:
        load_npz_dataset(evil)
    assert "activity_names" in str(info.value)


def test_resampling_to_20hz_keeps_first_six_seconds():
    t = np.arange(100) / 10.0
    series = np.repeat(np.sin(2 * np.pi * 0.5 * t)[None, :, None], 6, axis=2)
    windows = to_har_windows(series, 10)
    expected = np.sin(2 * np.pi * 0.5 * np.arange(120) / 20.0)
    assert windows.shape == (1, 120, 6)
    assert np.abs(windows[0, 10:110, 0] - expected[10:110]).max() < 0.05
    with pytest.raises(DataError, match="too short"):
        to_har_windows(series[:, :50], 10)


def test_basic_motions_from_aeon_wheel(basic_motions):
    assert basic_motions.windows.shape == (80, 120, 6)
    assert basic_motions.activity_names == ("badminton", "running", "standing", "walking")
    assert np.bincount(basic_motions.labels).tolist() == [20, 20, 20, 20]
    # running shakes the wrist far more than standing
    energy = basic_motions.windows[:, :, :3].std(axis=1).mean(axis=1)
    labels = basic_motions.labels
    assert energy[labels == 1].mean() > 5 * energy[labels == 2].mean()


def test_npz_with_limu_bert_step_labels(tmp_path):
    steps = np.zeros((4, 120, 2), dtype=int) + 3
    steps[2:, :, 0] = 4
    steps[3, :10, 0] = 3                       # impure window, majority 4
    path = tmp_path / "limu.npz"
    np.savez(path, windows=_windows(4), labels=steps, activity_names=np.array(["sit", "walk"]))
    data = load_npz_dataset(path)
    assert data.labels.tolist() == [0, 0, 1, 1]
    assert data.per_step_labels()[3, :10].tolist() == [0] * 10


def test_an_array_the_reader_does_not_read_is_refused(tmp_path):
    # ignored, a misspelt step_labels changed the supervised accuracy silently (50 % against 25 %)
    path = tmp_path / "typo.npz"
    np.savez(path, windows=_windows(4), labels=np.array([0, 0, 1, 1]), activity_names=np.array(["a", "b"]),
             step_lables=np.zeros((4, 120), dtype=int))
    with pytest.raises(DataError, match=r"typo.npz, field 'step_lables': dataset archive holds an array this reader "
                                        r"does not read \(expected 'step_labels'\?\)"):
        load_npz_dataset(path)
