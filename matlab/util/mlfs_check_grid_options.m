function mlfs_check_grid_options(caller, opts)
%MLFS_CHECK_GRID_OPTIONS  Cross-option checks of the grid (k_min <= k_max; a p-grid of at most
%   10000 points, counted before it is built, with at least one p in (0, 1]), as GridSpec in Python.
  if strcmp(opts.grid, 'kgrid')
    mlfs_require(opts.k_min <= opts.k_max, sprintf('mlfs:%s:badValue', caller), ...
      '%s: k_min (%d) is larger than k_max (%d)', caller, opts.k_min, opts.k_max);
  else
    points = (opts.p_max + 1e-12 - opts.p_min) / opts.p_step;
    mlfs_require(points <= 10000, sprintf('mlfs:%s:badValue', caller), ...
      '%s: the p-grid has too many points (expected at most 10000 points from p_min to p_max; found %.3g)', caller, points);
    p = mlfs_pgrid_values(1, opts.p_min, opts.p_max, opts.p_step);
    mlfs_require(~isempty(p), sprintf('mlfs:%s:badValue', caller), ...
      '%s: the p-grid is empty (expected at least one p in (0, 1])', caller);
  end
end
