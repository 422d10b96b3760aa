function record = mlfs_constant_feature_counts(record, X_train, ranking, k_entries)
%MLFS_CONSTANT_FEATURE_COUNTS  Add n_constant_features, n_constant_selected and degenerate to record.
%   Per grid entry k: how many of the top-k ranked features are constant on the training part, and
%   whether the selection is degenerate (more than half constant although non-constant features
%   were left unselected). Twin of pipeline.runner.run.constant_feature_counts.
  constant = max(X_train, [], 1) == min(X_train, [], 1);
  selected = cumsum(constant(ranking));
  n_nonconstant = numel(constant) - sum(constant);
  counts = selected(k_entries);
  record.n_constant_features = int64(sum(constant));
  record.n_constant_selected = num2cell(int64(counts(:).'));
  record.degenerate = num2cell(2 * counts(:).' > k_entries(:).' & counts(:).' > max(0, k_entries(:).' - n_nonconstant));
end
