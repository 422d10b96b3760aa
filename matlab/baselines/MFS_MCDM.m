function [ranking, info] = MFS_MCDM(X, Y, params, init) %#ok<INUSD>
%MFS_MCDM  Multi-label feature selection as multi-criteria decision making (Hashemi, Dowlatshahi,
%   Nezamabadi-pour, Knowledge-Based Systems 2020).
%   [ranking, info] = MFS_MCDM(X, Y, params, init)
%   defaults = MFS_MCDM()  returns the default parameter struct (pipeline/methods/definitions/MFS_MCDM.json).
%   X: n×d training features; Y: n×L labels in {0,1}; init: unused (deterministic).
%   params (missing fields take the defaults): lambda (ridge penalty, > 0).
%   D = (X'X + lambda I) \ X'Y (positive definite: Cholesky; the authors' code multiplies by pinv of
%   the same matrix); score: TOPSIS relative closeness of each row of D, the column maxima being the
%   ideal and the minima the anti-ideal, unweighted as the authors' Topsis.m computes it
%   (docs/methods/MFS_MCDM.md); ordered by mlfs_rank_scores.
%   info: scores (d×1), seconds, params.
%   Twin of pipeline.methods.mfs_mcdm.
  defaults = mlfs_method_defaults('MFS_MCDM');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'MFS_MCDM');
  p = mlfs_method_params('MFS_MCDM', defaults, params);
  gram = X.' * X;
  d = size(X, 2);
  gram(1:d+1:end) = gram(1:d+1:end) + p.lambda;
  D = gram \ (X.' * Y);
  scores = topsis_closeness(D);
  ranking = mlfs_rank_scores(scores, 'MFS_MCDM');
  info = struct('scores', scores, 'seconds', toc(started), 'params', p);
end

function closeness = topsis_closeness(D)
%TOPSIS_CLOSENESS  s- / (s+ + s-) per row of D, s+ / s- the distances to the column maxima / minima;
%   0 where s+ + s- = 0 (only when all rows are equal). Twin of mfs_mcdm.topsis_closeness.
  to_ideal = sqrt(sum((D - max(D, [], 1)) .^ 2, 2));
  to_anti_ideal = sqrt(sum((D - min(D, [], 1)) .^ 2, 2));
  spread = to_ideal + to_anti_ideal;
  closeness = zeros(size(spread));
  kept = spread > 0;
  closeness(kept) = to_anti_ideal(kept) ./ spread(kept);
end
