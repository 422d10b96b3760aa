function [ranking, info] = LSMFS(X, Y, params, init)
%LSMFS  Embedded MLFS of the public code HQUF/LSMFS (paper not identified; docs/methods/LSMFS.md).
%   [ranking, info] = LSMFS(X, Y, params, init)
%   defaults = LSMFS()  returns the default parameter struct (no arguments; pipeline/methods/definitions/LSMFS.json).
%   X: n×d training features in [0,1]; Y: n×L labels in {0,1}.
%   params (struct, missing fields take the defaults, LSMFS(); the repository has none, and the
%     sibling driver's alpha 0.1, beta 1 make V grow, see docs/methods/LSMFS.md):
%     alpha, beta, gamma (> 0), lambda, max_iter, tol (|obj_{t-1} - obj_t|, in [0, 1)),
%     divergence_limit, seed.
%   init (struct): W0 (d×L), V0 and S0 (n×L), the random starts (docs/methods/README.md); without
%     them mlfs_seeded_uniform(seed) draws them, in this order.
%   With B = 2Y - 1 and L_y the binary (L-1)-NN label-column Laplacian (= L I - 11' for distinct
%   label columns), while err > tol and t <= max_iter:
%     M = Y + B.*S;  [U,~,P] = svd(W,'econ');  W = (X'X + gamma D) \ (X'V - lambda U P');
%     V = (XW + beta M) / (alpha I + beta L_y' + beta L_y);  S = max(B.*(V - Y), 0);
%     D = diag(0.5 ./ (|w_i| + eps));
%     obj = |XW - V|^2 + alpha |V - M|^2 + beta tr(V L_y V') + gamma tr(W'DW) + lambda sum_i |w_i|.
%   The V-step is the code's, not the objective's minimiser: for alpha <~ 1 + beta V grows by up to
%   (1+beta)/alpha per iteration (the code's update, kept; the defaults lie in the settling
%   region). An iterate that becomes non-finite or exceeds divergence_limit throws
%   mlfs:LSMFS:diverged naming the iteration.
%   ranking: the squared row norm of W (the score the code sorts), ordered by mlfs_rank_scores.
%   info: scores (d×1), iterations, objective, V, W, seconds, params.
%   Deviations from the public code: solves instead of inv, the W-step in the equivalent scaled form
%   E (E X'X E + gamma I) \ (E rhs) with E = D^(-1/2) by Cholesky, a W-step system singular to
%   working precision (growing rows of W on rank-deficient data) is a divergence (see weight_step),
%   X'X cached, X sparse when under 30 % non-zero (speed only), starts from init, label distances
%   computed directly. Twin of pipeline.methods.lsmfs.
  defaults = mlfs_method_defaults('LSMFS');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'LSMFS');
  p = mlfs_method_params('LSMFS', defaults, params);
  [n, d] = size(X);
  L = size(Y, 2);
  [W, V, S] = initial_matrices(init, p.seed, n, d, L);
  L_y = mlfs_knn_laplacian(Y, L - 1);
  B = 2 * Y - 1;
  XtX = mlfs_gram_matrix(mlfs_gram_operand(X));
  X = mlfs_sparse_if_mostly_zero(X);
  Xt = X.';                           % Xt.' * W is X * W (same sums), 3x faster in Octave for a sparse X
  label_system = p.alpha * eye(L) + p.beta * L_y.' + p.beta * L_y;
  D = ones(d, 1);
  objective = zeros(1, 0);
  err = 1;
  t = 1;
  while err > p.tol && t <= p.max_iter
    M = Y + B .* S;
    [U, ~, P] = mlfs_svd_econ(W);
    W = weight_step(XtX, D, p.gamma, full(X.' * V) - p.lambda * (U * P.'), t);
    XW = full(Xt.' * W);
    V = (XW + p.beta * M) / label_system;
    S = max(B .* (V - Y), 0);
    D = 0.5 ./ (sqrt(sum(W .* W, 2)) + eps);
    mlfs_check_iterates('LSMFS', t, p.divergence_limit, 'W', W, 'V', V);
    row_norm2 = sum(W .* W, 2);
    objective(end+1) = sum(sum((XW - V) .^ 2)) + p.alpha * sum(sum((V - M) .^ 2)) ...
        + p.beta * sum(sum((V * L_y) .* V)) + p.gamma * sum(D .* row_norm2) + p.lambda * sum(sqrt(row_norm2));
    if t > 1
      err = abs(objective(end-1) - objective(end));
    end
    t = t + 1;
  end
  scores = sum(W .* W, 2);
  ranking = mlfs_rank_scores(scores, 'LSMFS');
  info = struct('scores', scores, 'iterations', numel(objective), 'objective', objective, 'V', V, 'W', W, ...
                'seconds', toc(started), 'params', p);
end

function W = weight_step(XtX, D, gamma, rhs, iteration)
%WEIGHT_STEP  (X'X + gamma D) \ rhs as E ((E X'X E + gamma I) \ (E rhs)), E = D^(-1/2), by Cholesky;
%   mlfs:LSMFS:diverged when the factorisation fails or (min/max pivot)^2 < 1e-14 (rows of W grew
%   without bound on rank-deficient data and the system is singular to working precision).
  scale = 1 ./ sqrt(D);
  [R, failed] = chol(scale .* XtX .* scale.' + gamma * eye(numel(D)));
  ratio = 0;
  if ~failed && max(abs(diag(R))) > 0
    ratio = (min(abs(diag(R))) / max(abs(diag(R))))^2;
  end
  mlfs_require(ratio >= 1e-14, 'mlfs:LSMFS:diverged', ['LSMFS diverged at iteration %d: the W-step ' ...
    'system X''X + gamma D is singular to working precision (rows of W grew without bound; squared ' ...
    'Cholesky pivot ratio %.3g < 1e-14)'], iteration, ratio);
  W = scale .* (R \ (R.' \ (scale .* rhs)));
end

function [W, V, S] = initial_matrices(init, seed, n, d, L)
  if isstruct(init) && isfield(init, 'W0')
    mlfs_require(isfield(init, 'V0') && isfield(init, 'S0') && isequal(size(init.W0), [d, L]) && ...
      isequal(size(init.V0), [n, L]) && isequal(size(init.S0), [n, L]), 'mlfs:LSMFS:badInit', ...
      'LSMFS: init must hold W0 (%d×%d), V0 and S0 (%d×%d)', d, L, n, L);
    W = double(init.W0);
    V = double(init.V0);
    S = double(init.S0);
  else
    [W, V, S] = mlfs_seeded_uniform(seed, [d, L], [n, L], [n, L]);
  end
end
