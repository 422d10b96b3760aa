function mlfs_check_grid_options(caller, opts)
%MLFS_CHECK_GRID_OPTIONS  Range and cross-option checks of the ML-kNN and grid options, as the
%   Python front doors make them: each option of definitions.json's run_options in its range there
%   (refused, never narrowed: e.g. p_min, p_max, p_step and p_target in (0, 1]), k_min <= k_max,
%   p_min <= p_max, and a p-grid of at most max_grid_points points, counted before it is built.
%   Both grids' options are checked whichever grid runs: a value given out of range is an error
%   either way.
  id = sprintf('mlfs:%s:badValue', caller);
  definitions = mlfs_definitions();
  names = fieldnames(definitions.run_options);
  for i = 1:numel(names)
    value = opts.(names{i});
    [ok, expected] = mlfs_range_admits(definitions.run_options.(names{i}).range, value, true);
    mlfs_require(ok, id, '%s: option ''%s'' out of range (expected %s; found %.15g)', caller, names{i}, expected, value);
  end
  mlfs_require(opts.k_min <= opts.k_max, id, '%s: k_min (%d) is larger than k_max (%d)', caller, opts.k_min, opts.k_max);
  mlfs_require(opts.p_min <= opts.p_max, id, ...
    '%s: option ''p_min'' is larger than p_max (expected <= p_max = %.15g; found %.15g)', caller, opts.p_max, opts.p_min);
  points = (opts.p_max + 1e-12 - opts.p_min) / opts.p_step;
  most = definitions.max_grid_points;
  mlfs_require(points <= most, id, ...
    '%s: the p-grid has too many points (expected at most %d points from p_min to p_max; found %.3g)', ...
    caller, most, points);
end
