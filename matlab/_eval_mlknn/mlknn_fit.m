function model = mlknn_fit(train_nbrs, Ytr, prior, Num, Smooth)
%MLKNN_FIT  Priors and conditionals of ML-kNN from the training points' neighbour sets.
%   train_nbrs: Num × n_train neighbour indices; Ytr: n_train × L logical.
%   Cond(c+1,l) = (s + a_l[c]) / (s(Num+1) + sum_c a_l[c] + eps), a_l[c] the number of positive
%   training points of label l with c positive neighbours; CondN likewise over the negatives.
  counts = mlknn_neighbour_counts(train_nbrs, Ytr);
  L = size(Ytr, 2);
  label = repmat(1:L, size(Ytr, 1), 1);
  pos = accumarray([counts(Ytr) + 1, label(Ytr)], 1, [Num + 1, L]);
  neg = accumarray([counts(~Ytr) + 1, label(~Ytr)], 1, [Num + 1, L]);
  model.Prior = prior;
  model.PriorN = 1 - prior;
  model.Cond = (Smooth + pos) ./ (Smooth * (Num + 1) + sum(pos, 1) + eps);
  model.CondN = (Smooth + neg) ./ (Smooth * (Num + 1) + sum(neg, 1) + eps);
end
