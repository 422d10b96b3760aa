function m = mlfs_np_mean(values)
%MLFS_NP_MEAN  numpy.mean of a vector (pairwise sum / count); NaN spreads; NaN when empty.
  if isempty(values)
    m = NaN;
  else
    m = mlfs_np_sum(values) / numel(values);
  end
end
