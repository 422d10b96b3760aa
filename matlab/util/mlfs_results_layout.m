function layout = mlfs_results_layout()
%MLFS_RESULTS_LAYOUT  The file names of a results folder: the one definition of the suffixes is the
%   Python package's results/layout.json (docs/results-schema.md), found and cached by mlfs_package_json.
  layout = mlfs_package_json({'results', 'layout.json'}, 'results layout');
end
