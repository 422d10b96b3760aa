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
%   Both are checked before `load` from the variables' headers (mlfs_inflate_prefix inflates
%   only the first 256 bytes of a compressed variable), as is every variable's size once inflated
%   (`load` inflates every variable of the file, even those it does not return): a zlib bomb or a
%   lying header never reaches `load`. The checks are repeated on the loaded arrays.
  mlfs_require(exist(path, 'file') == 2, 'mlfs:fold:missing', 'fold file not found: %s', path);
  keys = {'X_train', 'Y_train', 'X_test', 'Y_test'};
  limit = byte_limit();
  check_headers(path, keys, limit);
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
  % MLFS_MAX_FOLD_BYTES if set (a positive integer), else 1 GiB (pipeline.data.matheader.byte_limit).
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
    '%s: arrays larger than the size limit (expected at most %d bytes as float64 (set MLFS_MAX_FOLD_BYTES to raise the limit); found %d bytes declared)', ...
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

function check_headers(path, keys, limit)
  % Walk the file's variables without loading them (for a compressed one, only the start of its
  % zlib stream is inflated, by mlfs_inflate_prefix), as pipeline.data.matheader does: refuse a
  % file that is not MAT v5 or whose elements run past its end, fold variables above the limit
  % together, and any other variable above it once inflated (`load` inflates every variable).
  info = dir(path);
  fid = fopen(path, 'r');
  header = fread(fid, 128, 'uint8=>char').';
  fclose(fid);
  mlfs_require(numel(header) == 128 && any(strcmp(header(127:128), {'IM', 'MI'})) && all(double(header(1:4)) ~= 0), ...
    'mlfs:fold:badFile', '%s: not a readable MATLAB .mat file (truncated or wrong format): no MAT v5 header', path);
  big_endian = strcmp(header(127:128), 'MI');
  fid = fopen(path, 'r', mlfs_ifelse(big_endian, 'ieee-be', 'ieee-le'));
  closer = onCleanup(@() fclose(fid));
  n_elements = 0;
  other = struct('name', {}, 'bytes', {}, 'dims', {});
  offset = 128;
  while offset < info.bytes
    fseek(fid, offset, 'bof');
    tag = fread(fid, 2, 'uint32');
    mlfs_require(numel(tag) == 2 && offset + 8 + tag(2) <= info.bytes, 'mlfs:fold:badFile', ...
      '%s: not a readable MATLAB .mat file (truncated or wrong format): element at byte %d runs past the end of the file', path, offset);
    if tag(1) == 15      % miCOMPRESSED: inflate the header only (256 bytes hold 32 dimensions
      start = fread(fid, min(tag(2), 4096), 'uint8=>uint8').';  % and a 63-character name)
      try
        head = mlfs_inflate_prefix(start, 256);
      catch failure
        error('mlfs:fold:badFile', '%s: not a readable MATLAB .mat file (truncated or wrong format): %s', path, failure.message);
      end
    else
      fseek(fid, offset, 'bof');
      head = fread(fid, min(8 + tag(2), 256), 'uint8=>uint8').';
    end
    var = matrix_header(path, head, big_endian);
    if any(strcmp(var.name, keys))
      n_elements(end + 1) = prod(var.dims);
      mlfs_require(var.bytes <= 8 * prod(var.dims) + 4096, 'mlfs:fold:badFile', ...
        '%s: not a readable MATLAB .mat file (truncated or wrong format): variable ''%s'' declares %d bytes for shape %s', ...
        path, var.name, var.bytes, mat2str(var.dims));
    else
      other(end + 1) = var;
    end
    offset = offset + 8 + tag(2);
  end
  check_size(path, n_elements, limit);
  for var = other
    mlfs_require(var.bytes <= limit, 'mlfs:fold:tooLarge', ...
      '%s: field ''%s'': variable larger than the size limit (expected at most %d bytes (set MLFS_MAX_FOLD_BYTES to raise the limit); found %d bytes)', ...
      path, var.name, limit, var.bytes);
  end
end

function var = matrix_header(path, head, big_endian)
  % Name, dimensions and inflated size of the miMATRIX element that starts ``head``.
  words = double(typecast(head(1:4 * floor(numel(head) / 4)), 'uint32'));
  if big_endian
    words = double(swapbytes(uint32(words)));
  end
  bad = @() error('mlfs:fold:badFile', '%s: not a readable MATLAB .mat file (truncated or wrong format): malformed variable header', path);
  % words: matrix tag (1-2), array flags tag and flags (3-6), dimensions tag (7-8) and values
  if numel(words) < 8 || words(1) ~= 14 || words(7) ~= 5 || words(8) > 128 || mod(words(8), 4)
    bad();
  end
  var.bytes = words(2);
  n_dims = words(8) / 4;
  dims_end = 8 + 2 * ceil(n_dims / 2);   % dimensions are padded to 8 bytes
  if numel(words) < dims_end + 2
    bad();
  end
  var.dims = typecast(uint32(words(9:8 + n_dims)), 'int32');
  name_word = words(dims_end + 1);
  if name_word > 65535                     % small data element: up to 4 name bytes inline
    name_bytes = head(4 * (dims_end + 1) + (1:floor(name_word / 65536)));
  else
    n_name = words(dims_end + 2);
    if 4 * (dims_end + 2) + n_name > numel(head)
      bad();
    end
    name_bytes = head(4 * (dims_end + 2) + (1:n_name));
  end
  var.name = char(name_bytes);
  var.dims = double(var.dims);
end
