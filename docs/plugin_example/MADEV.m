function [ranking, info] = MADEV(X_train, Y_train, params, init) %#ok<INUSD>
%MADEV  Mean absolute deviation of each feature, raised to a power: a MATLAB/Octave plug-in method.
%   defaults = MADEV() returns the default parameters; [ranking, info] = MADEV(X, Y, params, init)
%   ranks the features by decreasing score (docs/plugins.md).
  defaults = struct('power', mlfs_parameter(1, '>', 0));   % default 1, and what power may be
  if nargin == 0
    ranking = defaults;
    return
  end
  params = mlfs_method_params('MADEV', defaults, params);
  centred = X_train - repmat(mean(X_train, 1), size(X_train, 1), 1);
  scores = mean(abs(centred), 1) .^ params.power;
  ranking = mlfs_rank_scores(scores, 'MADEV');
  info = struct('scores', scores);
end
