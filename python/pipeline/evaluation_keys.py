"""Names of the seven metric curves every result file carries, in the spec's order."""

METRIC_KEYS = ("micro_f1", "macro_f1", "hamming_loss", "micro_pr_auc", "macro_pr_auc",
               "avg_precision", "one_error")
