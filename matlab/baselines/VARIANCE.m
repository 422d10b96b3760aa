function [ranking, info] = VARIANCE(X, Y, params, init) %#ok<INUSD>
%VARIANCE  Unsupervised sanity anchor: rank features by decreasing training variance.
%   [ranking, info] = VARIANCE(X, Y, params, init)
%   X: n×d training features; Y, init: unused (uniform method signature); params: none (a given one is refused).
%   Score of feature j: population variance mean((x_j - mean(x_j)).^2) (ddof 0). ranking: 1×d,
%   1-based, by mlfs_rank_scores. info.scores: the 1×d scores.
%   Twin of pipeline.methods.anchors.rank_variance (same operations in the same order).
  mlfs_require(isnumeric(X) && ismatrix(X) && all(isfinite(X(:))), 'mlfs:VARIANCE:badInput', ...
               'VARIANCE: X must be a finite numeric n×d matrix');
  if nargin >= 3
    mlfs_method_params('VARIANCE', struct(), params);   % no parameters: refuse any
  end
  X = double(X);
  centred = X - repmat(mean(X, 1), size(X, 1), 1);
  scores = mean(centred .* centred, 1);
  ranking = mlfs_rank_scores(scores, 'VARIANCE');
  info = struct('scores', scores);
end
