function ranking = mlfs_rank_scores(scores, method)
%MLFS_RANK_SCORES  1-based ranking by decreasing score, rounding-level ties to the lower index.
%   ranking = mlfs_rank_scores(scores, method) returns a 1×d permutation of 1..d.
%   The rule (docs/methods/README.md; twin of pipeline.rankings.rank_scores):
%   1. sort by decreasing score, equal scores by increasing index (sort is stable);
%   2. walk that order forming tie groups: a feature joins the current group when
%      s_first - s <= 1e-10 * max(|s_first|, |s|), s_first being the group's first (largest)
%      score, and starts a new group otherwise;
%   3. order each group by increasing feature index.
%   Non-finite scores are an error (mlfs:<method>:nonFiniteScores).
  tolerance = 1e-10;
  s = double(scores(:));
  bad = ~isfinite(s);
  mlfs_require(~any(bad), sprintf('mlfs:%s:nonFiniteScores', method), ...
    '%s produced non-finite feature scores (%d of %d)', method, sum(bad), numel(s));
  [descending, order] = sort(-s);
  descending = -descending;
  groups = zeros(size(s));
  group = 0;
  first = 0;
  for i = 1:numel(descending)
    value = descending(i);
    if group == 0 || first - value > tolerance * max(abs(first), abs(value))
      group = group + 1;
      first = value;
    end
    groups(i) = group;
  end
  [~, within] = sortrows([groups, order]);
  ranking = order(within).';
end
