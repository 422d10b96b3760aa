"""Run the five HAR metrics for one (dataset, model) and write its evaluation JSON.

Order of randomness: one ``RandomState(3431)`` splits the windows, then draws
the 1 % subsample, then the 10 % subsample. Torch is seeded per classifier. Same inputs give a
byte-identical JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...data.folds import max_feature_magnitude
from ...errors import ConfigError, DataError
from ...fileio import atomic_write_json
from ...names import validate_name
from .cache import EmbeddingCache
from .classifiers import CLASSIFIER_KINDS, TrainingConfig, make_classifier
from .data import HarDataset
from .providers import EmbeddingProvider, is_text_aligned
from .scores import classification_scores, not_applicable
from .splits import SEED, STRATEGIES, TRAINING_RATE, VALI_RATE, WindowSplit, balanced_subsample, split_windows
from .vocabulary import LabelVocabulary, load_label_vocabulary
from .zero_shot import score_closed_set, score_open_set

SCHEMA_VERSION = 1
METRIC_KEYS = ("zero_shot_open_set", "zero_shot_closed_set", "supervised_1pct", "supervised_10pct", "linear_probe")
LABEL_RATES = {"supervised_1pct": 0.01, "supervised_10pct": 0.1}
SUBWINDOW_LENGTH = 20
MIN_WINDOWS = 10
DEFAULT_OUTPUT_DIR = Path("test_output") / "baseline_evaluation"

# Each baseline's own classifier for metrics 3-4 (docs/har.md); metric 5 is always "linear".
BASELINE_CLASSIFIERS = {"tsfm": "linear", "lanhar": "linear", "limu-bert": "gru", "limubert": "gru",
                        "moment": "svm_rbf", "crosshar": "transformer_ft"}


@dataclass(frozen=True)
class EvaluationConfig:
    """Protocol settings recorded in the output JSON.

    ``training.epochs`` is the test-size knob: 100 for the protocol, a few for tests.
    """

    classifier: str = "linear"
    training: TrainingConfig = field(default_factory=TrainingConfig)
    strategy: str = "proportional"
    coarse_groups: bool = False
    seed: int = SEED

    def __post_init__(self) -> None:
        if self.classifier not in CLASSIFIER_KINDS:
            raise ConfigError("unknown classifier", field="classifier", expected=list(CLASSIFIER_KINDS),
                              found=self.classifier)
        if self.strategy not in STRATEGIES:
            raise ConfigError("unknown subsample strategy", field="strategy", expected=list(STRATEGIES),
                              found=self.strategy)


def default_classifier(model: str) -> str:
    """The classifier a known baseline uses for metrics 3-4; ``linear`` for any other model."""
    return BASELINE_CLASSIFIERS.get(model.lower(), "linear")


def check_embeddings(embeddings: np.ndarray, dataset: HarDataset, source: str) -> np.ndarray:
    """Require finite ``(N, D)`` or ``(N, T, D)`` floats with one row per window of ``dataset``."""
    array = np.asarray(embeddings)
    if array.ndim not in (2, 3) or not np.issubdtype(array.dtype, np.number):
        raise DataError("embeddings must be a numeric (N, D) or (N, T, D) array", file=source,
                        field="embeddings", found=f"{array.dtype} {array.shape}")
    if array.shape[0] != dataset.n_windows:
        raise DataError("embeddings and windows have different row counts", file=source, field="embeddings",
                        expected=f"{dataset.n_windows} rows (dataset {dataset.name})", found=array.shape[0])
    return _checked_values(array, source, "embeddings")


def check_label_embeddings(embeddings: np.ndarray, n_texts: int, source: str) -> np.ndarray:
    """Require a finite ``(K, D)`` float array with one row per label text."""
    array = np.asarray(embeddings)
    if array.ndim != 2 or array.shape[0] != n_texts or not np.issubdtype(array.dtype, np.number):
        raise DataError("one label embedding row per label text is required", file=source,
                        field="label_embeddings", expected=f"({n_texts}, D)", found=f"{array.dtype} {array.shape}")
    return _checked_values(array, source, "label_embeddings")


def _checked_values(array: np.ndarray, source: str, field: str) -> np.ndarray:
    """``array`` as float64 once it has at least one value per vector, only finite values, and none
    so large that a squared distance, a dot product or a softmax input over a vector could overflow
    (the classifiers' numbers would be meaningless): |x| <= sqrt(realmax / (8 D))."""
    if 0 in array.shape[1:]:
        raise DataError("embeddings without values", file=source, field=field,
                        expected="at least one dimension per vector", found=f"shape {array.shape}")
    values = array.astype(np.float64)
    if not np.isfinite(values).all():
        raise DataError(f"{field.replace('_', ' ')} contain NaN or infinite values", file=source, field=field)
    limit = max_feature_magnitude(values.shape[-1])
    largest = float(np.abs(values).max()) if values.size else 0.0
    if largest > limit:
        raise DataError("value too large: distances and dot products over a vector could overflow", file=source,
                        field=field, expected=f"|x| <= {limit:.6g} = sqrt(realmax / (8 D)) for D = {values.shape[-1]}",
                        found=f"{largest!r}")
    return values


def pooled(embeddings: np.ndarray) -> np.ndarray:
    """``(N, D)`` vectors: a sequence embedding ``(N, T, D)`` is averaged over time."""
    return embeddings.mean(axis=1) if embeddings.ndim == 3 else embeddings


def recut_subwindows(sequences: np.ndarray, step_labels: np.ndarray,
                     length: int = SUBWINDOW_LENGTH) -> tuple[np.ndarray, np.ndarray]:
    """Cut ``(n, T, D)`` into ``(n * T // length, length, D)`` and keep label-pure pieces.

    Returns the kept sub-windows and their labels (the single label of their steps).
    """
    n, steps, width = sequences.shape
    pieces = steps // length
    cut = sequences[:, :pieces * length].reshape(n * pieces, length, width)
    labels = step_labels[:, :pieces * length].reshape(n * pieces, length)
    pure = (labels == labels[:, :1]).all(axis=1)
    return cut[pure], labels[pure, 0]


def sequence_needed(kind: str, found: object) -> ConfigError:
    """The error for a sequence classifier given pooled embeddings, with what works instead."""
    return ConfigError(f"the {kind} classifier needs sequence embeddings (N, T, D): use --embedder raw_sequence, "
                       "or save the model's sequence output for --embeddings, or pass --classifier linear or "
                       "svm_rbf for pooled (N, D) embeddings", field="embeddings", expected="(N, T, D)", found=found)


def _rows(embeddings: np.ndarray, dataset: HarDataset, index: np.ndarray, classifier):
    """The classifier's rows of windows ``index`` and their labels (sub-windows for the GRU)."""
    input_kind = classifier.input_kind
    if input_kind == "pooled":
        return pooled(embeddings)[index], dataset.labels[index]
    if embeddings.ndim != 3:
        raise sequence_needed(classifier.kind, embeddings.shape)
    if input_kind == "sequence":
        return embeddings[index], dataset.labels[index]
    return recut_subwindows(embeddings[index], dataset.per_step_labels()[index])


def _supervised(embeddings: np.ndarray, dataset: HarDataset, split: WindowSplit, kind: str,
                config: EvaluationConfig, rate: float | None, rng: np.random.RandomState) -> tuple[dict, dict]:
    """Train ``kind`` on the (subsampled) train split, select on val, score on test.

    The label-rate subsample is drawn over training windows, whatever the classifier, so every
    model trains on the same windows; the GRU then cuts those windows into sub-windows.
    ``n_train_samples`` counts windows (``n_train_subwindows`` the GRU's training rows).
    """
    classifier = make_classifier(kind, dataset.n_classes, config.training)
    train = split.train
    if rate is not None:
        train, _ = balanced_subsample(train, dataset.labels[train], rate, rng, config.strategy)
    x_train, y_train = _rows(embeddings, dataset, train, classifier)
    x_val, y_val = _rows(embeddings, dataset, split.val, classifier)
    x_test, y_test = _rows(embeddings, dataset, split.test, classifier)
    classifier.fit(x_train, y_train, x_val, y_val)
    scores = classification_scores(y_test, classifier.predict(x_test), range(dataset.n_classes),
                                   len(train), dataset.n_classes)
    if classifier.input_kind == "subwindows":
        scores["n_train_subwindows"] = int(len(y_train))
    scores.update(classifier.fit_details())
    return scores, classifier.describe()


def _zero_shot(window_embeddings: np.ndarray, dataset: HarDataset, label_embeddings, vocabulary) -> dict:
    sensor = pooled(window_embeddings)
    true_names = [dataset.activity_names[k] for k in dataset.labels]
    return {
        "zero_shot_open_set": score_open_set(sensor, true_names, vocabulary,
                                             label_embeddings(vocabulary.training_labels)),
        "zero_shot_closed_set": score_closed_set(sensor, dataset.labels, dataset.activity_names,
                                                 label_embeddings(dataset.activity_names)),
    }


def evaluate_model(dataset: HarDataset, model: str, provider: EmbeddingProvider, config: EvaluationConfig,
                   cache: EmbeddingCache | None = None, vocabulary: LabelVocabulary | None = None) -> dict:
    """All five metrics of ``model`` (embedded by ``provider``) on ``dataset``, as the JSON document.

    Parameters
    ----------
    dataset : HarDataset
    model : str
        Model name written into the result and its file name.
    provider : EmbeddingProvider
        ``embed`` gives one row per window; ``embed_labels`` (text-aligned only) gives label rows.
    config : EvaluationConfig
    cache : EmbeddingCache, optional
        Where embeddings are cached (model + dataset hash); default: no cache.
    vocabulary : LabelVocabulary, optional
        Training labels and synonym groups for the open-set metric; default: the project's table
        (``groups_simple`` when ``config.coarse_groups``). Its provenance is recorded as
        ``config.label_table`` for text-aligned models.
    """
    validate_name(model, "model")
    if dataset.n_windows < MIN_WINDOWS:
        raise DataError("too few windows for an 80/10/10 split with non-empty val and test",
                        file=dataset.source, field="windows", expected=f">= {MIN_WINDOWS}", found=dataset.n_windows)
    cache = cache or EmbeddingCache(None)
    source = _embeddings_source(getattr(provider, "windows_file", None), "embeddings", model)
    embeddings = check_embeddings(cache.window_embeddings(
        model, dataset, lambda: check_embeddings(provider.embed(dataset.windows), dataset, source)), dataset, source)
    metrics = {key: not_applicable("not text-aligned") for key in METRIC_KEYS[:2]}
    text_aligned = is_text_aligned(provider)
    if text_aligned:
        vocabulary = vocabulary or load_label_vocabulary(coarse=config.coarse_groups)

        def label_embeddings(texts):
            texts = list(texts)
            return cache.label_embeddings(model, texts, lambda: check_label_embeddings(
                provider.embed_labels(texts), len(texts),
                _embeddings_source(getattr(provider, "labels_file", None), "label embeddings", model)))

        metrics.update(_zero_shot(embeddings, dataset, label_embeddings, vocabulary))
    split, rng = split_windows(dataset.n_windows, config.seed)
    for key, rate in LABEL_RATES.items():
        metrics[key], classifier_config = _supervised(embeddings, dataset, split, config.classifier, config, rate, rng)
    metrics["linear_probe"], probe_config = _supervised(embeddings, dataset, split, "linear", config, None, rng)
    settings = {
        "seed": config.seed, "training_rate": TRAINING_RATE, "vali_rate": VALI_RATE,
        "subsample_strategy": config.strategy, "label_rates": list(LABEL_RATES.values()),
        "label_groups": "coarse" if config.coarse_groups else "fine",
        "embedding_shape": list(embeddings.shape),
        "classifier": classifier_config, "linear_probe": probe_config,
    }
    if text_aligned:
        settings["label_table"] = vocabulary.provenance()
    return {"schema_version": SCHEMA_VERSION, "dataset": dataset.name, "model": model,
            "text_aligned": text_aligned, "config": settings, "metrics": metrics}


def _embeddings_source(path: Path | None, kind: str, model: str) -> str:
    """What a refused embedding array is called in its error: the file a precomputed provider read
    (``windows_file`` / ``labels_file``) and the model, or only the model when a model computed it."""
    return f"{path} ({kind} of model {model})" if path is not None else f"{kind} of model {model}"


def evaluation_path(output_dir: str | Path, dataset: str, model: str) -> Path:
    """``{output_dir}/{dataset}_{model}_evaluation.json`` (names validated as path-safe)."""
    return Path(output_dir) / f"{validate_name(dataset, 'dataset')}_{validate_name(model, 'model')}_evaluation.json"


def write_evaluation(result: dict, output_dir: str | Path) -> Path:
    """Write ``result`` atomically as strict, sorted JSON; return its path."""
    return atomic_write_json(evaluation_path(output_dir, result["dataset"], result["model"]), result)
