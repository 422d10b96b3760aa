function [Outputs, Pre_Labels] = MLKNN_test(model, test_data)
%MLKNN_TEST  ML-kNN outputs and predictions for test_data (n_test×d) with a model of MLKNN_train.
%   Outputs: L×n_test posteriors P1/(P1+P0) (the prior where P1+P0 = 0).
%   Pre_Labels: L×n_test, +1 where Outputs >= 0.5 (exactly 0.5 counts as positive), else -1.
  mlfs_require(isstruct(model) && isfield(model, 'Cond') && isfield(model, 'train_data'), ...
    'mlfs:mlknn:badModel', 'MLKNN_test: model must come from MLKNN_train');
  mlfs_require(isnumeric(test_data) && size(test_data, 2) == size(model.train_data, 2) && ...
    all(isfinite(test_data(:))), 'mlfs:mlknn:badInput', ...
    'MLKNN_test: test_data must be a finite matrix with %d columns', size(model.train_data, 2));
  D = mlknn_canonical_distances(model.train_data, double(test_data), false);
  Outputs = mlknn_posteriors(model, mlknn_neighbours(D, model.Num), model.train_target);
  Pre_Labels = 2 * (Outputs >= 0.5) - 1;
end
