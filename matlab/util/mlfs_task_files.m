function files = mlfs_task_files(results_dir, folder, dataset, fold)
%MLFS_TASK_FILES  Paths of one task's result files (names from mlfs_results_layout, docs/results-schema.md).
  mlfs_validate_name(folder, 'method');
  mlfs_validate_name(dataset, 'dataset');
  layout = mlfs_results_layout();
  stem = fullfile(results_dir, folder, sprintf('%s%s%d', dataset, layout.fold_infix, fold));
  kinds = fieldnames(layout.task_suffixes);
  for i = 1:numel(kinds)
    files.(kinds{i}) = [stem layout.task_suffixes.(kinds{i})];
  end
end
