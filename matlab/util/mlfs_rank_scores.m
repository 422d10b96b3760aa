function ranking = mlfs_rank_scores(scores, method)
%MLFS_RANK_SCORES  1-based ranking by decreasing score, ties within 1e-10*max|score| to the lower index.
%   Scores are snapped to multiples of 1e-10*max|score| before the stable descending sort, so
%   features whose scores differ only by rounding noise are ordered by index in every engine.
%   Non-finite scores are an error (mlfs:<method>:nonFiniteScores). Twin of
%   pipeline.methods._common.rank_scores.
  resolution = 1e-10;
  s = double(scores(:));
  bad = ~isfinite(s);
  mlfs_require(~any(bad), sprintf('mlfs:%s:nonFiniteScores', method), ...
    '%s produced non-finite feature scores (%d of %d)', method, sum(bad), numel(s));
  scale = max([abs(s); 0]);
  if scale == 0
    key = zeros(size(s));
  else
    key = floor(s ./ (scale * resolution) + 0.5);
  end
  ranking = mlfs_stable_descending_order(key);
end
