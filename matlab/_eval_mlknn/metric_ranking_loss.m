function loss = metric_ranking_loss(outputs, Y)
%METRIC_RANKING_LOSS  Zhang & Zhou's ranking loss (lower is better).
%   Per instance: the share of (relevant, irrelevant) label pairs whose relevant label is not scored
%   above the irrelevant one (ties count as misordered). Instances with no relevant or no irrelevant
%   label are left out; the shares are summed in NumPy's pairwise order and divided by the number
%   of instances kept (NaN if none). Twin: pipeline.evaluation.metrics.ranking_loss.
  L = size(outputs, 1);
  n_pos = sum(Y, 1);
  kept = find(n_pos > 0 & n_pos < L);
  if isempty(kept)
    loss = NaN;
    return
  end
  Y = Y(:, kept);
  offsets = repmat((0:numel(kept)-1) * L, L, 1);
  [~, by_truth] = sort(double(Y), 1);            % irrelevant labels first (the sort is stable)
  by_truth = by_truth + offsets;
  scores = outputs(:, kept);
  [~, by_score] = sort(-scores(by_truth), 1);    % descending score; tied irrelevant labels stay first
  relevant = Y(by_truth(by_score + offsets));
  misordered = sum(cumsum(~relevant, 1) .* relevant, 1);
  per_instance = misordered ./ (n_pos(kept) .* (L - n_pos(kept)));
  loss = mlfs_np_sum(per_instance) / numel(kept);
end
