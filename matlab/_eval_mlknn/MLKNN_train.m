function model = MLKNN_train(train_data, train_target, Num, Smooth)
%MLKNN_TRAIN  Train ML-kNN (Zhang & Zhou 2007) on all columns of train_data.
%   model = MLKNN_train(train_data, train_target, Num, Smooth)
%   train_data: n×d; train_target: n×L, positive where > 0 ({0,1} or {-1,+1}; note: one row per
%   instance, as in the fold files, not Zhang's L×n). Num: neighbours (10), Smooth: s (1).
%   Neighbours: the Num smallest canonical squared distances (features added in column order),
%   ties to the lower index, the point itself excluded, exact duplicates kept.
%   model: Prior, PriorN (1×L), Cond, CondN ((Num+1)×L, row c+1 for c positive neighbours), Num,
%   Smooth and the training data (needed by MLKNN_test).
  [Ytr, ~] = mlknn_check_inputs(train_data, train_target, train_data, train_target, Num, Smooth);
  train_data = double(train_data);
  D = mlknn_canonical_distances(train_data, train_data, true);
  model = mlknn_fit(mlknn_neighbours(D, Num), Ytr, mlknn_prior(Ytr, Smooth), Num, Smooth);
  model.Num = Num;
  model.Smooth = Smooth;
  model.train_data = train_data;
  model.train_target = Ytr;
end
