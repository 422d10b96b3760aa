function ap = metric_avg_precision(outputs, Y)
%METRIC_AVG_PRECISION  Example-based (label-ranking) average precision (higher is better).
%   For each instance with a positive label: labels in stable descending output order (ties to the
%   lower label index); the precision at each positive label's rank, averaged over its positives.
%   Summed over instances and divided by n_test: instances without positives add 0 but count.
  [L, n] = size(outputs);
  [~, order] = sort(-outputs, 1);
  hits = Y(order + repmat((0:n-1) * L, L, 1));
  precision = cumsum(hits, 1) ./ repmat((1:L).', 1, n);
  n_pos = sum(hits, 1);
  per_instance = zeros(1, n);
  with_pos = find(n_pos > 0);
  for i = with_pos
    per_instance(i) = mlfs_np_sum(precision(hits(:, i), i)) / n_pos(i);
  end
  ap = mlfs_np_sum(per_instance) / n;
end
