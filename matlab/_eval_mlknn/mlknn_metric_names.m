function names = mlknn_metric_names()
%MLKNN_METRIC_NAMES  The metric keys (1×M cell), in the order used everywhere: those of
%   pipeline/evaluation/metrics.json, the file the Python package reads too (its METRICS).
  declared = mlfs_package_json({'evaluation', 'metrics.json'}, 'metric definitions');
  names = reshape({declared.metrics.key}, 1, []);
end
