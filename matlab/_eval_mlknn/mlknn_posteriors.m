function outputs = mlknn_posteriors(model, test_nbrs, Ytr)
%MLKNN_POSTERIORS  L × n_test outputs P1/(P1+P0) (the prior where P1+P0 = 0).
  counts = mlknn_neighbour_counts(test_nbrs, Ytr);
  [n_test, L] = size(counts);
  cell_index = counts + 1 + repmat((0:L-1) * size(model.Cond, 1), n_test, 1);
  p1 = repmat(model.Prior, n_test, 1) .* model.Cond(cell_index);
  p0 = repmat(model.PriorN, n_test, 1) .* model.CondN(cell_index);
  total = p1 + p0;
  outputs = p1 ./ total;
  prior = repmat(model.Prior, n_test, 1);
  outputs(total == 0) = prior(total == 0);
  outputs = outputs.';
end
