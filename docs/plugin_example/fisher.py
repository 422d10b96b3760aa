"""FISHER: a Fisher-score filter as a plug-in method in the minimal form (docs/plugins.md).

The score of feature j is the sum over labels of (mean_pos - mean_neg)^2 / (var_pos + var_neg + eps);
the harness checks the inputs and parameters, ranks the scores and writes them.
"""

import numpy as np

from pipeline.methods.base import MethodSpec


def fisher_scores(X_train, Y_train, params):
    scores = np.zeros(X_train.shape[1])
    for label in Y_train.T.astype(bool):
        if label.any() and not label.all():
            positive, negative = X_train[label], X_train[~label]
            spread = positive.var(axis=0) + negative.var(axis=0) + params["eps"]
            scores += (positive.mean(axis=0) - negative.mean(axis=0)) ** 2 / spread
    return scores


FISHER = MethodSpec(name="FISHER", defaults={"eps": 1e-12}, scores=fisher_scores,
                    summary="Fisher score summed over the labels (plug-in example)")
