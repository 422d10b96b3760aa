function [ranking, info] = RFSFS(X, Y, params, init)
%RFSFS  Robust flexible sparse regularised MLFS (Li, Hu, Gao, Pattern Recognition 134, 2023).
%   [ranking, info] = RFSFS(X, Y, params, init)   (third-party code FarajiMohammad/MLFS-RFSFS;
%   docs/methods/RFSFS.md)
%   defaults = RFSFS()  returns the default parameter struct (no arguments; pipeline/methods/definitions/RFSFS.json).
%   X: n×d training features in [0,1]; Y: n×L labels in {0,1}.
%   params (missing fields take the defaults, RFSFS()): alpha (label graph), beta (l1), gamma (row
%     inner products), max_iter, divergence_limit, seed.
%   init: W0 (d×L, >= 0), the random start (docs/methods/README.md); without it
%     mlfs_seeded_uniform(seed) draws it.
%   With C the label cosine similarity (0 for an all-zero column), D_C = diag(C 1), eps = 2^-23:
%     Q = 1 ./ max(2|W|, eps);
%     W = W .* (X'Y + alpha W C + gamma W) ./ max(X'XW + alpha W D_C + beta Q.*W + gamma 1_{d×d} W, eps)
%   minimising F(W) = |XW - Y|^2 + alpha tr(W L_C W') + beta |W|_1 + gamma (|1'W|^2 - |W|_F^2) over
%   W >= 0 (W stays >= 0, F does not increase). 1_{d×d} W is the broadcast column sums; X'X is
%   cached when d <= n; X is sparse when under 30 % of it is non-zero (speed only). Non-finite W or
%   |W| above divergence_limit throws mlfs:RFSFS:diverged.
%   ranking: the row norm of W (the value the third-party code sorts), ordered by mlfs_rank_scores
%   (docs/methods/RFSFS.md).
%   info: scores (d×1), iterations, objective (F), W, seconds, params.
%   Twin of pipeline.methods.rfsfs.
  defaults = mlfs_method_defaults('RFSFS');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'RFSFS');
  p = mlfs_method_params('RFSFS', defaults, params);
  [n, d] = size(X);
  L = size(Y, 2);
  if isstruct(init) && isfield(init, 'W0')
    mlfs_require(isequal(size(init.W0), [d, L]) && all(init.W0(:) >= 0), 'mlfs:RFSFS:badInit', ...
      'RFSFS: init.W0 must be a non-negative %d×%d matrix', d, L);
    W = double(init.W0);
  else
    W = mlfs_seeded_uniform(p.seed, [d, L]);
  end
  epsilon = 2^-23;
  C = mlfs_label_cosine_similarity(Y);
  degrees = sum(C, 2).';
  XtY = X.' * Y;
  fold = mlfs_gram_fold(X, Y, XtY);
  gram_w = mlfs_gram_products(fold, W);
  objective = zeros(1, 0);
  for iteration = 1:p.max_iter
    Q = 1 ./ max(2 * abs(W), epsilon);
    numerator = XtY + p.alpha * (W * C) + p.gamma * W;
    denominator = gram_w + p.alpha * (W .* degrees) + p.beta * (Q .* W) + p.gamma * sum(W, 1);
    W = W .* (numerator ./ max(denominator, epsilon));
    mlfs_check_iterates('RFSFS', iteration, p.divergence_limit, 'W', W);
    [gram_w, fit] = mlfs_gram_products(fold, W);   % X'XW is shared with the next update
    objective(end+1) = fit + penalties(W, C, degrees, p);
  end
  scores = sqrt(sum(W .* W, 2));       % the row norm, as the authors' code sorts
  ranking = mlfs_rank_scores(scores, 'RFSFS');
  info = struct('scores', scores, 'iterations', numel(objective), 'objective', objective, 'W', W, 'seconds', toc(started), ...
                'params', p);
end

function value = penalties(W, C, degrees, p)
  column_sums = sum(W, 1);
  value = p.alpha * (sum(sum((W .* degrees) .* W)) - sum(sum((W * C) .* W))) + p.beta * sum(abs(W(:))) ...
        + p.gamma * (sum(column_sums .* column_sums) - sum(sum(W .* W)));
end
