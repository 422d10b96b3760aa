"""HAR embedding evaluation protocol (see ``docs/har.md``).

Frozen embeddings of IMU windows ``(N, 120, 6)`` from a model are scored with five metrics on one
shared window split: zero-shot open-set and closed-set (text-aligned models only), each baseline's
own classifier on 1 % and 10 % of the training windows, and a linear probe on all of them.

Typical use::

    from pipeline.protocols.har import (EvaluationConfig, evaluate_model, load_npz_dataset,
                                        PrecomputedEmbeddings, write_evaluation)
    data = load_npz_dataset("motionsense.npz")
    result = evaluate_model(data, "moment", PrecomputedEmbeddings("moment", "moment.npy"),
                            EvaluationConfig(classifier="svm_rbf"))
    write_evaluation(result, "test_output/baseline_evaluation")
"""

from .cache import EmbeddingCache
from .classifiers import CLASSIFIER_KINDS, TrainingConfig, make_classifier
from .data import HarDataset, dataset_from_names, load_basic_motions, load_npz_dataset, window_labels_from_steps
from .evaluate import (METRIC_KEYS, EvaluationConfig, default_classifier, evaluate_model, evaluation_path,
                       write_evaluation)
from .providers import (EmbeddingProvider, JointProvider, MiniRocketEmbedder, PrecomputedEmbeddings,
                        PrecomputedTextAligned, ProjectedSensorEmbedder, RawSequenceEmbedder,
                        SentenceLabelEncoder, SummaryStatisticsEmbedder, TextAlignedProvider)
from .splits import balanced_subsample, split_windows
from .table import write_tables
from .vocabulary import LabelGroups, LabelVocabulary, load_label_vocabulary, parse_label_table

__all__ = [
    "CLASSIFIER_KINDS", "METRIC_KEYS", "EmbeddingCache", "EmbeddingProvider", "EvaluationConfig", "HarDataset",
    "JointProvider", "LabelGroups", "LabelVocabulary", "MiniRocketEmbedder", "PrecomputedEmbeddings",
    "PrecomputedTextAligned", "ProjectedSensorEmbedder", "RawSequenceEmbedder", "SentenceLabelEncoder",
    "SummaryStatisticsEmbedder", "TextAlignedProvider", "TrainingConfig", "balanced_subsample",
    "dataset_from_names", "default_classifier", "evaluate_model", "evaluation_path", "load_basic_motions",
    "load_label_vocabulary", "load_npz_dataset", "make_classifier", "parse_label_table", "split_windows", "window_labels_from_steps",
    "write_evaluation", "write_tables",
]
