function fold = mlfs_load_fold(path)
%MLFS_LOAD_FOLD  Load and validate fold<i>.mat: X_train, Y_train, X_test, Y_test.
%   X_* must be finite real matrices with the same number of columns; Y_* {0,1} matrices (n×L) with
%   one row per instance and the same L. Returns doubles. Errors name the file and the field
%   (mlfs:fold:missing, :missingField, :badField).
  mlfs_require(exist(path, 'file') == 2, 'mlfs:fold:missing', 'fold file not found: %s', path);
  data = load(path);
  keys = {'X_train', 'Y_train', 'X_test', 'Y_test'};
  for i = 1:numel(keys)
    mlfs_require(isfield(data, keys{i}), 'mlfs:fold:missingField', '%s: field ''%s'' is missing', path, keys{i});
    value = data.(keys{i});
    mlfs_require((isnumeric(value) || islogical(value)) && ismatrix(value) && isreal(value) && ~issparse(value), ...
      'mlfs:fold:badField', '%s: field ''%s'' must be a real dense 2-D numeric matrix', path, keys{i});
    fold.(keys{i}) = double(value);
    mlfs_require(all(isfinite(fold.(keys{i})(:))), 'mlfs:fold:badField', ...
      '%s: field ''%s'' holds NaN or Inf', path, keys{i});
  end
  for key = {'Y_train', 'Y_test'}
    values = fold.(key{1});
    mlfs_require(all(values(:) == 0 | values(:) == 1), 'mlfs:fold:badField', ...
      '%s: field ''%s'' must hold only 0 and 1', path, key{1});
  end
  mlfs_require(size(fold.X_test, 2) == size(fold.X_train, 2), 'mlfs:fold:badField', ...
    '%s: field ''X_test'' has %d columns, X_train has %d', path, size(fold.X_test, 2), size(fold.X_train, 2));
  mlfs_require(size(fold.Y_train, 1) == size(fold.X_train, 1), 'mlfs:fold:badField', ...
    '%s: field ''Y_train'' has %d rows, X_train has %d', path, size(fold.Y_train, 1), size(fold.X_train, 1));
  mlfs_require(size(fold.Y_test, 1) == size(fold.X_test, 1), 'mlfs:fold:badField', ...
    '%s: field ''Y_test'' has %d rows, X_test has %d', path, size(fold.Y_test, 1), size(fold.X_test, 1));
  mlfs_require(size(fold.Y_test, 2) == size(fold.Y_train, 2), 'mlfs:fold:badField', ...
    '%s: field ''Y_test'' has %d labels, Y_train has %d', path, size(fold.Y_test, 2), size(fold.Y_train, 2));
end
