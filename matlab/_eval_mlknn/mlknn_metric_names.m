function names = mlknn_metric_names()
%MLKNN_METRIC_NAMES  The metric keys, in the order used everywhere (pipeline.evaluation.metrics.METRICS).
  names = {'micro_f1', 'macro_f1', 'hamming_loss', 'micro_pr_auc', 'macro_pr_auc', ...
           'avg_precision', 'one_error', 'ranking_loss', 'coverage'};
end
