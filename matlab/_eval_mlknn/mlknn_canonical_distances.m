function D = mlknn_canonical_distances(ref, query, exclude_self)
%MLKNN_CANONICAL_DISTANCES  n_ref × n_query canonical squared distances over all columns, in order.
%   D(i,j) = sum_f (ref(i,f) - query(j,f))^2 accumulated feature by feature (the binding rule).
%   exclude_self: set the diagonal to Inf (ref and query are the same training set).
  D = zeros(size(ref, 1), size(query, 1));
  if exclude_self
    D(1:size(ref, 1)+1:end) = Inf;
  end
  D = mlknn_accumulate(D, ref, query, exclude_self);
end
