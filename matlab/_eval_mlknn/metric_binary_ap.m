function ap = metric_binary_ap(scores, truth)
%METRIC_BINARY_AP  Order-based average precision of one score vector (NaN without positives).
%   Scores are sorted by a stable descending sort (ties keep their original order); with r_1 < ... <
%   r_P the positions of the positives, AP = (1/P) * sum_k k / r_k. Not tie-aware by design.
  [~, order] = sort(-scores(:));
  truth = truth(:);
  hits = find(truth(order));
  if isempty(hits)
    ap = NaN;
  else
    ap = mlfs_np_sum((1:numel(hits)).' ./ hits) / numel(hits);
  end
end
