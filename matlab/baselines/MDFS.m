function [ranking, info] = MDFS(X, Y, params, init)
%MDFS  Manifold regularised discriminative feature selection (Zhang, Luo, Li, Zhou, Li, Pattern
%   Recognition 95, 2019).
%   [ranking, info] = MDFS(X, Y, params, init)
%   defaults = MDFS()  returns the default parameter struct (no arguments; pipeline/methods/definitions/MDFS.json).
%   X: n×d training features; Y: n×L labels in {0,1} (used as signs S = 2Y - 1, the code's convention).
%   params (missing fields take the defaults, MDFS()): alpha (> 0), beta, gamma, neighbours (k of
%     both k-NN graphs; 0: L - 1, the demo's setting), tol, max_iter, seed.
%   init (struct): W0 (d×L), the random start; without it mlfs_seeded_uniform(seed) draws it.
%   As the authors' code (docs/methods/MDFS.md), alternating until the relative change of the
%   objective is below tol (from the second iteration) or max_iter iterations ran:
%     F solves (Lx + alpha H + alpha I) F + F (beta L0) = alpha H X W + alpha S;
%     W = (alpha X'HX + gamma D + eps I) \ (alpha X'HF);  D = 0.5 ./ sqrt(|w_j|^2 + eps), previous W;
%   Lx, L0: Laplacians of the binary k-NN graphs of the instances and the labels (mlfs_knn_laplacian,
%   the code's Laplacian_GK); H = I - 11'/n. The F equation is solved from the eigendecompositions of
%   its two symmetric, fixed coefficient matrices (computed once).
%   ranking: sum_l W_jl^2 (the score the demo sorts), ordered by mlfs_rank_scores.
%   info: scores (d×1), neighbours, iterations, objective, seconds, params. Twin of pipeline.methods.mdfs.
  defaults = mlfs_method_defaults('MDFS');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'MDFS');
  p = mlfs_method_params('MDFS', defaults, params);
  mlfs_require(p.neighbours == fix(p.neighbours), 'mlfs:MDFS:badParams', 'MDFS: neighbours must be an integer');
  [n, d] = size(X);
  L = size(Y, 2);
  k = p.neighbours;
  if k == 0
    k = L - 1;
  end
  mlfs_require(n > k, 'mlfs:MDFS:badInput', ...
    'MDFS: the instance graph needs more training rows than neighbours (%d rows, %d neighbours)', n, k);
  mlfs_require(L > k, 'mlfs:MDFS:badParams', ...
    'MDFS: the label graph needs more labels than neighbours (%d labels, neighbours = %d)', L, k);
  if nargin < 4
    init = struct();
  end
  W = initial_matrix(init, p.seed, d, L);
  S = 2 * Y - 1;
  instance_laplacian = mlfs_knn_laplacian(X.', k);
  label_laplacian = mlfs_knn_laplacian(S, k);
  centring = eye(n) - 1 / n;
  [a_vectors, a_values] = symmetric_eig(instance_laplacian + p.alpha * centring + p.alpha * eye(n));
  [b_vectors, b_values] = symmetric_eig(p.beta * label_laplacian);
  denominators = a_values + b_values.';
  Xc = X - mean(X, 1);
  gram = p.alpha * (Xc.' * Xc);
  objective = zeros(1, 0);
  previous = 1;
  for t = 1:p.max_iter
    R = p.alpha * (Xc * W) + p.alpha * S;
    F = a_vectors * (((a_vectors.' * R) * b_vectors) ./ denominators) * b_vectors.';
    row_weights = 0.5 ./ sqrt(sum(W .* W, 2) + eps);
    system = gram + diag(p.gamma * row_weights + eps);
    Fc = F - mean(F, 1);
    W = system \ (p.alpha * (Xc.' * Fc));
    fit = Xc * W - Fc;
    label_fit = F - S;
    objective(end+1) = sum(sum(F .* (instance_laplacian * F))) + p.alpha * sum(fit(:) .^ 2) ...
        + p.alpha * sum(label_fit(:) .^ 2) + p.beta * sum(sum(F .* (F * label_laplacian))) ...
        + p.gamma * sum(sqrt(sum(W .* W, 2) + eps));
    change = abs((objective(end) - previous) / previous);
    previous = objective(end);
    if change < p.tol && t > 1
      break
    end
  end
  scores = sum(W .* W, 2);
  ranking = mlfs_rank_scores(scores, 'MDFS');
  info = struct('scores', scores, 'neighbours', k, 'iterations', numel(objective), 'objective', objective, ...
                'seconds', toc(started), 'params', p);
end

function W = initial_matrix(init, seed, d, L)
  if isstruct(init) && isfield(init, 'W0')
    mlfs_require(isequal(size(init.W0), [d, L]), 'mlfs:MDFS:badInit', 'MDFS: init.W0 must be %d×%d', d, L);
    W = double(init.W0);
  else
    W = mlfs_seeded_uniform(seed, [d, L]);
  end
end

function [vectors, values] = symmetric_eig(A)
%SYMMETRIC_EIG  Eigenvectors and eigenvalues (column) of a symmetric matrix, symmetrised first so
%   that eig takes its symmetric path (as NumPy's eigh reads one triangle).
  [vectors, values] = eig((A + A.') / 2);
  values = diag(values);
end
