function summary = eval_rankings_matlab(results_dir, data_dir, methods, datasets, varargin)
%EVAL_RANKINGS_MATLAB  Score rankings produced elsewhere (e.g. DAGFS in Python) with ML-kNN.
%   summary = eval_rankings_matlab(results_dir, data_dir, methods, datasets, 'name', value, ...)
%
%   methods name folders under results_dir holding <DATASET>_fold<i>_ranking.csv files (1-based,
%   one per line or comma-separated; each must be a permutation of 1..d or the task fails). Each is
%   evaluated on <data_dir>/<DATASET>/fold<i>.mat and _kgrid_metrics.json (or _pgrid_metrics.json
%   with 'grid','pgrid') is written next to it, as `python -m pipeline.evaluate` does. Options as
%   in run_suite except params/init. Failures go to failures.json; the others carry on.
%
%   Example:
%     eval_rankings_matlab('results/bench_paper_kgrid', 'data/paper_matlab_minmax', {'DAGFS'}, ...
%       {'emotions'}, 'folds',5, 'mlknn_k',10, 'mlknn_smooth',1, 'k_min',10, 'k_max',300, ...
%       'k_step',10, 'skip_existing',true);
  if nargin < 4
    error('mlfs:eval_rankings_matlab:missingArgument', ...
          'usage: eval_rankings_matlab(results_dir, data_dir, methods, datasets, ''name'', value, ...)');
  end
  summary = mlfs_run_many('eval_rankings_matlab', results_dir, data_dir, datasets, methods, varargin, false);
end
