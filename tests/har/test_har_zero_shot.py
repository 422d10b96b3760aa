"""Zero-shot metrics 1-2: cosine argmax, group matching, N/A for non-text models."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import DataError
from pipeline.protocols.har.data import HarDataset
from pipeline.protocols.har.evaluate import EvaluationConfig, evaluate_model
from pipeline.protocols.har.classifiers import TrainingConfig
from pipeline.protocols.har.vocabulary import LabelGroups, LabelVocabulary
from pipeline.protocols.har.zero_shot import cosine_predict, l2_normalize, score_closed_set, score_open_set

# A small table defined here (the tests never depend on the shipped project table).
TEST_GROUPS = {"running": ["running", "jogging"], "walking": ["walking", "strolling"],
               "lying": ["lying_down", "laying"]}
TRAINING_LABELS = ("climbing_up", "lying_down", "running", "walking")
ACTIVITIES = ("jogging", "laying", "strolling")


class AlignedEncoder:
    """A synthetic text-aligned model: a window's class index sits in channel 0; the sensor embedding
    is exactly the text embedding of that class's synonym group (perfect alignment)."""

    name = "aligned"

    def __init__(self, groups: LabelGroups, width: int = 16, shuffle: bool = False):
        self.groups = groups
        self.width = width
        self.shuffle = shuffle

    def _vector(self, text: str) -> np.ndarray:
        seed = sum(ord(c) * (i + 1) for i, c in enumerate(self.groups.group(text)))
        return np.random.RandomState(seed).standard_normal(self.width) * 3.0

    def embed_labels(self, texts):
        return np.stack([self._vector(t) for t in texts])

    def embed(self, windows):
        rows = self.embed_labels([ACTIVITIES[int(round(k))] for k in windows[:, 0, 0]])
        if self.shuffle:
            rows = rows[np.random.RandomState(1).permutation(len(rows))]
        return rows


def _dataset(n_per_class=100):
    labels = np.repeat(np.arange(3), n_per_class)
    windows = np.random.RandomState(0).standard_normal((len(labels), 120, 6)) * 0.01
    windows[:, :, 0] += labels[:, None]
    return HarDataset(name="synthetic", windows=windows, labels=labels, activity_names=ACTIVITIES)


def _vocabulary():
    return LabelVocabulary(training_labels=TRAINING_LABELS, groups=LabelGroups.from_groups(TEST_GROUPS))


def _run(shuffle):
    vocabulary = _vocabulary()
    config = EvaluationConfig(training=TrainingConfig(epochs=3))
    return evaluate_model(_dataset(), "aligned", AlignedEncoder(vocabulary.groups, shuffle=shuffle), config,
                          vocabulary=vocabulary)["metrics"]


def test_perfectly_aligned_embeddings_score_100():
    metrics = _run(shuffle=False)
    for key in ("zero_shot_open_set", "zero_shot_closed_set"):
        assert metrics[key]["accuracy"] == 100.0
        assert metrics[key]["f1_macro"] == 100.0 and metrics[key]["f1_weighted"] == 100.0
        assert metrics[key]["n_samples"] == 300 and metrics[key]["n_train_samples"] == 0
    assert metrics["zero_shot_open_set"]["coverage"] == 1.0


def test_shuffled_embeddings_score_at_chance():
    metrics = _run(shuffle=True)
    for key in ("zero_shot_open_set", "zero_shot_closed_set"):
        assert abs(metrics[key]["accuracy"] - 100 / 3) < 8.0, metrics[key]


def test_cosine_ignores_scale_and_ties_go_to_first_label():
    labels = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    sensor = np.array([[5.0, 0.1], [0.0, 0.0], [0.1, 9.0]])
    assert cosine_predict(sensor, labels).tolist() == [0, 0, 2]
    assert np.allclose(np.linalg.norm(l2_normalize(sensor[[0, 2]]), axis=1), 1.0)
    assert np.all(l2_normalize(np.zeros((1, 2))) == 0)
    with pytest.raises(DataError, match="different spaces"):
        cosine_predict(sensor, np.ones((2, 3)))


def test_open_set_group_scoring_counts_predicted_only_groups():
    vocabulary = _vocabulary()
    # training-label embeddings: axis k <-> TRAINING_LABELS[k]
    label_embeddings = np.eye(4)
    true_names = ["jogging", "jogging", "laying", "sitting"]        # 'sitting' has no training synonym
    sensor = label_embeddings[[2, 3, 1, 0]]                          # running, walking, lying_down, climbing_up
    scores = score_open_set(sensor, true_names, vocabulary, label_embeddings)
    assert scores["accuracy"] == 50.0
    # groups: true {running, running, lying, sitting}; predicted {running, walking, lying, climbing_up}
    # sklearn F1 over the union of 5 groups: running 2/3, lying 1, others 0 -> macro 33.33
    assert scores["f1_macro"] == pytest.approx(100 * (2 / 3 + 1) / 5)
    assert scores["coverage"] == pytest.approx(2 / 3)


def test_closed_set_uses_all_dataset_labels_for_f1():
    embeddings = np.eye(3)
    scores = score_closed_set(embeddings[[0, 0, 1, 1]], np.array([0, 0, 1, 1]), ACTIVITIES, embeddings)
    assert scores["accuracy"] == 100.0
    assert scores["f1_macro"] == pytest.approx(100 * 2 / 3)   # the absent third class counts as 0
    with pytest.raises(DataError, match="one embedding per activity"):
        score_closed_set(embeddings, np.array([0, 1, 2]), ACTIVITIES, embeddings[:2])


def test_non_text_model_gets_not_applicable():
    class Plain:
        name = "plain"

        def embed(self, windows):
            return windows.mean(axis=1)

    metrics = evaluate_model(_dataset(10), "plain", Plain(), EvaluationConfig(training=TrainingConfig(epochs=2)))["metrics"]
    for key in ("zero_shot_open_set", "zero_shot_closed_set"):
        assert metrics[key] == {"applicable": False, "reason": "not text-aligned"}


def test_real_minilm_label_embeddings_offline(minilm, basic_motions):
    """Label texts through the real all-MiniLM-L6-v2: an oracle sensor embedding (the text embedding
    of the true label) is recovered exactly; synonyms are closer than unrelated activities."""
    vectors = minilm.encode(["running", "jogging", "sitting", "walking_upstairs", "walking upstairs"])
    assert vectors.shape == (5, 384)
    unit = l2_normalize(vectors)
    assert unit[0] @ unit[1] > unit[0] @ unit[2]
    assert np.allclose(vectors[3], vectors[4], atol=1e-5)
    names = basic_motions.activity_names
    oracle = minilm.encode(names)[basic_motions.labels]
    scores = score_closed_set(oracle, basic_motions.labels, names, minilm.encode(names))
    assert scores["accuracy"] == 100.0


def test_bad_label_embeddings_are_rejected():
    class NanLabels:
        name = "nan_labels"

        def embed(self, windows):
            return np.ones((len(windows), 4))

        def embed_labels(self, texts):
            return np.full((len(texts), 4), np.nan)

    with pytest.raises(DataError, match="label embeddings contain NaN"):
        evaluate_model(_dataset(5), "nan_labels", NanLabels(), EvaluationConfig(), vocabulary=_vocabulary())
