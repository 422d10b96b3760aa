function [ranking, info] = SRFS(X, Y, params, init)
%SRFS  Sparse-supplementation regularised MLFS (Li, Wang, Yang, Gao, Ding, Li, Inf. Fusion 117, 2025).
%   [ranking, info] = SRFS(X, Y, params, init)
%   defaults = SRFS()  returns the default parameter struct (no arguments; pipeline/methods/definitions/SRFS.json).
%   X: n×d training features in [0,1]; Y: n×L labels in {0,1}.
%   params (missing fields take the defaults, SRFS()): alpha (label graph), beta (l2,1), gamma
%     (inner product), max_iter, tol (0: off; > 0 stops at a relative objective change <= tol), seed.
%   init: W0 (d×L, >= 0), the random start (docs/methods/README.md); without it
%     mlfs_seeded_uniform(seed) draws it.
%   Multiplicative updates of min_{W>=0} |XW-Y|^2 + alpha tr(W L_Y W') + beta |W|_21
%   + gamma (|WW'|_1 - |W|_F^2), as the third-party notebook FarajiMohammad/MLFS-SRFS
%   (docs/methods/SRFS.md), eps = 2^-23, float64:
%     D = 1 ./ (2 |w_j| + eps);  W = W .* (X'Y + alpha W S + gamma W) ./
%         max(X'XW + alpha W A_S + beta D.*W + gamma colsum(W), eps)
%   with S the label cosine similarity (0 for an all-zero column), A_S = diag(S 1).
%   X'XW is shared by the update and the objective (fit term <W,X'XW> - 2<W,X'Y> + |Y|^2 when
%   d <= n, else X'(XW) with no d×d memory).
%   ranking: the row l2 norm of W (the score the notebook sorts), ordered by mlfs_rank_scores.
%   info: scores (d×1), iterations, objective (trace), seconds, params.
%   Twin of pipeline.methods.srfs.
  defaults = mlfs_method_defaults('SRFS');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'SRFS');
  p = mlfs_method_params('SRFS', defaults, params);
  [n, d] = size(X);
  L = size(Y, 2);
  if isstruct(init) && isfield(init, 'W0')
    mlfs_require(isequal(size(init.W0), [d, L]) && all(init.W0(:) >= 0), 'mlfs:SRFS:badInit', ...
      'SRFS: init.W0 must be a non-negative %d×%d matrix', d, L);
    W = double(init.W0);
  else
    W = mlfs_seeded_uniform(p.seed, [d, L]);
  end
  epsilon = 2^-23;
  S = mlfs_label_cosine_similarity(Y);
  A_S = diag(sum(S, 2));
  XtY = X.' * Y;
  fold = mlfs_gram_fold(X, Y, XtY);
  gram_w = mlfs_gram_products(fold, W);
  objective = zeros(1, 0);
  for t = 1:p.max_iter
    D = 1 ./ (2 * sqrt(sum(W .* W, 2)) + epsilon);
    numerator = XtY + p.alpha * (W * S) + p.gamma * W;
    denominator = gram_w + p.alpha * (W * A_S) + p.beta * (D .* W) + p.gamma * sum(W, 1);
    W = W .* numerator ./ max(denominator, epsilon);
    [gram_w, fit] = mlfs_gram_products(fold, W);
    objective(end+1) = fit + penalties(W, S, A_S, p);
    if p.tol > 0 && t > 1 && abs(objective(end-1) - objective(end)) <= p.tol * abs(objective(end-1))
      break
    end
  end
  scores = sqrt(sum(W .* W, 2));
  ranking = mlfs_rank_scores(scores, 'SRFS');
  info = struct('scores', scores, 'iterations', numel(objective), 'objective', objective, 'seconds', toc(started), 'params', p);
end

function value = penalties(W, S, A_S, p)
  column_sums = sum(W, 1);
  value = p.alpha * sum(sum((W * (A_S - S)) .* W)) + p.beta * sum(sqrt(sum(W .* W, 2))) ...
        + p.gamma * (sum(column_sums .* column_sums) - sum(sum(W .* W)));
end
