function fold = mlfs_load_fold(path)
%MLFS_LOAD_FOLD  Load and validate fold<i>.mat: X_train, Y_train, X_test, Y_test.
%   X_* must be finite real matrices with the same number of columns; Y_* {0,1} matrices (n×L) with
%   one row per instance and the same L. Returns doubles. Errors name the file and the field
%   (mlfs:fold:missing, :badFile, :missingField, :badField, :tooLarge). The same files are refused
%   as by pipeline.data.folds.load_fold:
%   - size: the four arrays may take at most MLFS_MAX_FOLD_BYTES bytes as doubles (environment
%     variable; default 2^30 = 1 GiB);
%   - magnitude: every |feature| must be at most sqrt(realmax / (8 d)), so that no squared distance
%     over the fold's d features can overflow.
%   What Octave cannot do before loading: look inside a compressed variable (the zlib streams
%   that `save -v7` and the exporter write) without inflating it, as it has no zlib call that
%   stops early. The file's elements are walked first (a truncated file, an element running past
%   the end, or an uncompressed variable above the limit is refused before `load`), but `load`
%   inflates each compressed variable into a buffer of its declared size (at most 4 GiB, the
%   format's 32-bit byte count) before the size check can run. The Python loader reads the
%   compressed headers and refuses such a file without inflating it.
  mlfs_require(exist(path, 'file') == 2, 'mlfs:fold:missing', 'fold file not found: %s', path);
  keys = {'X_train', 'Y_train', 'X_test', 'Y_test'};
  limit = byte_limit();
  check_size(path, declared_plain_elements(path, keys), limit);
  data = load(path, keys{:});
  for i = 1:numel(keys)
    mlfs_require(isfield(data, keys{i}), 'mlfs:fold:missingField', '%s: field ''%s'' is missing', path, keys{i});
    value = data.(keys{i});
    mlfs_require((isnumeric(value) || islogical(value)) && ismatrix(value) && isreal(value) && ~issparse(value), ...
      'mlfs:fold:badField', '%s: field ''%s'' must be a real dense 2-D numeric matrix', path, keys{i});
  end
  check_size(path, cellfun(@(key) numel(data.(key)), keys), limit);
  for i = 1:numel(keys)
    fold.(keys{i}) = double(data.(keys{i}));
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
  check_magnitude(path, fold, {'X_train', 'X_test'});
end

function limit = byte_limit()
  % MLFS_MAX_FOLD_BYTES if set (a positive integer), else 1 GiB (pipeline.data.folds.fold_byte_limit).
  text = getenv('MLFS_MAX_FOLD_BYTES');
  limit = 2^30;
  if ~isempty(text)
    limit = str2double(text);
    mlfs_require(isfinite(limit) && limit >= 1 && limit == fix(limit), 'mlfs:fold:badLimit', ...
      'MLFS_MAX_FOLD_BYTES must be a positive integer number of bytes (found ''%s'')', text);
  end
end

function check_size(path, n_elements, limit)
  total = 8 * sum(n_elements);
  mlfs_require(total <= limit, 'mlfs:fold:tooLarge', ...
    '%s: fold arrays larger than the fold size limit (expected at most %d bytes as float64 (set MLFS_MAX_FOLD_BYTES to raise the limit); found %d bytes declared)', ...
    path, limit, total);
end

function check_magnitude(path, fold, keys)
  % |x| <= sqrt(realmax / (8 d)): a sum of d squared differences stays below realmax / 2.
  d = size(fold.X_train, 2);
  limit = sqrt(realmax / (8 * d));
  for i = 1:numel(keys)
    values = fold.(keys{i});
    first = find(abs(values) > limit, 1);
    if ~isempty(first)
      [row, col] = ind2sub(size(values), first);
      error('mlfs:fold:badField', ...
        '%s: field ''%s'': feature value too large: a squared distance over the fold''s features could overflow (expected |x| <= %.6g = sqrt(realmax / (8 d)) for d = %d; found %.17g at row %d, column %d)', ...
        path, keys{i}, limit, d, values(first), row - 1, col - 1);
    end
  end
end

function n_elements = declared_plain_elements(path, keys)
  % Walk the file's top-level elements without loading them: refuse a file that is not MAT v5 or
  % whose elements run past its end, and return the element counts the uncompressed fold
  % variables declare (compressed ones cannot be read without inflating them).
  info = dir(path);
  fid = fopen(path, 'r');
  header = fread(fid, 128, 'uint8=>char').';
  fclose(fid);
  mlfs_require(numel(header) == 128 && any(strcmp(header(127:128), {'IM', 'MI'})) && all(double(header(1:4)) ~= 0), ...
    'mlfs:fold:badFile', '%s: not a readable MATLAB .mat file (truncated or wrong format): no MAT v5 header', path);
  fid = fopen(path, 'r', mlfs_ifelse(strcmp(header(127:128), 'IM'), 'ieee-le', 'ieee-be'));
  closer = onCleanup(@() fclose(fid));
  n_elements = 0;
  offset = 128;
  while offset < info.bytes
    fseek(fid, offset, 'bof');
    tag = fread(fid, 2, 'uint32');
    mlfs_require(numel(tag) == 2 && offset + 8 + tag(2) <= info.bytes, 'mlfs:fold:badFile', ...
      '%s: not a readable MATLAB .mat file (truncated or wrong format): element at byte %d runs past the end of the file', path, offset);
    if tag(1) == 14  % miMATRIX, uncompressed: flags, dimensions and name are readable in place
      [name, dims] = plain_matrix_header(fid);
      if any(strcmp(name, keys))
        n_elements(end + 1) = prod(dims);
      end
    end
    offset = offset + 8 + tag(2);
  end
end

function [name, dims] = plain_matrix_header(fid)
  fread(fid, 4, 'uint32');                      % array flags sub-element (tag and 8 bytes)
  dims_tag = fread(fid, 2, 'uint32');
  mlfs_require(numel(dims_tag) == 2 && dims_tag(1) == 5 && dims_tag(2) <= 128, 'mlfs:fold:badFile', ...
    'not a readable MATLAB .mat file (truncated or wrong format): malformed dimensions of a variable');
  dims = fread(fid, dims_tag(2) / 4, 'int32').';
  fread(fid, mod(-dims_tag(2), 8), 'uint8');    % padding to 8 bytes
  name_word = fread(fid, 1, 'uint32');
  if name_word > 65535                          % small data element: up to 4 name bytes inline
    name = fread(fid, 4, 'uint8=>char').';
    name = name(1:floor(name_word / 65536));
  else
    name = fread(fid, min(fread(fid, 1, 'uint32'), 4096), 'uint8=>char').';
  end
end
