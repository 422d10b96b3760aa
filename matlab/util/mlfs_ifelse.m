function out = mlfs_ifelse(condition, a, b)
%MLFS_IFELSE  a if condition is true, else b (an expression form of if/else).
  if condition
    out = a;
  else
    out = b;
  end
end
