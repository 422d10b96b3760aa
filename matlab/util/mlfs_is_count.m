function tf = mlfs_is_count(value)
%MLFS_IS_COUNT  True for a positive integer scalar.
  tf = isnumeric(value) && isscalar(value) && isfinite(value) && value == fix(value) && value >= 1;
end
