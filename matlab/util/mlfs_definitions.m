function definitions = mlfs_definitions()
%MLFS_DEFINITIONS  The definitions the Python package reads too (pipeline/definitions.json), decoded:
%   seed (the range of every seed), run_options (default and range of each ML-kNN and grid
%   option), max_grid_points, method_ranges (per shipped method, what each parameter may be).
%   Found and cached by mlfs_package_json.
  definitions = mlfs_package_json({'definitions.json'}, 'package''s definitions');
end
