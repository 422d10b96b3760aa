function grid = mlfs_grid_struct(opts)
%MLFS_GRID_STRUCT  The grid settings as written into result files (the "grid" key).
  if strcmp(opts.grid, 'kgrid')
    grid = struct('k_max', int64(opts.k_max), 'k_min', int64(opts.k_min), 'k_step', int64(opts.k_step));
  else
    grid = struct('p_max', double(opts.p_max), 'p_min', double(opts.p_min), ...
                  'p_step', double(opts.p_step), 'p_target', double(opts.p_target));
  end
end
