"""Sequence-level split (persisted, checksummed) and the windowed dataset."""

import hashlib
import json

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.data import DataLoader

from pipeline.errors import DataError
from pipeline.protocols.steering.data import (DrivingSamples, SequenceWindowDataset,
                                              make_driving_sequences, split_subsets)
from pipeline.protocols.steering.split import (SplitError, load_or_create_split, load_split,
                                               make_sequence_split, save_split, validate_split)


def test_reference_split_sizes_and_determinism():
    ids = np.repeat(np.arange(5001), 2)
    split = make_sequence_split(ids, split_seed=0)
    assert (len(split.train), len(split.val), len(split.test)) == (3500, 1000, 501)
    assert split == make_sequence_split(ids[::-1], split_seed=0)
    assert split != make_sequence_split(ids, split_seed=1)
    unique = sorted(str(i) for i in range(5001))
    perm = np.random.default_rng(0).permutation(5001)
    assert split.train[:5] == tuple(unique[i] for i in perm[:5])


def test_split_keeps_every_sequence_whole_including_tiny_ones():
    lengths = [1, 2, 3, 50, 9, 200, 4, 7, 120, 1, 33, 5]
    ids = np.repeat([f"s{i}" for i in range(len(lengths))], lengths)
    split = make_sequence_split(ids, split_seed=3)
    indices = validate_split(split, ids)
    assert sum(len(ix) for ix in indices.values()) == ids.size
    for name, ix in indices.items():
        members = set(ids[ix])
        assert members == set(split.ids(name))
        for seq in members:
            assert np.sum(ids == seq) == np.sum(ids[ix] == seq)
    assert not set(split.train) & set(split.val) and not set(split.val) & set(split.test)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_too_few_sequences_raise_value_error(n):
    with pytest.raises(ValueError, match="non-empty"):
        make_sequence_split(np.arange(n))


def test_split_file_round_trip_and_checksum(tmp_path):
    ids = np.repeat([f"drive_{i}" for i in range(40)], 5)
    split = make_sequence_split(ids, split_seed=7)
    path = save_split(split, tmp_path)
    raw = json.loads(path.read_text())
    assert path.name == "split_7.json" and raw["n_sequences"] == {"train": 28, "val": 8, "test": 4}
    expected_hash = hashlib.sha256(json.dumps(
        [sorted(raw["train_seq_ids"]), sorted(raw["val_seq_ids"]), sorted(raw["test_seq_ids"])],
        separators=(",", ":")).encode("utf-8")).hexdigest()
    assert raw["sha256"] == expected_hash
    loaded = load_or_create_split(tmp_path, ids, split_seed=7)
    for name in ("train", "val", "test"):
        np.testing.assert_array_equal(loaded.sample_indices(ids)[name], split.sample_indices(ids)[name])


def test_tampered_or_mismatching_split_files_raise(tmp_path):
    ids = np.repeat([f"d{i}" for i in range(20)], 3)
    path = save_split(make_sequence_split(ids), tmp_path)
    raw = json.loads(path.read_text())
    raw["train_seq_ids"][0], raw["test_seq_ids"][0] = raw["test_seq_ids"][0], raw["train_seq_ids"][0]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="sha256"):
        load_split(tampered)
    with pytest.raises(SplitError, match="absent from the data"):
        load_split(path, ids[ids != "d3"])
    with pytest.raises(SplitError, match="in no split") as info:
        load_split(path, np.r_[ids, ["new_drive"]])
    assert str(path) in str(info.value)


def _toy_samples():
    ids = np.repeat(["a", "b", "c"], [4, 60, 3])
    features = np.arange(ids.size * 5, dtype=np.float32).reshape(-1, 5)
    return DrivingSamples(features=features, targets=np.arange(ids.size, dtype=np.float32),
                          sequence_ids=ids)


def test_windows_never_cross_sequences_and_pad_with_first_row():
    samples = _toy_samples()
    dataset = SequenceWindowDataset(samples, window=50)
    x, y = dataset[2]                                   # third sample of the 4-sample sequence "a"
    assert x.shape == (50, 5) and float(y) == 2.0
    np.testing.assert_array_equal(x[:48].numpy(), np.repeat(samples.features[:1], 48, axis=0))
    np.testing.assert_array_equal(x[-3:].numpy(), samples.features[0:3])
    x, _ = dataset[4 + 55]                              # deep inside "b": a full window of "b"
    np.testing.assert_array_equal(x.numpy(), samples.features[10:60])
    x, _ = dataset[64]                                  # first sample of "c"
    assert np.all(x.numpy() == samples.features[64])


def test_dataset_keeps_pair_loops_working_and_offers_sequence_ids():
    dataset = SequenceWindowDataset(make_driving_sequences(10, 30, seed=1))
    for x, y in DataLoader(dataset, batch_size=16):
        assert x.shape[1:] == (50, 5) and y.dtype == torch.float32
        break
    x, y, seq = next(iter(DataLoader(dataset.with_sequence_ids(), batch_size=8)))
    assert len(seq) == 8 and all(s == dataset.sequence_ids[0] for s in seq)
    split = make_sequence_split(dataset.sequence_ids, split_seed=0)
    subsets = split_subsets(dataset.with_sequence_ids(), split)
    assert sum(len(s) for s in subsets.values()) == len(dataset)
    assert {subsets["test"][i][2] for i in range(len(subsets["test"]))} == set(split.test)


def test_non_contiguous_sequences_are_rejected():
    samples = DrivingSamples(np.zeros((4, 5), np.float32), np.zeros(4, np.float32),
                             np.array(["a", "b", "a", "a"]))
    with pytest.raises(DataError) as info:
        SequenceWindowDataset(samples)
    assert "contiguous" in str(info.value)


def test_synthetic_sequences_are_seeded_and_bounded():
    first, second = make_driving_sequences(5, 100, seed=3), make_driving_sequences(5, 100, seed=3)
    np.testing.assert_array_equal(first.features, second.features)
    assert np.all(np.abs(first.targets) <= 1) and first.targets.std() > 0.05
    lag1 = np.corrcoef(first.targets[:-1], first.targets[1:])[0, 1]
    assert lag1 > 0.5  # driving-like: strongly autocorrelated within a sequence


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=5, max_size=60), st.integers(0, 2 ** 31))
def test_any_split_is_disjoint_complete_and_whole(lengths, seed):
    ids = np.repeat([f"q{i}" for i in range(len(lengths))], lengths)
    split = make_sequence_split(ids, split_seed=seed)
    indices = validate_split(split, ids)
    assert np.array_equal(np.sort(np.concatenate(list(indices.values()))), np.arange(ids.size))
    n = len(lengths)
    assert (len(split.train), len(split.val)) == (int(n * 0.7), int(n * 0.2))
