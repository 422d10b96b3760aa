function [ranking, info] = MIFS(X, Y, params, init)
%MIFS  Multi-label informed feature selection (Jian, Li, Shu, Liu, IJCAI 2016).
%   [ranking, info] = MIFS(X, Y, params, init)
%   defaults = MIFS()  returns the default parameter struct (no arguments; pipeline/methods/definitions/MIFS.json).
%   X: n×d training features; Y: n×L labels in {0,1}.
%   params (missing fields take the defaults, MIFS()): alpha, beta, gamma, latent_fraction
%     (k = round(latent_fraction * L) latent labels), neighbours, kernel_width (instance graph),
%     step, max_iter, tol, seed.
%   init (struct): W0 (d×k), V0 (n×k), B0 (k×L), the random starts; without them
%     mlfs_seeded_uniform(seed) draws them, in this order.
%   Minimises |XW - V|^2 + alpha |Y - VB|^2 + beta tr(V' Lx V) + gamma |W|_2,1 as the MLC_toolbox
%   code does (docs/methods/MIFS.md): per iteration one gradient step of size step in V, B, W:
%     V = V - step ((V - XW) + alpha (VB - Y) B' + beta Lx V);  B = B - step V'(VB - Y);
%     W = W - step (X'(XW - V) + gamma D W);  D = 0.5 ./ sqrt(|w_j|^2 + eps);
%   stopping after the first whose objective moved by less than tol (mlfs_objective_settled).
%   Lx: Laplacian of the toolbox's constructW graph (k-NN, heat kernel) of the rows of X, which is
%   LRDG's unit-width graph (mlfs_knn_heat_graph) of X / kernel_width without its diagonal.
%   ranking: sum_l W_jl^2 (the score the toolbox sorts), ordered by mlfs_rank_scores.
%   info: scores (d×1), latent_labels, iterations, objective, seconds, params.
%   Twin of pipeline.methods.mifs.
  defaults = mlfs_method_defaults('MIFS');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'MIFS');
  p = mlfs_method_params('MIFS', defaults, params);
  mlfs_require(p.neighbours == fix(p.neighbours), 'mlfs:MIFS:badParams', 'MIFS: neighbours must be an integer');
  [n, d] = size(X);
  L = size(Y, 2);
  k = floor(p.latent_fraction * L + 0.5);
  mlfs_require(k >= 1, 'mlfs:MIFS:badParams', ...
    'MIFS needs at least one latent label: round(latent_fraction * L) is 0 (latent_fraction = %g, L = %d)', ...
    p.latent_fraction, L);
  if nargin < 4
    init = struct();
  end
  [W, V, B] = initial_matrices(init, p.seed, n, d, L, k);
  laplacian = graph_laplacian(instance_graph(X, p.neighbours, p.kernel_width));
  row_weights = ones(d, 1);
  objective = zeros(1, 0);
  for t = 1:p.max_iter
    XW = X * W;
    V = V - p.step * ((V - XW) + p.alpha * (V * B - Y) * B.' + p.beta * (laplacian * V));
    B = B - p.step * (V.' * (V * B - Y));
    W = W - p.step * (X.' * (XW - V) + p.gamma * row_weights .* W);
    row_squares = sum(W .* W, 2);
    row_weights = 0.5 ./ sqrt(row_squares + eps);
    fit = X * W - V;
    label_fit = Y - V * B;
    objective(end+1) = sum(fit(:) .^ 2) + p.alpha * sum(label_fit(:) .^ 2) ...
        + p.beta * sum(sum(V .* (laplacian * V))) + p.gamma * sum(sqrt(row_squares));
    if t > 1 && mlfs_objective_settled(objective(end-1), objective(end), p.tol)
      break
    end
  end
  scores = sum(W .* W, 2);
  ranking = mlfs_rank_scores(scores, 'MIFS');
  info = struct('scores', scores, 'latent_labels', k, 'iterations', numel(objective), ...
                'objective', objective, 'seconds', toc(started), 'params', p);
end

function [W, V, B] = initial_matrices(init, seed, n, d, L, k)
  if isstruct(init) && isfield(init, 'W0')
    mlfs_require(isfield(init, 'V0') && isfield(init, 'B0') && isequal(size(init.W0), [d, k]) && ...
      isequal(size(init.V0), [n, k]) && isequal(size(init.B0), [k, L]), 'mlfs:MIFS:badInit', ...
      'MIFS: init must hold W0 (%d×%d), V0 (%d×%d) and B0 (%d×%d)', d, k, n, k, k, L);
    W = double(init.W0);
    V = double(init.V0);
    B = double(init.B0);
  else
    [W, V, B] = mlfs_seeded_uniform(seed, [d, k], [n, k], [k, L]);
  end
end

function graph = instance_graph(X, neighbours, kernel_width)
%INSTANCE_GRAPH  The toolbox's constructW graph (k-NN, heat kernel) of the rows of X: LRDG's
%   unit-width graph (mlfs_knn_heat_graph) of X / kernel_width without its diagonal.
  mlfs_require(size(X, 1) > neighbours, 'mlfs:MIFS:badInput', ...
    'MIFS: the instance graph needs more training rows than neighbours (%d rows, %d neighbours)', ...
    size(X, 1), neighbours);
  graph = mlfs_knn_heat_graph(X / kernel_width, neighbours);   % exp(-|a/w - b/w|^2 / 2) = exp(-|a - b|^2 / (2 w^2))
  graph = graph - diag(diag(graph));
end

function laplacian = graph_laplacian(graph)
  n = size(graph, 1);
  laplacian = sparse(1:n, 1:n, full(sum(graph, 1)), n, n) - graph;
end
