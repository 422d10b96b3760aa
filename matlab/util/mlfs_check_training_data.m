function [X, Y] = mlfs_check_training_data(X, Y, method)
%MLFS_CHECK_TRAINING_DATA  Validate a training fold for a baseline; return double X (n×d), Y (n×L).
%   X finite and >= 0 (min-max scaled), Y in {0,1} with one row per row of X; errors carry the
%   identifier mlfs:<method>:badInput. Twin of pipeline.methods._common.check_training_data.
  id = sprintf('mlfs:%s:badInput', method);
  mlfs_require(isnumeric(X) && ismatrix(X) && all(isfinite(X(:))), id, ...
    '%s: X must be a finite numeric n×d matrix', method);
  mlfs_require((isnumeric(Y) || islogical(Y)) && ismatrix(Y) && size(Y, 1) == size(X, 1), id, ...
    '%s: Y must have one row per row of X (%d), found %d', method, size(X, 1), size(Y, 1));
  X = double(X);
  Y = double(Y);
  mlfs_require(isempty(X) || min(X(:)) >= 0, id, '%s: X must be non-negative (min-max scaled), minimum %g', ...
    method, min(X(:)));
  mlfs_require(all(Y(:) == 0 | Y(:) == 1), id, '%s: Y must hold labels in {0,1}', method);
end
