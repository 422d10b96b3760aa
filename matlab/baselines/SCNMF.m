function [ranking, info] = SCNMF(X, Y, params, init) %#ok<INUSD>
%SCNMF  Similarity constraints with non-negative matrix factorisation (He, Lin, Lin, Wang, KBS 2024).
%   [ranking, info] = SCNMF(X, Y, params, init)
%   defaults = SCNMF()  returns the default parameter struct (no arguments; pipeline/methods/definitions/SCNMF.json).
%   X: n×d training features in [0,1]; Y: n×L labels in {0,1}; init: unused (W starts at 0.5).
%   params (missing fields take the defaults, SCNMF()): lambda1 (|H - WW'|^2), lambda2 (tr(LL W'W)),
%     max_iter, tol (absolute).
%   Multiplicative updates of the authors' SCNMF.m (BIGOatMNNU/SCNMF; docs/methods/SCNMF.md),
%   eps = 1e-20:
%     R = 1 ./ max(|w_j|, eps);  W = W .* (X'Y + 2 lambda1 H W) ./
%         max(X'XW + R.*W/2 + 2 lambda1 W(W'W) + lambda2 W LL, eps)
%     obj = |XW - Y|^2 + sum_j |w_j| + lambda1 |H - WW'|^2 + lambda2 tr(LL W'W)
%   until t >= 2 and |obj_t - obj_{t-1}| <= tol, or t = max_iter. H: Gaussian kernel of the feature
%   columns with sigma = mean pairwise distance (mlfs_feature_kernel); LL: label cosine distance,
%   NaN -> 0. H*W and X'X*W are shared by the objective (|XW-Y|^2 = <W,X'XW> - 2<W,X'Y> + |Y|^2,
%   |H-WW'|^2 = |H|^2 - 2<W,HW> + |W'W|^2) and the next update.
%   ranking: the row sum of W (the score the code sorts), ordered by mlfs_rank_scores.
%   info: scores (d×1), iterations, objective (trace), sigma, seconds, params.
%   Twin of pipeline.methods.scnmf.
  defaults = mlfs_method_defaults('SCNMF');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'SCNMF');
  p = mlfs_method_params('SCNMF', defaults, params);
  tiny = 1e-20;
  XtX = mlfs_gram_matrix(mlfs_gram_operand(X));
  XtY = X.' * Y;
  Y_norm2 = sum(sum(Y .* Y));
  [H, sigma] = mlfs_feature_kernel(XtX);
  H_norm2 = sum(sum(H .* H));
  LL = mlfs_label_cosine_distance(Y);
  W = 0.5 * ones(size(X, 2), size(Y, 2));
  HW = H * W;
  XtXW = XtX * W;
  objective = zeros(1, 0);
  for t = 1:p.max_iter
    R = 1 ./ max(sqrt(sum(W .* W, 2)), tiny);
    numerator = XtY + 2 * p.lambda1 * HW;
    denominator = XtXW + 0.5 * (R .* W) + 2 * p.lambda1 * (W * (W.' * W)) + p.lambda2 * (W * LL);
    W = W .* numerator ./ max(denominator, tiny);
    HW = H * W;
    XtXW = XtX * W;
    WtW = W.' * W;
    fit = sum(sum(W .* XtXW)) - 2 * sum(sum(W .* XtY)) + Y_norm2;
    factor = H_norm2 - 2 * sum(sum(W .* HW)) + sum(sum(WtW .* WtW));
    objective(end+1) = fit + sum(sqrt(sum(W .* W, 2))) + p.lambda1 * factor + p.lambda2 * sum(sum(LL .* WtW));
    if t >= 2 && abs(objective(end) - objective(end-1)) <= p.tol
      break
    end
  end
  scores = sum(W, 2);
  ranking = mlfs_rank_scores(scores, 'SCNMF');
  info = struct('scores', scores, 'iterations', numel(objective), 'objective', objective, 'sigma', sigma, ...
                'seconds', toc(started), 'params', p);
end
