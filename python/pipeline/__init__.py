"""mlfs-bench: multi-label feature selection benchmark and sibling evaluation protocols.

Subpackages, one per concern (dependencies point one way, top to bottom):

- ``protocols`` and the CLI modules (``kgrid``, ``pgrid``, ``evaluate``, ...): the front doors.
- ``runner``: tasks, executors, the results store.
- ``engines``: where a method runs (Python, GNU Octave, MATLAB).
- ``methods``: feature-ranking methods (DAGFS and baselines).
- ``evaluation``: ML-kNN over k/p grids and the metrics.
- ``data``: dataset readers, registry, fold export and loading.
- ``stats`` and ``report``: generic statistics and LaTeX/Markdown rendering; they know nothing of MLFS.
"""

__version__ = "0.1.0"
