function definitions = mlfs_definitions()
%MLFS_DEFINITIONS  The definitions the Python package reads too (pipeline/definitions.json), decoded:
%   seed (the range of every seed), run_options (default and range of each ML-kNN and grid
%   option), max_grid_points, result_files, recorded_info, ranking_files and fold_files (limits).
%   A shipped method's defaults and ranges are in its own file (mlfs_method_definition).
%   Found and cached by mlfs_package_json.
  definitions = mlfs_package_json({'definitions.json'}, 'package''s definitions');
end
