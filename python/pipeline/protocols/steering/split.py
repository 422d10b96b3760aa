"""Sequence-level train/val/test split, persisted as JSON with a checksum.

Samples of one driving sequence are strongly autocorrelated, so they must never be spread over
two splits. The split assigns whole sequence ids; the training seed never touches it, so every
training seed sees the same split.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import DataError
from ...fileio import atomic_write_json
from .files import read_json_file

DEFAULT_FRACTIONS = (0.7, 0.2, 0.1)
SPLIT_NAMES = ("train", "val", "test")


class SplitError(DataError, ValueError):
    """A split cannot be made, or a stored split does not match its checksum or the data."""


def split_checksum(train: list[str], val: list[str], test: list[str]) -> str:
    """SHA-256 of ``json.dumps([sorted(train), sorted(val), sorted(test)], separators=(",", ":"))``."""
    payload = json.dumps([sorted(train), sorted(val), sorted(test)], separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SequenceSplit:
    """Which sequence ids (as strings) belong to train, val and test."""

    split_seed: int
    fractions: tuple[float, float, float]
    train: tuple[str, ...]
    val: tuple[str, ...]
    test: tuple[str, ...]

    @property
    def sha256(self) -> str:
        return split_checksum(list(self.train), list(self.val), list(self.test))

    def ids(self, name: str) -> tuple[str, ...]:
        """Sequence ids of split ``name`` (``train``, ``val`` or ``test``)."""
        if name not in SPLIT_NAMES:
            raise SplitError(f"unknown split {name!r}; expected one of {SPLIT_NAMES}")
        return getattr(self, name)

    def sample_indices(self, sequence_ids: np.ndarray) -> dict[str, np.ndarray]:
        """Sorted sample positions of each split for the per-sample ``sequence_ids`` ``(N,)``."""
        as_str = np.asarray(sequence_ids).astype(str)
        return {name: np.flatnonzero(np.isin(as_str, np.array(self.ids(name), dtype=str)))
                for name in SPLIT_NAMES}

    def to_json(self) -> dict:
        return {
            "split_seed": self.split_seed, "fractions": list(self.fractions),
            "n_sequences": {name: len(self.ids(name)) for name in SPLIT_NAMES},
            "train_seq_ids": list(self.train), "val_seq_ids": list(self.val),
            "test_seq_ids": list(self.test), "sha256": self.sha256,
        }


def make_sequence_split(sequence_ids: np.ndarray, split_seed: int = 0,
                        fractions: tuple[float, float, float] = DEFAULT_FRACTIONS) -> SequenceSplit:
    """Assign whole sequences to train/val/test.

    ``unique = sorted(set(str(id)))``, ``perm = default_rng(split_seed).permutation(n)``; the first
    ``int(0.7 n)`` permuted ids train, the next ``int(0.2 n)`` validate, the rest test (n = 5,001 ->
    3,500 / 1,000 / 501). Raises SplitError (a ValueError) when a split would be empty.
    """
    if len(fractions) != 3 or any(f <= 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise SplitError(f"fractions must be three positive numbers summing to 1, got {fractions}")
    unique = sorted(set(np.asarray(sequence_ids).astype(str).tolist()))
    n = len(unique)
    n_train, n_val = int(n * fractions[0]), int(n * fractions[1])
    if min(n_train, n_val, n - n_train - n_val) < 1:
        raise SplitError(f"{n} sequences cannot fill three non-empty splits with fractions "
                         f"{tuple(fractions)} (train {n_train}, val {n_val}, "
                         f"test {n - n_train - n_val})")
    perm = np.random.default_rng(split_seed).permutation(n)
    ordered = [unique[i] for i in perm]
    return SequenceSplit(split_seed=split_seed, fractions=tuple(float(f) for f in fractions),
                         train=tuple(ordered[:n_train]), val=tuple(ordered[n_train:n_train + n_val]),
                         test=tuple(ordered[n_train + n_val:]))


def validate_split(split: SequenceSplit, sequence_ids: np.ndarray) -> dict[str, np.ndarray]:
    """Check a split against the data and return its sample indices.

    Raises SplitError (a ValueError) when the id sets overlap, when a data id is in no split or a
    split id is absent from the data, or when the split sample counts do not add up to the number of samples.
    """
    sets = {name: set(split.ids(name)) for name in SPLIT_NAMES}
    for i, a in enumerate(SPLIT_NAMES):
        for b in SPLIT_NAMES[i + 1:]:
            shared = sets[a] & sets[b]
            if shared:
                raise SplitError(f"splits {a} and {b} share {len(shared)} sequence ids, "
                                 f"e.g. {sorted(shared)[:3]}")
    in_split = set().union(*sets.values())
    in_data = set(np.asarray(sequence_ids).astype(str).tolist())
    if in_data - in_split:
        raise SplitError(f"{len(in_data - in_split)} data sequence ids are in no split, "
                         f"e.g. {sorted(in_data - in_split)[:3]}")
    if in_split - in_data:
        raise SplitError(f"{len(in_split - in_data)} split sequence ids are absent from the data, "
                         f"e.g. {sorted(in_split - in_data)[:3]}")
    indices = split.sample_indices(sequence_ids)
    total = sum(len(ix) for ix in indices.values())
    if total != len(sequence_ids):
        raise SplitError(f"split sample counts add up to {total}, expected {len(sequence_ids)}")
    return indices


def split_path(folder: str | Path, split_seed: int) -> Path:
    return Path(folder) / f"split_{split_seed}.json"


def save_split(split: SequenceSplit, folder: str | Path) -> Path:
    """Write ``split_{seed}.json`` atomically into ``folder`` and return its path."""
    return atomic_write_json(split_path(folder, split.split_seed), split.to_json())


def load_split(path: str | Path, sequence_ids: np.ndarray | None = None) -> SequenceSplit:
    """Read a split file, verify its checksum and, given the data's ``sequence_ids``, its coverage.

    Raises SplitError (a ValueError naming the file) on a checksum mismatch, missing keys, or ids
    that do not match the data in either direction.
    """
    path = Path(path)
    try:
        raw = read_json_file(path)
    except DataError as exc:
        raise SplitError(str(exc)) from exc
    try:
        split = SequenceSplit(
            split_seed=int(raw["split_seed"]), fractions=tuple(float(f) for f in raw["fractions"]),
            train=_id_list(raw, "train"), val=_id_list(raw, "val"), test=_id_list(raw, "test"))
        stored_hash = raw["sha256"]
    except (KeyError, TypeError, ValueError) as exc:
        raise SplitError(f"not a sequence split file ({type(exc).__name__}: {exc})", file=path) from exc
    if stored_hash != split.sha256:
        raise SplitError(f"sha256 {stored_hash} does not match the stored id lists "
                         f"({split.sha256}); the file was edited or corrupted", file=path)
    if sequence_ids is not None:
        try:
            validate_split(split, sequence_ids)
        except SplitError as exc:
            raise SplitError(exc.message, file=path) from exc
    return split


def _id_list(raw: dict, name: str) -> tuple[str, ...]:
    ids = raw[f"{name}_seq_ids"]
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise TypeError(f"{name}_seq_ids must be a list of strings")
    return tuple(ids)


def load_or_create_split(folder: str | Path, sequence_ids: np.ndarray, split_seed: int = 0,
                         fractions: tuple[float, float, float] = DEFAULT_FRACTIONS) -> SequenceSplit:
    """Re-use ``folder/split_{seed}.json`` when it exists (validated), else create and persist it."""
    path = split_path(folder, split_seed)
    if path.exists():
        return load_split(path, sequence_ids)
    split = make_sequence_split(sequence_ids, split_seed, fractions)
    validate_split(split, sequence_ids)
    save_split(split, folder)
    return split
