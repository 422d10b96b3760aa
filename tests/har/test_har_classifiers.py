"""Per-baseline downstream classifiers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from pipeline.errors import ConfigError
from pipeline.protocols.har.classifiers import (GRUClassifier, LinearProbe, SvmRbfClassifier, TrainingConfig,
                                                TransformerFT, make_classifier, sinusoidal_positions)
from pipeline.protocols.har.evaluate import recut_subwindows


def test_architectures_have_the_documented_shapes():
    gru = GRUClassifier(72, 6)
    assert (gru.gru1.input_size, gru.gru1.hidden_size, gru.gru1.num_layers) == (72, 20, 2)
    assert (gru.gru2.hidden_size, gru.gru2.num_layers, gru.fc.in_features) == (10, 1, 10)
    assert gru(torch.zeros(3, 20, 72)).shape == (3, 6)
    transformer = TransformerFT(72, 5)
    layer = transformer.encoder.layers[0]
    assert (layer.self_attn.num_heads, layer.linear1.out_features, layer.norm_first) == (4, 2048, False)
    assert transformer(torch.zeros(2, 120, 72)).shape == (2, 5)
    assert LinearProbe(384, 4)(torch.zeros(7, 384)).shape == (7, 4)


def test_positional_table_is_sin_on_even_and_cos_on_odd_dims():
    table = sinusoidal_positions(120, 100)
    position, i = 7, 3
    frequency = math.exp(-2 * i * math.log(10000.0) / 100)
    assert table[position, 2 * i].item() == pytest.approx(math.sin(position * frequency), abs=1e-5)
    assert table[position, 2 * i + 1].item() == pytest.approx(math.cos(position * frequency), abs=1e-5)


def test_linear_probe_dropout_only_in_training():
    probe = LinearProbe(10, 2).eval()
    x = torch.ones(4, 10)
    assert torch.equal(probe(x), probe(x))


def _blobs(n_per_class, n_classes, width, seed):
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(n_classes), n_per_class)
    x = rng.standard_normal((len(y), width)) + 3 * np.eye(n_classes, width)[y]
    return x, y


def test_neural_training_is_deterministic_and_learns():
    x, y = _blobs(40, 3, 8, 0)
    xv, yv = _blobs(10, 3, 8, 1)
    config = TrainingConfig(epochs=40, batch_size=32, lr=1e-2)
    a = make_classifier("linear", 3, config).fit(x, y, xv, yv)
    b = make_classifier("linear", 3, config).fit(x, y, xv, yv)
    assert np.array_equal(a.predict(xv), b.predict(xv))
    assert np.mean(a.predict(xv) == yv) > 0.9
    assert a.fit_details()["best_val_accuracy"] > 90


def test_best_weights_are_the_best_validation_epoch():
    x, y = _blobs(40, 3, 8, 0)
    xv, yv = _blobs(10, 3, 8, 1)
    clf = make_classifier("linear", 3, TrainingConfig(epochs=30, batch_size=16)).fit(x, y, xv, yv)
    assert np.mean(clf.predict(xv) == yv) == pytest.approx(clf.best_val_accuracy)


def test_svm_branches_follow_the_training_size():
    x, y = _blobs(4, 4, 6, 0)                    # 16 rows, 4 per class -> single SVC
    small = SvmRbfClassifier(4).fit(x, y)
    assert small.fit_details() == {"svm_branch": "single_svc"}
    assert small.estimator.C == 1e5
    x, y = _blobs(15, 4, 6, 0)                   # 60 rows, 15 per class -> grid search
    large = SvmRbfClassifier(4).fit(x, y)
    assert large.fit_details()["svm_branch"] == "grid_search"
    assert large.fit_details()["svm_C"] in [1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1e3, 1e4]
    assert np.mean(large.predict(x) == y) > 0.9


def test_svm_grid_search_tolerates_tiny_classes():
    x, y = _blobs(20, 3, 6, 0)
    x, y = np.vstack([x, x[:3] + 5]), np.concatenate([y, [3, 3, 3]])   # class 3 has 3 < 5 members
    clf = SvmRbfClassifier(4).fit(x, y)
    assert clf.fit_details()["svm_branch"] == "grid_search"


def test_subwindows_keep_only_label_pure_pieces():
    sequences = np.arange(2 * 120 * 1, dtype=float).reshape(2, 120, 1)
    steps = np.zeros((2, 120), dtype=int)
    steps[1, 30:] = 1                      # window 1: piece 1 (steps 20-39) is mixed
    x, y = recut_subwindows(sequences, steps)
    assert x.shape == (11, 20, 1)
    assert y.tolist() == [0] * 6 + [0] + [1] * 4
    assert x[6, 0, 0] == sequences[1, 0, 0]


def test_gru_and_transformer_learn_sequences():
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1], 30)
    x = rng.standard_normal((60, 20, 3)) + y[:, None, None] * 2.0
    for kind in ("gru", "transformer_ft"):
        clf = make_classifier(kind, 2, TrainingConfig(epochs=8, batch_size=16, lr=3e-3)).fit(x, y, x, y)
        assert np.mean(clf.predict(x) == y) > 0.8, kind


def test_unknown_classifier_and_bad_config_are_rejected():
    with pytest.raises(ConfigError, match="unknown classifier"):
        make_classifier("knn", 2, TrainingConfig())
    with pytest.raises(ConfigError, match="positive"):
        TrainingConfig(epochs=0)
