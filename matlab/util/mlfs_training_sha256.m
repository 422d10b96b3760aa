function digest = mlfs_training_sha256(X_train, Y_train)
%MLFS_TRAINING_SHA256  SHA-256 of a fold's training part: what a ranking is computed from.
%   digest = mlfs_training_sha256(X_train, Y_train) hashes, in this order, the shape of X_train
%   written '(n, d)', its values as float64 in row-major (C) order, the shape of Y_train, its values
%   as uint8 in row-major order. Twin of pipeline.runner.inner.training_sha256 (the same bytes on a
%   little-endian machine), so a ranking record written by either front door is checked by both.
  parts = {shape_text(X_train), typecast(reshape(double(X_train).', [], 1), 'uint8'), ...
           shape_text(Y_train), uint8(reshape(Y_train.', [], 1))};
  bytes = cellfun(@(part) reshape(uint8(part), 1, []), parts, 'UniformOutput', false);
  digest = mlfs_sha256_bytes([bytes{:}]);
end

function text = shape_text(values)
  text = sprintf('(%d, %d)', size(values, 1), size(values, 2));   % Python's repr of a 2-d shape
end
