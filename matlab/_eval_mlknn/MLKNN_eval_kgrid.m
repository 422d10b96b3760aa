function result = MLKNN_eval_kgrid(X_train, Y_train, X_test, Y_test, ranking, k_values, Num, Smooth)
%MLKNN_EVAL_KGRID  ML-kNN (Zhang & Zhou 2007) scored over a grid of feature counts, incrementally.
%   result = MLKNN_eval_kgrid(X_train, Y_train, X_test, Y_test, ranking, k_values, Num, Smooth)
%
%   X_train (n×d), X_test (m×d): features. Y_train (n×L), Y_test (m×L): labels, positive where > 0
%   ({0,1} and {-1,+1} both work). ranking: 1-based permutation (or prefix) of feature indices, most
%   important first. k_values: feature counts; cleaned as the reference does (integers, values < 1
%   and values above numel(ranking) dropped, duplicates removed, ascending); empty after cleaning is
%   an error. Num: neighbours (10); Smooth: Laplace smoothing (1).
%
%   For each k the features ranking(1:k) are used. Squared distances are accumulated feature by
%   feature in ranking order (acc = acc + (a_f - b_f)^2, the canonical order shared with the native
%   evaluator), so nothing is recomputed per k and the neighbour sets are exact: the Num smallest by
%   (distance, training index); a training point never counts itself, exact duplicates do.
%
%   result: struct with k_values (1×K) and the metric rows micro_f1, macro_f1, hamming_loss,
%   micro_pr_auc, macro_pr_auc, avg_precision, one_error, ranking_loss, coverage (1×K), plus macro_pr_auc_labels_used and
%   macro_pr_auc_labels_total. Conventions: see mlknn_metrics.
  [Ytr, Yte] = mlknn_check_inputs(X_train, Y_train, X_test, Y_test, Num, Smooth);
  ranking = mlknn_check_ranking(ranking, size(X_train, 2));
  k_values = mlknn_clean_k(k_values, numel(ranking));

  n_train = size(X_train, 1);
  D_train = zeros(n_train, n_train);          % column j: squared distances to training point j
  D_train(1:n_train+1:end) = Inf;             % a point is never its own neighbour
  D_test = zeros(n_train, size(X_test, 1));   % column i: squared distances to test point i
  prior = mlknn_prior(Ytr, Smooth);

  K = numel(k_values);
  result = struct('k_values', k_values);
  rows = cell(K, 1);
  used = 0;
  k_done = 0;
  for g = 1:K
    chunk = ranking(k_done+1:k_values(g));
    D_train = mlknn_accumulate(D_train, X_train(:, chunk), X_train(:, chunk), true);
    D_test = mlknn_accumulate(D_test, X_train(:, chunk), X_test(:, chunk));
    k_done = k_values(g);
    model = mlknn_fit(mlknn_neighbours(D_train, Num), Ytr, prior, Num, Smooth);
    outputs = mlknn_posteriors(model, mlknn_neighbours(D_test, Num), Ytr);
    [rows{g}, used] = mlknn_metrics(outputs, Yte.');
  end
  names = mlknn_metric_names();
  for m = 1:numel(names)
    result.(names{m}) = cellfun(@(r) r.(names{m}), rows).';
  end
  result.macro_pr_auc_labels_used = used;
  result.macro_pr_auc_labels_total = size(Ytr, 2);
end
