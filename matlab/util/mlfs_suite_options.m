function spec = mlfs_suite_options(rank)
%MLFS_SUITE_OPTIONS  Name-value options shared by run_suite, run_baseline and eval_rankings_matlab.
%   folds         []     number of folds N (fold0..fold<N-1>); [] = every fold<i>.mat present
%   grid          'kgrid' 'kgrid' or 'pgrid'
%   mlknn_k, mlknn_smooth           ML-kNN neighbours and Laplace smoothing
%   k_min, k_max, k_step            the k-grid
%   p_min, p_max, p_step, p_target  the p-grid (p_min <= p_max)
%                 (these take their defaults and ranges from definitions.json, as Python does)
%   skip_existing false  keep tasks whose complete, valid metrics file exists with the same settings
%   overwrite     false  recompute rankings and metrics (and replace files made with other settings)
%   verbose       true   print one line per task
%   plugins       {}     plug-in folders (cell of paths): added to the path; their NAME.m methods are
%                        fingerprinted there, with their defaults from their no-argument call
%   params        struct() (rank only) per-method parameter structs, e.g. struct('LRMFS', struct('alpha', 0.1))
%   init          struct() (rank only) per-method initial-matrix structs passed as the 4th argument
  real_scalar = @(v) isnumeric(v) && isscalar(v) && isfinite(v);
  definitions = mlfs_definitions();
  run = definitions.run_options;
  spec = {
    'folds', [], @(v) isempty(v) || mlfs_is_count(v)
    'grid', 'kgrid', @(v) ischar(v) && any(strcmp(v, {'kgrid', 'pgrid'}))
    'mlknn_k', run.mlknn_k.default, @mlfs_is_count
    'mlknn_smooth', run.mlknn_smooth.default, @(v) isnumeric(v) && isscalar(v) && isfinite(v) && v > 0
    'k_min', run.k_min.default, @mlfs_is_count
    'k_max', run.k_max.default, @mlfs_is_count
    'k_step', run.k_step.default, @mlfs_is_count
    'p_min', run.p_min.default, real_scalar
    'p_max', run.p_max.default, real_scalar
    'p_step', run.p_step.default, @(v) isnumeric(v) && isscalar(v) && isfinite(v) && v > 0
    'p_target', run.p_target.default, real_scalar
    'skip_existing', false, @mlfs_is_flag
    'overwrite', false, @mlfs_is_flag
    'verbose', true, @mlfs_is_flag
    'plugins', {}, @(v) iscellstr(v) || ischar(v)
  };
  if rank
    spec = [spec; {'params', struct(), @(v) isstruct(v) && isscalar(v); ...
                   'init', struct(), @(v) isstruct(v) && isscalar(v)}];
  end
end
