function mlfs_check_grid_options(caller, opts)
%MLFS_CHECK_GRID_OPTIONS  Cross-option and range checks of the grid, as GridSpec in Python:
%   k_min <= k_max; p_min, p_max, p_step and p_target each in (0, 1] (refused, never narrowed)
%   with p_min <= p_max; a p-grid of at most 10000 points, counted before it is built. Both grids'
%   options are checked whichever grid runs: a value given out of range is an error either way.
  id = sprintf('mlfs:%s:badValue', caller);
  mlfs_require(opts.k_min <= opts.k_max, id, '%s: k_min (%d) is larger than k_max (%d)', caller, opts.k_min, opts.k_max);
  names = {'p_min', 'p_max', 'p_step', 'p_target'};
  for i = 1:numel(names)
    value = opts.(names{i});
    mlfs_require(value > 0 && value <= 1, id, ...
      '%s: option ''%s'' out of range (expected a number in (0, 1]; found %.15g)', caller, names{i}, value);
  end
  mlfs_require(opts.p_min <= opts.p_max, id, ...
    '%s: option ''p_min'' is larger than p_max (expected <= p_max = %.15g; found %.15g)', caller, opts.p_max, opts.p_min);
  points = (opts.p_max + 1e-12 - opts.p_min) / opts.p_step;
  mlfs_require(points <= 10000, id, ...
    '%s: the p-grid has too many points (expected at most 10000 points from p_min to p_max; found %.3g)', caller, points);
end
