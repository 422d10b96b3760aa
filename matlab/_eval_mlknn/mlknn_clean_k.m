function k_values = mlknn_clean_k(k_values, n_ranked)
%MLKNN_CLEAN_K  Integers >= 1 and <= n_ranked, unique, ascending; error when nothing is left.
  k_values = fix(double(k_values(:)).');
  k_values = unique(k_values(k_values >= 1 & k_values <= n_ranked));
  mlfs_require(~isempty(k_values), 'mlfs:mlknn:emptyGrid', ...
    'no feature count of the grid lies in 1..%d', n_ranked);
end
