function result = MLKNN_eval_pgrid(X_train, Y_train, X_test, Y_test, ranking, p_values, Num, Smooth)
%MLKNN_EVAL_PGRID  ML-kNN over a p-grid: each share p of the d features maps to
%   k = min(d, max(1, round_half_even(p*d))) (numpy's rounding, not MATLAB's), the distinct k are
%   evaluated once with MLKNN_eval_kgrid and every p gets the metrics of its k.
%   result: p_values and k_values (1×P, k may repeat), the metric rows (mlknn_metric_names) aligned with p, and
%   macro_pr_auc_labels_used / _total. d is numel(ranking).
  p_values = double(p_values(:)).';
  mlfs_require(~isempty(p_values) && all(isfinite(p_values) & p_values > 0 & p_values <= 1), ...
    'mlfs:mlknn:badGrid', 'p values must be finite and in (0, 1]');
  d = numel(ranking);
  k_entries = min(d, max(1, mlfs_round_half_even(p_values * d)));
  curves = MLKNN_eval_kgrid(X_train, Y_train, X_test, Y_test, ranking, unique(k_entries), Num, Smooth);
  [~, rows] = ismember(k_entries, curves.k_values);
  result = struct('p_values', p_values, 'k_values', k_entries);
  names = mlknn_metric_names();
  for m = 1:numel(names)
    result.(names{m}) = curves.(names{m})(rows);
  end
  result.macro_pr_auc_labels_used = curves.macro_pr_auc_labels_used;
  result.macro_pr_auc_labels_total = curves.macro_pr_auc_labels_total;
end
