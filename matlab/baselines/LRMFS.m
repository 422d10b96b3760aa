function [ranking, info] = LRMFS(X, Y, params, init)
%LRMFS  Multi-label feature selection via label relaxation (Fan, Liu, Liu, ASOC 175, 2025).
%   [ranking, info] = LRMFS(X, Y, params, init)
%   defaults = LRMFS()  returns the default parameter struct (no arguments; pipeline/methods/definitions/LRMFS.json).
%   X: n×d training features in [0,1]; Y: n×L labels in {0,1}.
%   params (struct, missing fields take the defaults, LRMFS()):
%     alpha (ridge), beta, gamma (graph terms; inert, see below), lambda (l2,1 rows), max_iter,
%     tol (|obj_{t-1} - obj_t|, in [0, 1)), mode 'fast' | 'faithful', seed.
%   init (struct): W0, Q0 (d×L) and S0 (n×L), the random starts (docs/methods/README.md); without
%     them mlfs_seeded_uniform(seed) draws them, in this order.
%   ranking: 1×d, the squared row norm of W (the score the code sorts) ordered by mlfs_rank_scores.
%   info: scores (d×1), iterations, objective (trace), mode, seconds, params, and max_abs_Q
%     (faithful mode).
%
%   Follows the authors' public code (HQUF/LRMFS LRMFS.m; docs/methods/LRMFS.md), with X as n×d:
%     F = Y + B.*S;  A = Q'W;  C = X'DzX + alpha I + lambda D;  W = (C - alpha QQ') \ X'DzF;
%     Q solves U1 Q + Q U2 = 0 (U1 = 2 beta L_X - alpha (P + P'), U2 = 2 gamma L_Y);
%     S = max(B.*(XW - Y), 0);  V = XW - F;  Dz, D = 0.5 ./ (row norms of V, W + eps);
%     obj = tr(V'DzV) + alpha|W - QA|^2 + beta tr(Q'L_X Q) + gamma tr(Q L_Y Q') + lambda tr(W'DW).
%   The Q equation is homogeneous: Q = 0 whenever the operator is non-singular, so beta and gamma
%   never change the ranking. 'faithful' solves it (20-NN feature graph, complete label graph, error
%   mlfs:LRMFS:singularSylvester if singular); 'fast' sets Q = 0 and skips it (same W, same trace).
%   Deviations from the public code: Dz is a vector, not a dense n×n matrix, and X'DzX is formed
%   as Xs'Xs with Xs = sqrt(Dz).*X (symmetric rank-k product); systems are solved
%   instead of explicit inverses; the starts come from init. Twin of pipeline.methods.lrmfs.
  defaults = mlfs_method_defaults('LRMFS');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'LRMFS');
  p = mlfs_method_params('LRMFS', defaults, params);
  [n, d] = size(X);
  L = size(Y, 2);
  [W, Q, S] = initial_matrices(init, p.seed, n, d, L);
  faithful = strcmp(p.mode, 'faithful');
  if faithful
    mlfs_require(d > 20, 'mlfs:LRMFS:tooFewFeatures', ...
      'LRMFS (faithful mode) needs more features than feature-graph neighbours (d >= 21, found %d)', d);
    L_X = mlfs_knn_laplacian(X, 20);
    L_Y = mlfs_knn_laplacian(Y, L - 1);
  end
  B = 2 * (Y == 1) - 1;
  D = ones(d, 1);
  dz = ones(n, 1);
  gram_X = mlfs_gram_operand(X);
  products_X = mlfs_sparse_if_mostly_zero(X);
  products_Xt = products_X.';         % Xt.' * W is X * W (same sums), 3x faster in Octave for a sparse X
  objective = zeros(1, 0);
  max_abs_Q = zeros(1, 0);
  err = 1;
  t = 1;
  while err > p.tol && t <= p.max_iter
    F = Y + B .* S;
    A = Q.' * W;
    C = mlfs_gram_matrix(gram_X, sqrt(dz)) + p.alpha * eye(d) + p.lambda * diag(D);
    system = C;
    if any(Q(:))                      % Q = 0 from the first Q-step in fast mode
      system = C - p.alpha * (Q * Q.');
    end
    W = system \ full(products_X.' * (dz .* F));   % symmetric: Cholesky, LU if not positive definite
    if faithful
      Q = subspace_step(X, dz, F, C, L_X, L_Y, p.alpha, p.beta, p.gamma);
      max_abs_Q(end+1) = max(abs(Q(:)));
    else
      Q = zeros(d, L);
    end
    XW = full(products_Xt.' * W);
    S = max(B .* (XW - Y), 0);
    V = XW - F;
    dz = 0.5 ./ (sqrt(sum(V .* V, 2)) + eps);
    D = 0.5 ./ (sqrt(sum(W .* W, 2)) + eps);
    value = sum(dz .* sum(V .* V, 2)) + p.alpha * sum(sum((W - Q * A) .^ 2));
    if faithful
      value = value + p.beta * trace(Q.' * L_X * Q) + p.gamma * trace(Q * L_Y * Q.');
    end
    objective(end+1) = value + p.lambda * sum(D .* sum(W .* W, 2));
    if t > 1
      err = abs(objective(end-1) - objective(end));
    end
    t = t + 1;
  end
  scores = sum(W .* W, 2);
  ranking = mlfs_rank_scores(scores, 'LRMFS');
  info = struct('scores', scores, 'iterations', numel(objective), 'objective', objective, 'mode', p.mode, ...
                'seconds', toc(started), 'params', p);
  if faithful
    info.max_abs_Q = max_abs_Q;
  end
end

function [W, Q, S] = initial_matrices(init, seed, n, d, L)
  if isstruct(init) && isfield(init, 'W0')
    mlfs_require(isfield(init, 'Q0') && isfield(init, 'S0') && isequal(size(init.W0), [d, L]) && ...
      isequal(size(init.Q0), [d, L]) && isequal(size(init.S0), [n, L]), 'mlfs:LRMFS:badInit', ...
      'LRMFS: init must hold W0 and Q0 (%d×%d) and S0 (%d×%d)', d, L, n, L);
    W = double(init.W0);
    Q = double(init.Q0);
    S = double(init.S0);
  else
    [W, Q, S] = mlfs_seeded_uniform(seed, [d, L], [d, L], [n, L]);
  end
end

function Q = subspace_step(X, dz, F, C, L_X, L_Y, alpha, beta, gamma)
  d = size(C, 1);
  M = C \ (X.' * (dz .* F));
  P = (eye(d) - alpha * C) \ (M * M.');
  U1 = 2 * beta * L_X - alpha * (P + P.');
  U2 = 2 * gamma * L_Y;
  eig1 = eig((U1 + U1.') / 2);
  eig2 = eig(U2);
  separation = min(min(abs(eig1 + eig2.')));
  scale = max(abs(eig1)) + max(abs(eig2));
  mlfs_require(separation > 1e-12 * scale, 'mlfs:LRMFS:singularSylvester', ...
    'LRMFS subspace step: the Sylvester operator is singular, Q is not unique (min |eig(U1)+eig(U2)| = %g)', ...
    separation);
  Q = mlfs_lyap(U1, U2, zeros(d, size(L_Y, 1)));
end
