"""Statistics for comparing methods over blocks (data sets, subjects, sequences); no MLFS knowledge.

Modules: ``ranks`` (score matrices, average ranks), ``friedman`` (Friedman, Iman–Davenport),
``nemenyi`` (critical difference, groups), ``signed_rank`` (pinned Wilcoxon), ``multiple`` (Holm),
``bayesian`` (Bayesian signed-rank via baycomp), ``compare`` (all of them at once),
``paired`` / ``resampling`` (sequence-level tests), ``__main__`` (``python -m pipeline.stats``).
"""
