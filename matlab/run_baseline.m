function status = run_baseline(results_dir, data_dir, method, dataset, fold, varargin)
%RUN_BASELINE  One method × dataset × fold: rank on the training part, write the ranking, score it.
%   status = run_baseline(results_dir, data_dir, method, dataset, fold, 'name', value, ...)
%
%   Loads <data_dir>/<dataset>/fold<fold>.mat, calls [ranking, info] = METHOD(X_train, Y_train,
%   params, init) (matlab/baselines/METHOD.m) on the training part only, writes
%   <results_dir>/<METHOD>/<dataset>_fold<fold>_ranking.csv (1-based, one per line) then _time.txt
%   ("%.6f" seconds), evaluates ML-kNN over the grid with MLKNN_eval_kgrid and writes
%   _kgrid_metrics.json (or _pgrid_metrics.json with 'grid','pgrid'). Every file is written to a
%   temporary name and renamed. status is 'done' or 'skipped'. Options: see mlfs_suite_options
%   (folds is ignored here). Errors carry identifiers mlfs:run_baseline:* / mlfs:task:* / mlfs:fold:*.
%
%   Example:
%     run_baseline('results/demo', 'data/paper_matlab_minmax', 'VARIANCE', 'demo', 0, 'k_max', 50);
  if nargin < 5
    error('mlfs:run_baseline:missingArgument', ...
          'usage: run_baseline(results_dir, data_dir, method, dataset, fold, ''name'', value, ...)');
  end
  check_folder(results_dir, 'results_dir', false);
  check_folder(data_dir, 'data_dir', true);
  mlfs_validate_name(method, 'method');
  mlfs_validate_name(dataset, 'dataset');
  mlfs_require(isnumeric(fold) && isscalar(fold) && fold == fix(fold) && fold >= 0, ...
    'mlfs:run_baseline:badArgument', 'run_baseline: fold must be an integer >= 0');
  opts = mlfs_parse_options('run_baseline', mlfs_suite_options(true), varargin);
  mlfs_check_grid_options('run_baseline', opts);
  if isfield(opts.params, method)
    mlfs_check_param_ranges(method, opts.params.(method));
  end
  status = mlfs_run_task(results_dir, method, dataset, mlfs_task_fold(data_dir, dataset, fold), opts, true, ...
                         mlfs_task_context(method, true));
end

function check_folder(path, name, must_exist)
  mlfs_require(ischar(path) && size(path, 1) == 1 && ~isempty(path), 'mlfs:run_baseline:badArgument', ...
    'run_baseline: %s must be a folder path (text)', name);
  if must_exist
    mlfs_require(exist(path, 'dir') == 7, 'mlfs:run_baseline:missingFolder', 'run_baseline: %s not found: %s', name, path);
  end
end
