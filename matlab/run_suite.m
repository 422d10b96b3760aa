function summary = run_suite(results_dir, data_dir, datasets, methods, varargin)
%RUN_SUITE  The k-grid (or p-grid) benchmark from MATLAB/Octave: every method × dataset × fold.
%   summary = run_suite(results_dir, data_dir, datasets, methods, 'name', value, ...)
%
%   For each dataset, fold and method it runs run_baseline (rank on train, write _ranking.csv and
%   _time.txt, score with ML-kNN, write _kgrid_metrics.json), the same files, names and contents
%   as `python -m pipeline.kgrid --engine octave` (docs/results-schema.md). A task that errors
%   fails alone: it is listed in <results_dir>/failures.json (task, method, dataset, fold,
%   error_type = the error identifier, message) and the suite carries on. Each call adds a record
%   and a log to the run history <results_dir>/runs/ (arguments, Octave/MATLAB version and BLAS, git
%   commit, start and end times, summary), as the Python front door does; nothing is overwritten.
%   A task selecting mostly training-constant features raises the warning
%   mlfs:run_suite:degenerateSelection (summary.degenerate lists them).
%
%   Options (name-value): folds, grid ('kgrid'|'pgrid'), mlknn_k, mlknn_smooth, k_min, k_max,
%   k_step, p_min, p_max, p_step, p_target, skip_existing, overwrite, verbose, params, init; see
%   mlfs_suite_options. summary: struct with counts done/skipped/failed and the failures.
%
%   Example:
%     addpath(genpath('matlab'));
%     run_suite('results/bench_paper_kgrid', 'data/paper_matlab_minmax', {'emotions','yeast'}, ...
%               {'LRMFS','SRFS'}, 'folds',5, 'mlknn_k',10, 'mlknn_smooth',1, 'k_min',10, ...
%               'k_max',300, 'k_step',10, 'skip_existing',true, 'overwrite',false);
  if nargin < 4
    error('mlfs:run_suite:missingArgument', ...
          'usage: run_suite(results_dir, data_dir, datasets, methods, ''name'', value, ...)');
  end
  summary = mlfs_run_many('run_suite', results_dir, data_dir, datasets, methods, varargin, true);
end
