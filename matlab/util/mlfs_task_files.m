function files = mlfs_task_files(results_dir, folder, dataset, fold)
%MLFS_TASK_FILES  Paths of one task's result files (docs/results-schema.md).
  mlfs_validate_name(folder, 'method');
  mlfs_validate_name(dataset, 'dataset');
  stem = fullfile(results_dir, folder, sprintf('%s_fold%d', dataset, fold));
  files.scores = [stem '_scores.csv'];
  files.ranking = [stem '_ranking.csv'];
  files.ranking_record = [stem '_ranking.json'];
  files.time = [stem '_time.txt'];
  files.kgrid = [stem '_kgrid_metrics.json'];
  files.pgrid = [stem '_pgrid_metrics.json'];
end
