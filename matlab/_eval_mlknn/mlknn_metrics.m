function [m, labels_used] = mlknn_metrics(outputs, Y)
%MLKNN_METRICS  The metrics of one ML-kNN prediction (the keys of mlknn_metric_names).
%   outputs: L × n_test posteriors; Y: L × n_test truth (positive where > 0). A cell is predicted positive when
%   its output is >= 0.5. labels_used: labels with both classes in Y (those macro_pr_auc averages).
%   Conventions (identical to the native evaluator): see each metric_* function.
  Y = Y > 0;
  pred = outputs >= 0.5;
  m.micro_f1 = metric_micro_f1(pred, Y);
  m.macro_f1 = metric_macro_f1(pred, Y);
  m.hamming_loss = metric_hamming_loss(pred, Y);
  m.micro_pr_auc = metric_micro_pr_auc(outputs, Y);
  [m.macro_pr_auc, labels_used] = metric_macro_pr_auc(outputs, Y);
  m.avg_precision = metric_avg_precision(outputs, Y);
  m.one_error = metric_one_error(outputs, Y);
  m.ranking_loss = metric_ranking_loss(outputs, Y);
  m.coverage = metric_coverage(outputs, Y);
end
