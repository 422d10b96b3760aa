function record = mlfs_metrics_record(curves, k_entries, p_values, opts, method, dataset, fold, data, params)
%MLFS_METRICS_RECORD  The _kgrid/_pgrid_metrics.json content (docs/results-schema.md), key for key
%   what pipeline.runner writes: each grid entry gets the metrics of its k; means as numpy.mean.
  [~, rows] = ismember(k_entries, curves.k_values);
  record = struct();
  record.grid_mode = opts.grid;
  record.method = method;
  record.dataset = dataset;
  record.fold = int64(fold);
  record.k_values = num2cell(int64(k_entries));
  record.grid = mlfs_grid_struct(opts);
  record.mlknn = struct('num', int64(opts.mlknn_k), 'smooth', double(opts.mlknn_smooth));
  record.params = params;
  record.n_features = int64(size(data.X_train, 2));
  record.n_labels = int64(size(data.Y_train, 2));
  record.n_train = int64(size(data.X_train, 1));
  record.n_test = int64(size(data.X_test, 1));
  record.macro_pr_auc_labels_used = int64(curves.macro_pr_auc_labels_used);
  record.macro_pr_auc_labels_total = int64(curves.macro_pr_auc_labels_total);
  names = mlknn_metric_names();
  for i = 1:numel(names)
    values = curves.(names{i})(rows);
    record.(names{i}) = num2cell(values);
    record.([names{i} '_mean']) = mlfs_np_mean(values);
  end
  if ~isempty(p_values)
    [~, target] = min(abs(p_values - opts.p_target));
    record.p_values = num2cell(p_values);
    record.p_target = double(opts.p_target);
    record.p_target_used = p_values(target);
    for i = 1:numel(names)
      values = curves.(names{i})(rows);
      record.([names{i} '_at_p_target']) = values(target);
    end
  end
end
