function ranking = mlfs_stable_descending_order(scores)
%MLFS_STABLE_DESCENDING_ORDER  1-based ranking by decreasing score, ties to the lower index, NaN last.
  key = -double(scores(:));
  key(isnan(key)) = Inf;
  [~, order] = sort(key);
  ranking = order(:).';
end
