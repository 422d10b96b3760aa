"""Evaluation layer: ML-kNN over k-grids and p-grids, with the reference's metric conventions.

- :mod:`.grids` — k-grid, p-grid, p -> k mapping, p-target index;
- :mod:`.mlknn` — :func:`~.mlknn.evaluate_grid` (one fold, whole grid, incremental) and the
  scikit-learn-style :class:`~.mlknn.MLkNN`;
- :mod:`.neighbours` — the exact (canonical distance, index) neighbour rule and its fast path;
- :mod:`.metrics` — the metrics, ``METRIC_SPECS`` (read from their one definition, ``metrics.json``,
  which the Octave evaluator reads too) and ``METRICS``,
  ``HIGHER_IS_BETTER``, ``METRIC_CONVENTIONS`` derived from it;
- :mod:`.ordered_sums` — the Numba kernels of the average precisions (NumPy's pairwise sum).
"""
