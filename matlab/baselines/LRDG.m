function [ranking, info] = LRDG(X, Y, params, init)
%LRDG  Latent representation learning and dynamic graph constraints (Zhang, Huo, Tang, PR 151, 2024).
%   [ranking, info] = LRDG(X, Y, params, init)   (authors' code yunbao520/LRDG; docs/methods/LRDG.md)
%   defaults = LRDG()  returns the default parameter struct (no arguments; pipeline/methods/definitions/LRDG.json).
%   X: n×d training features in [0,1]; Y: n×m labels in {0,1}; needs n >= 6 and m >= 4.
%   params (missing fields take the defaults, LRDG()): alpha, beta, gamma (defaults: the demo's),
%     max_iter (fixed, no convergence test), divergence_limit, seed.
%   init (struct): S0 (d×m) and V0 (n×m), the random starts (docs/methods/README.md); without
%     them mlfs_seeded_uniform(seed) draws them, in this order (the demo's).
%   Graphs (mlfs_knn_heat_graph): A_X = graph(X, 5), (P_Y, A_Y) = graph(Y, 5), and every iteration
%   the dynamic label graph (P_V, A_V) = graph(V', 3). Each iteration, with H = I - 11'/n:
%     V = V .* (HXS + alpha Y + 2 beta A_X V + gamma A_Y V) ./ (HV + alpha V + 2 beta (VV')V + gamma P_Y V)
%     S = S .* (X'HV + gamma S A_V) ./ (X'HXS + gamma S P_V)
%     J = (|H(V - XS)|^2 + alpha |Y - V|^2 + beta |A_X - VV'|^2 + gamma (tr(S L_V S') + tr(V' L_Y V))) / (mn)
%   H is never formed (rank-one form, mu = mean(X)): HXS = XS - 1(mu S), X'HV = X'V - mu'(1'V),
%   X'HXS = (Xc'Xc) S with the centred Gram matrix cached (d <= n; else X'(HXS)), HV = V - mean(V);
%   (VV')V = V(V'V); X is used as a sparse matrix when under 30 % of it is non-zero (speed only).
%   The iteration is chaotic: Octave and NumPy agree over one or two iterations, not over 50
%   (rankings are engine-specific).
%   A non-finite iterate or one above divergence_limit throws mlfs:LRDG:diverged.
%   ranking: the squared row norm of S (the score the code sorts), ordered by mlfs_rank_scores.
%   info: scores (d×1), iterations, objective (J), S, V, seconds, params.
%   Twin of pipeline.methods.lrdg.
  defaults = mlfs_method_defaults('LRDG');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'LRDG');
  p = mlfs_method_params('LRDG', defaults, params);
  [n, d] = size(X);
  m = size(Y, 2);
  mlfs_require(n >= 6 && m >= 4, 'mlfs:LRDG:tooSmall', ...
    'LRDG needs at least 6 training rows and 4 labels (its k-NN graphs), found n = %d, m = %d', n, m);
  [S, V] = initial_matrices(init, p.seed, n, d, m);
  A_X = mlfs_knn_heat_graph(X, 5);
  A_Y = mlfs_knn_heat_graph(Y, 5);
  p_Y = full(sum(A_Y, 2));
  affinity_norm2 = full(sum(sum(A_X .* A_X)));
  mu = mean(X, 1);
  use_gram = d <= n;
  if use_gram
    gram_X = centred_gram(X, mu);
  end
  X = mlfs_sparse_if_mostly_zero(X);
  Xt = X.';                           % Xt.' * S is X * S (same sums), 3x faster in Octave for a sparse X
  HXS = full(Xt.' * S) - mu * S;
  graph_V = graph_products(A_X, A_Y, V);   % used by the objective and the next V-step
  objective = zeros(1, 0);
  for iteration = 1:p.max_iter
    A_V = full(mlfs_knn_heat_graph(V.', 3));
    p_V = sum(A_V, 2);
    numerator = HXS + p.alpha * Y + 2 * p.beta * graph_V.A_X_V + p.gamma * graph_V.A_Y_V;
    denominator = (V - mean(V, 1)) + p.alpha * V + 2 * p.beta * (V * graph_V.gram) + p.gamma * (p_Y .* V);
    V = V .* (numerator ./ denominator);
    XtHV = full(X.' * V) - mu.' * sum(V, 1);
    if use_gram
      gram_S = gram_X * S;
    else
      gram_S = full(X.' * HXS);
    end
    S = S .* ((XtHV + p.gamma * (S * A_V)) ./ (gram_S + p.gamma * (S .* p_V.')));
    mlfs_check_iterates('LRDG', iteration, p.divergence_limit, 'V', V, 'S', S);
    HXS = full(Xt.' * S) - mu * S;
    graph_V = graph_products(A_X, A_Y, V);
    objective(end+1) = objective_value(HXS, Y, V, S, graph_V, affinity_norm2, p_Y, A_V, p_V, p);
  end
  scores = sum(S .* S, 2);
  ranking = mlfs_rank_scores(scores, 'LRDG');
  info = struct('scores', scores, 'iterations', numel(objective), 'objective', objective, 'S', S, 'V', V, ...
                'seconds', toc(started), 'params', p);
end

function gram = centred_gram(X, mu)
%CENTRED_GRAM  Xc'Xc with Xc = X - mu: one operand twice, so a symmetric rank-k product.
  centred = X - mu;
  gram = centred.' * centred;
end

function graph_V = graph_products(A_X, A_Y, V)
%GRAPH_PRODUCTS  A_X V, A_Y V and V'V of the current V, computed once per V. The graphs are symmetric,
%   and Octave multiplies A.' * V (the same sums) three times faster than A * V for a sparse A.
  graph_V = struct('A_X_V', A_X.' * V, 'A_Y_V', A_Y.' * V, 'gram', V.' * V);
end

function value = objective_value(HXS, Y, V, S, graph_V, affinity_norm2, p_Y, A_V, p_V, p)
  [n, m] = size(Y);
  residual = (V - mean(V, 1)) - HXS;
  affinity = affinity_norm2 - 2 * sum(sum(V .* graph_V.A_X_V)) + sum(sum(graph_V.gram .* graph_V.gram));
  label_smooth = sum(sum((S .* p_V.') .* S)) - sum(sum((S * A_V) .* S));
  sample_smooth = sum(sum(p_Y .* V .* V)) - sum(sum(V .* graph_V.A_Y_V));
  value = (sum(sum(residual .^ 2)) + p.alpha * sum(sum((Y - V) .^ 2)) + p.beta * affinity ...
           + p.gamma * (label_smooth + sample_smooth)) / (m * n);
end

function [S, V] = initial_matrices(init, seed, n, d, m)
  if isstruct(init) && isfield(init, 'S0')
    mlfs_require(isfield(init, 'V0') && isequal(size(init.S0), [d, m]) && isequal(size(init.V0), [n, m]), ...
      'mlfs:LRDG:badInit', 'LRDG: init must hold S0 (%d×%d) and V0 (%d×%d)', d, m, n, m);
    S = double(init.S0);
    V = double(init.V0);
  else
    [S, V] = mlfs_seeded_uniform(seed, [d, m], [n, m]);
  end
end
