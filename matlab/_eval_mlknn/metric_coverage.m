function cover = metric_coverage(outputs, Y)
%METRIC_COVERAGE  Zhang & Zhou's coverage (lower is better).
%   Per instance: the largest rank of a relevant label, ranks read from the end of a stable
%   ascending sort of the outputs (rank = L + 1 - position, as in their coverage.m, so among tied
%   labels the higher label index ranks first). The result is sum(ranks) / n - 1 over the n
%   instances with a relevant label (the others are left out; NaN if none). That label is the
%   lowest-scored relevant one with the lowest index, so no sort is needed. The ranks are integers:
%   the sum is exact. Twin: pipeline.evaluation.metrics.coverage.
  L = size(outputs, 1);
  kept = find(any(Y, 1));
  if isempty(kept)
    cover = NaN;
    return
  end
  Y = Y(:, kept);
  outputs = outputs(:, kept);
  masked = outputs;
  masked(~Y) = Inf;
  lowest = repmat(min(masked, [], 1), L, 1);
  [~, deepest] = max(Y & outputs == lowest, [], 1);
  after = repmat((1:L).', 1, numel(kept)) > repmat(deepest, L, 1);
  ranks = 1 + sum(outputs > lowest, 1) + sum(outputs == lowest & after, 1);
  cover = sum(ranks) / numel(kept) - 1;
end
