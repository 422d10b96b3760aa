"""Steering-torque study: leak-free, sequence-level comparison of models M1-M8 (``docs/steering.md``).

Samples inside a driving sequence are autocorrelated, so the sequence is the unit throughout: the
data come from the study's pickle layout or its CSV/Parquet/NPZ equivalents (:mod:`.samples`),
the split assigns whole sequences (:mod:`.split`), and every test or interval works on one value
per sequence or resamples whole sequences (:mod:`.stats`). CLI: ``python -m
pipeline.protocols.steering {split,train,evaluate,make-synthetic,analyze,demo,calibrate,models}``; see
``docs/steering.md``.
"""

from .predictions import aggregate_per_sequence, pooled_metrics, read_predictions
from .split import SequenceSplit, SplitError, load_or_create_split, make_sequence_split, validate_split
from .stats import (bootstrap_ci_sequences, cohens_d_paired_sequences, compare_models,
                    multi_seed_analysis, permutation_test_sequences)

__all__ = [
    "SequenceSplit", "SplitError", "aggregate_per_sequence", "bootstrap_ci_sequences",
    "cohens_d_paired_sequences", "compare_models", "load_or_create_split", "make_sequence_split",
    "multi_seed_analysis", "permutation_test_sequences", "pooled_metrics", "read_predictions",
    "validate_split",
]
