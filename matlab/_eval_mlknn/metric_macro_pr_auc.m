function [ap, labels_used] = metric_macro_pr_auc(outputs, Y)
%METRIC_MACRO_PR_AUC  Mean binary AP over the labels with both classes in Y (higher is better).
%   Labels whose test values are all positive or all negative are skipped; NaN if none is left.
  n_pos = sum(Y, 2);
  used = find(n_pos > 0 & n_pos < size(Y, 2));
  labels_used = numel(used);
  per_label = zeros(labels_used, 1);
  for u = 1:labels_used
    per_label(u) = metric_binary_ap(outputs(used(u), :), Y(used(u), :));
  end
  if labels_used == 0
    ap = NaN;
  else
    ap = mlfs_np_mean(per_label);
  end
end
