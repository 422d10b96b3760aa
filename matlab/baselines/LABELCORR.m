function [ranking, info] = LABELCORR(X, Y, params, init) %#ok<INUSD>
%LABELCORR  Supervised sanity anchor: rank features by mean absolute label correlation.
%   [ranking, info] = LABELCORR(X, Y, params, init)
%   X: n×d training features; Y: n×L {0,1} labels; params: no parameters (a given one is refused); init: unused.
%   Score of feature j: mean over labels l of |Pearson correlation(x_j, y_l)|, with 0 where either
%   column is constant. ranking: 1×d, 1-based, by mlfs_rank_scores.
%   info.scores: the 1×d scores. Twin of pipeline.methods.anchors.rank_label_correlation.
  mlfs_require(isnumeric(X) && ismatrix(X) && all(isfinite(X(:))), 'mlfs:LABELCORR:badInput', ...
               'LABELCORR: X must be a finite numeric n×d matrix');
  mlfs_require((isnumeric(Y) || islogical(Y)) && size(Y, 1) == size(X, 1), 'mlfs:LABELCORR:badInput', ...
               'LABELCORR: Y must have one row per row of X (%d), found %d', size(X, 1), size(Y, 1));
  if nargin >= 3
    mlfs_method_params('LABELCORR', struct(), params);   % no parameters: refuse any
  end
  X = double(X);
  Y = double(Y);
  Xc = X - repmat(mean(X, 1), size(X, 1), 1);
  Yc = Y - repmat(mean(Y, 1), size(Y, 1), 1);
  x_norm = sqrt(sum(Xc .* Xc, 1));
  y_norm = sqrt(sum(Yc .* Yc, 1));
  denom = x_norm.' * y_norm;
  corr = zeros(size(denom));
  nonzero = denom > 0;
  products = Xc.' * Yc;
  corr(nonzero) = products(nonzero) ./ denom(nonzero);
  scores = zeros(1, size(X, 2));
  for j = 1:size(X, 2)
    scores(j) = mlfs_np_mean(abs(corr(j, :)));   % numpy's pairwise order over the labels
  end
  ranking = mlfs_rank_scores(scores, 'LABELCORR');
  info = struct('scores', scores);
end
