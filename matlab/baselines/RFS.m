function [ranking, info] = RFS(X, Y, params, init) %#ok<INUSD>
%RFS  Efficient and robust feature selection via joint l2,1-norm minimisation (Nie, Huang, Cai,
%   Ding, NIPS 2010).
%   [ranking, info] = RFS(X, Y, params, init)
%   defaults = RFS()  returns the default parameter struct (no arguments; pipeline/methods/definitions/RFS.json).
%   X: n×d training features; Y: n×L labels in {0,1}; init: unused (deterministic).
%   params (missing fields take the defaults, RFS()): alpha (> 0), max_iter (updates), tol.
%   With X1 = [1, X] (the bias absorbed), minimises |X1 W - Y|_2,1 + |alpha W|_2,1 by reweighting,
%   in the form the MLC_toolbox code picks by the shape of X1 (docs/methods/RFS.md):
%     d+1 > n, 'augmented': A = [X1, alpha I]; U = D A' (A D A')^-1 Y; D = 2 sqrt(|u_i|^2 + eps);
%       W = the first d+1 rows of U; objective sum_i |u_i|.
%     otherwise, 'reweighted': W = (X1' Hn X1 + alpha^2 Hm) \ X1' Hn Y; Hn = 0.5 ./ sqrt(|r_i|^2 + eps)
%       for the residual rows r_i, Hm = 0.5 ./ sqrt(|alpha w_j|^2 + eps); objective
%       sum_i |r_i| + sum_j |alpha w_j|.
%   At most max_iter updates, stopping after the first whose objective moved by less than tol
%   (mlfs_objective_settled). ranking: the squared row norm of W without the bias row (the score
%   the toolbox sorts), ordered by mlfs_rank_scores.
%   info: scores (d×1), form, iterations, objective, seconds, params. Twin of pipeline.methods.rfs.
  defaults = mlfs_method_defaults('RFS');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'RFS');
  p = mlfs_method_params('RFS', defaults, params);
  X1 = [ones(size(X, 1), 1), X];
  if size(X1, 2) > size(X1, 1)
    form = 'augmented';
    [W, objective] = augmented(X1, Y, p.alpha, p.max_iter, p.tol);
  else
    form = 'reweighted';
    [W, objective] = reweighted(X1, Y, p.alpha, p.max_iter, p.tol);
  end
  features = W(2:end, :);
  scores = sum(features .* features, 2);
  ranking = mlfs_rank_scores(scores, 'RFS');
  info = struct('scores', scores, 'form', form, 'iterations', numel(objective), 'objective', objective, ...
                'seconds', toc(started), 'params', p);
end

function [W, objective] = augmented(X1, Y, alpha, max_iter, tol)
  n = size(X1, 1);
  A = [X1, alpha * eye(n)];
  weights = ones(size(A, 2), 1);
  objective = zeros(1, 0);
  for t = 1:max_iter
    weighted_At = weights .* A.';
    U = weighted_At * ((A * weighted_At) \ Y);
    row_squares = sum(U .* U, 2);
    weights = 2 * sqrt(row_squares + eps);
    objective(end+1) = sum(sqrt(row_squares));
    if t > 1 && mlfs_objective_settled(objective(end-1), objective(end), tol)
      break
    end
  end
  W = U(1:size(X1, 2), :);
end

function [W, objective] = reweighted(X1, Y, alpha, max_iter, tol)
  residual_weights = ones(size(X1, 1), 1);
  row_weights = ones(size(X1, 2), 1);
  objective = zeros(1, 0);
  for t = 1:max_iter
    weighted_X = residual_weights .* X1;
    system = weighted_X.' * X1 + diag(alpha ^ 2 * row_weights);
    W = system \ (weighted_X.' * Y);
    residual = X1 * W - Y;
    residual_squares = sum(residual .* residual, 2);
    row_squares = sum((alpha * W) .^ 2, 2);
    residual_weights = 0.5 ./ sqrt(residual_squares + eps);
    row_weights = 0.5 ./ sqrt(row_squares + eps);
    objective(end+1) = sum(sqrt(residual_squares)) + sum(sqrt(row_squares));
    if t > 1 && mlfs_objective_settled(objective(end-1), objective(end), tol)
      break
    end
  end
end
