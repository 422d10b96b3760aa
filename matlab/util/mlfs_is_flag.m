function tf = mlfs_is_flag(value)
%MLFS_IS_FLAG  True for a logical (or 0/1) scalar.
  tf = (islogical(value) || isnumeric(value)) && isscalar(value) && (value == 0 || value == 1);
end
