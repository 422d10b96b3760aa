function counts = mlknn_neighbour_counts(nbrs, Ytr)
%MLKNN_NEIGHBOUR_COUNTS  counts(i,l): how many of the neighbours nbrs(:,i) are positive for label l.
  [Num, n_query] = size(nbrs);
  L = size(Ytr, 2);
  counts = reshape(sum(reshape(double(Ytr(nbrs(:), :)), Num, n_query, L), 1), n_query, L);
end
