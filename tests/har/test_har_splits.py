"""The 80/10/10 window split and balanced_subsample."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import ConfigError
from pipeline.protocols.har.classifiers import SvmRbfClassifier
from pipeline.protocols.har.splits import balanced_subsample, split_windows


@pytest.mark.parametrize("n, counts", [(12080, (9664, 1208, 1208)), (27138, (21710, 2713, 2715)),
                                       (4345, (3476, 434, 435)), (2058, (1646, 205, 207)), (80, (64, 8, 8))])
def test_split_sizes_match_the_protocol_table(n, counts):
    split, _ = split_windows(n)
    assert (len(split.train), len(split.val), len(split.test)) == counts
    together = np.concatenate([split.train, split.val, split.test])
    assert sorted(together.tolist()) == list(range(n))


def test_split_is_the_legacy_randomstate_shuffle():
    split, rng = split_windows(50)
    expected = np.arange(50)
    np.random.RandomState(3431).shuffle(expected)
    assert split.train.tolist() == expected[:40].tolist()
    assert split.test.tolist() == expected[45:].tolist()
    assert isinstance(rng, np.random.RandomState)


def test_split_identical_across_calls():
    a, _ = split_windows(1000)
    b, _ = split_windows(1000)
    assert a.train.tolist() == b.train.tolist() and a.val.tolist() == b.val.tolist()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6), st.sampled_from([0.01, 0.1, 0.3, 1.0]),
       st.sampled_from(["proportional", "equal"]))
def test_subsample_properties(class_sizes, rate, strategy):
    y = np.repeat(np.arange(len(class_sizes)), class_sizes)
    x = np.arange(len(y))
    sx, sy = balanced_subsample(x, y, rate, np.random.RandomState(3431), strategy)
    assert set(sy.tolist()) == set(y.tolist())            # every class at least once
    assert len(set(sx.tolist())) == len(sx)                # no index repeats
    assert (y[sx] == sy).all()
    counts = np.array(class_sizes)
    if strategy == "proportional":
        expected = np.minimum(counts, np.maximum(1, np.floor(rate * counts).astype(int)))
    else:
        per_class = max(1, max(1, int(len(y) * rate)) // len(counts))
        expected = np.minimum(counts, per_class)
    assert np.bincount(sy, minlength=len(counts)).tolist() == expected.tolist()
    again = balanced_subsample(x, y, rate, np.random.RandomState(3431), strategy)
    assert again[0].tolist() == sx.tolist()


def test_subsample_on_real_basic_motions_train_split(basic_motions):
    split, rng = split_windows(basic_motions.n_windows)
    y = basic_motions.labels[split.train]
    one = balanced_subsample(split.train, y, 0.01, rng)
    ten = balanced_subsample(split.train, y, 0.1, rng)
    per_class = np.bincount(y)
    assert np.bincount(one[1]).tolist() == [1, 1, 1, 1]
    assert np.bincount(ten[1]).tolist() == np.maximum(1, np.floor(0.1 * per_class)).astype(int).tolist()
    # the generator is shared, so the two draws differ
    assert set(one[0].tolist()) <= set(split.train.tolist())


@pytest.mark.parametrize("strategy, per_class", [("proportional", 2), ("equal", 2)])
def test_mobiact_one_percent_takes_the_single_svc_branch(strategy, per_class):
    """MobiAct: 13 classes, 3,476 training windows -> fewer than 50 at 1 % under either rule."""
    y = np.repeat(np.arange(13), 268)[:3476]
    x = np.random.RandomState(0).standard_normal((len(y), 4)) + y[:, None]
    sx, sy = balanced_subsample(x, y, 0.01, np.random.RandomState(3431), strategy)
    assert np.bincount(sy).tolist() == [per_class] * 13 and len(sy) < 50
    assert SvmRbfClassifier(13).fit(sx, sy).fit_details() == {"svm_branch": "single_svc"}


def test_bad_rate_and_strategy_are_rejected():
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ConfigError, match="rate"):
        balanced_subsample(y, y, 0.0, np.random.RandomState(0))
    with pytest.raises(ConfigError, match="strategy"):
        balanced_subsample(y, y, 0.5, np.random.RandomState(0), "stratified")
