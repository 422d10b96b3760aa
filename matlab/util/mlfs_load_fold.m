function fold = mlfs_load_fold(path, part)
%MLFS_LOAD_FOLD  Load and validate fold<i>.mat: X_train, Y_train, X_test, Y_test.
%   n = mlfs_load_fold(path, 'training_rows') reads only the headers (checked as below) and returns
%   the number of training instances, so that the front doors can check every fold before any task.
%   X_* must be finite real matrices with the same number of columns; Y_* {0,1} matrices (n×L) with
%   one row per instance and the same L; each part at least one row, X and Y at least one column.
%   Returns doubles. Errors name the file, the field, what was expected and what was found, in the
%   words of pipeline.data.folds.load_fold (mlfs:fold:missing, :badFile, :missingField,
%   :badField, :tooLarge, :noMemory; :noGzip without the gzip program; mlfs:file:notRegular for
%   a FIFO or a device). The same files are
%   refused as by that loader:
%   - size: the four arrays may take at most MLFS_MAX_FOLD_BYTES bytes as doubles (environment
%     variable; default 2^30 = 1 GiB), counting for an array stored in a narrower type than its
%     class (MATLAB stores a double array of small integers as uint8) its inflated data and the
%     converted copy `load` makes; and all of it must fit in the memory the process can still get
%     (address-space limit, available memory plus free swap);
%   - a fold variable stored twice, or any variable whose name holds a NUL byte (`load` would
%     take the last copy, or cut the name);
%   - magnitude: every |feature| must be at most sqrt(realmax / (8 d)), so that no squared distance
%     over the fold's d features can overflow.
%   All but the magnitude are checked before `load` from the variables' headers, as is every
%   variable's size once inflated (`load` inflates every variable of the file, even those it does
%   not return): a zlib bomb or a lying header never reaches `load`, which allocates whatever a
%   compressed variable's header declares (a 744-byte file declaring 3.4 GB took Octave 7 to
%   10 GB), so the size of the compressed data alone bounds nothing. A compressed variable's header
%   is inflated by the system's zlib through the gzip program (which must be on the PATH, as for
%   Octave's gunzip), from at most its first 4096 compressed bytes: they inflate to at most about
%   4 MB (deflate expands at most 1032-fold), whatever the variable declares.
  mlfs_require(exist(path, 'file') == 2, 'mlfs:fold:missing', '%s: fold file not found', path);
  mlfs_regular_file(path, 'fold file');  % a FIFO or a device: refused before reading blocks on it
  keys = {'X_train', 'Y_train', 'X_test', 'Y_test'};
  limit = byte_limit();
  fold_vars = check_headers(path, keys, limit);
  if nargin >= 2
    mlfs_require(strcmp(part, 'training_rows'), 'mlfs:fold:badArgument', 'mlfs_load_fold: unknown part ''%s''', part);
    x_train = fold_vars(strcmp({fold_vars.name}, 'X_train'));
    if numel(x_train) == 1 && numel(x_train.dims) == 2 && ~isempty(x_train.class_name)
      fold = x_train.dims(1);
      return
    end   % no real numeric 2-D X_train in the headers: loading says exactly what is wrong
  end
  try
    data = load(path, keys{:});
  catch failure
    fail('mlfs:fold:badFile', path, '', 'not a readable MATLAB .mat file (truncated or wrong format)', '', failure.message);
  end
  for i = 1:numel(keys)
    if ~isfield(data, keys{i})
      fail('mlfs:fold:missingField', path, keys{i}, 'missing variable', sprintf('keys %s', strjoin(keys, ', ')), ...
           sprintf('keys %s', strjoin(sort(fieldnames(data)).', ', ')));
    end
    value = data.(keys{i});
    if ~((isnumeric(value) || islogical(value)) && isreal(value) && ~issparse(value))
      fail('mlfs:fold:badField', path, keys{i}, 'not a real numeric array', 'numeric (bool, int, uint or float)', class(value));
    end
    if ~ismatrix(value)
      fail('mlfs:fold:badField', path, keys{i}, 'wrong number of dimensions', '2-D (rows = instances)', ...
           sprintf('%d-D %s', ndims(value), mat2str(size(value))));
    end
    fold.(keys{i}) = double(value);
  end
  check_shapes(path, fold);
  d = size(fold.X_train, 2);
  for key = {'X_train', 'X_test'}
    check_finite(path, key{1}, fold.(key{1}));
    check_magnitude(path, key{1}, fold.(key{1}), sqrt(realmax / (8 * d)));
  end
  for key = {'Y_train', 'Y_test'}
    check_binary(path, key{1}, fold.(key{1}));
  end
  if nargin >= 2
    fold = size(fold.X_train, 1);
  end
end

function fail(identifier, path, field, message, expected, found)
  % error(identifier, ...) rendered as pipeline.errors.PipelineError renders it.
  head = path;
  if ~isempty(field)
    head = sprintf('%s, field ''%s''', path, field);
  end
  details = {};
  if ~isempty(expected)
    details{end + 1} = ['expected ' expected];
  end
  if ~isempty(found)
    details{end + 1} = ['found ' found];
  end
  text = [head ': ' message];
  if ~isempty(details)
    text = [text ' (' strjoin(details, '; ') ')'];
  end
  error(identifier, '%s', strjoin(strsplit(strtrim(text)), ' '));
end

function check_shapes(path, fold)
  % The order and words of pipeline.data.folds._check_shapes.
  for part = {'train', 'test'}
    x = fold.(['X_' part{1}]);
    y = fold.(['Y_' part{1}]);
    if size(x, 1) ~= size(y, 1)
      fail('mlfs:fold:badField', path, ['Y_' part{1}], 'row count differs from the features', ...
           sprintf('%d rows (as X_%s)', size(x, 1), part{1}), sprintf('%d rows', size(y, 1)));
    end
    if size(x, 1) == 0
      fail('mlfs:fold:badField', path, ['X_' part{1}], 'no instances', '>= 1 row', mat2str(size(x)));
    end
  end
  for prefix = {'X', 'features'; 'Y', 'labels'}'
    train = fold.([prefix{1} '_train']);
    test = fold.([prefix{1} '_test']);
    if size(train, 2) ~= size(test, 2)
      fail('mlfs:fold:badField', path, [prefix{1} '_test'], sprintf('number of %s differs between train and test', prefix{2}), ...
           sprintf('%d columns', size(train, 2)), sprintf('%d columns', size(test, 2)));
    end
    if size(train, 2) == 0
      fail('mlfs:fold:badField', path, [prefix{1} '_train'], sprintf('no %s', prefix{2}), '>= 1 column', mat2str(size(train)));
    end
  end
end

function check_finite(path, key, values)
  bad = ~isfinite(values);
  first = find(bad, 1);
  if ~isempty(first)
    [row, col] = ind2sub(size(values), first);
    fail('mlfs:fold:badField', path, key, 'non-finite feature values', 'finite values', ...
         sprintf('%d NaN/Inf, first at row %d, column %d', nnz(bad), row - 1, col - 1));
  end
end

function check_magnitude(path, key, values, limit)
  % |x| <= sqrt(realmax / (8 d)): a sum of d squared differences stays below realmax / 2.
  big = values > limit | values < -limit;
  first = find(big, 1);
  if ~isempty(first)
    [row, col] = ind2sub(size(values), first);
    fail('mlfs:fold:badField', path, key, ...
         'feature value too large: a squared distance over the fold''s features could overflow', ...
         sprintf('|x| <= %.6g = sqrt(realmax / (8 d)) for d = %d', limit, size(values, 2)), ...
         sprintf('%.17g at row %d, column %d (%d such values)', values(first), row - 1, col - 1, nnz(big)));
  end
end

function check_binary(path, key, values)
  bad = values ~= 0 & values ~= 1;
  if any(bad(:))
    shown = unique(values(bad));
    fail('mlfs:fold:badField', path, key, 'labels must be 0 or 1', 'values in {0, 1}', ...
         sprintf('%d other values, e.g. %s', nnz(bad), mat2str(shown(1:min(5, end)).')));
  end
end

function limit = byte_limit()
  % The environment variable if set (a positive integer), else the default: both from the package's
  % definitions.json (fold_files), as pipeline.data.matheader.byte_limit reads them.
  declared = mlfs_definitions().fold_files;
  text = getenv(declared.variable);
  limit = declared.max_bytes;
  if ~isempty(text)
    limit = str2double(text);
    mlfs_require(isfinite(limit) && limit >= 1 && limit == fix(limit), 'mlfs:fold:badLimit', ...
      '%s must be a positive integer number of bytes (found ''%s'')', declared.variable, text);
  end
end

function check_sizes(path, fold_vars, other, limit)
  % pipeline.data.matheader._check_sizes: the fold arrays as float64 (with the inflated data and
  % converted copy of an array stored narrower than its class), every other variable once
  % inflated, then all of it against the memory this process can still get.
  if isempty(fold_vars)
    return
  end
  loading = arrayfun(@loading_bytes, fold_vars);
  total = sum(loading);
  [~, largest] = max(loading);
  shapes = strjoin(arrayfun(@describe, fold_vars, 'UniformOutput', false), ', ');
  if total > limit
    fail('mlfs:fold:tooLarge', path, fold_vars(largest).name, 'arrays larger than the size limit', ...
         sprintf('at most %d bytes as float64 (set MLFS_MAX_FOLD_BYTES to raise the limit)', limit), ...
         sprintf('%d bytes declared (%s)', total, shapes));
  end
  for var = other
    if var.bytes > limit
      fail('mlfs:fold:tooLarge', path, var.name, 'variable larger than the size limit', ...
           sprintf('at most %d bytes (set MLFS_MAX_FOLD_BYTES to raise the limit)', limit), sprintf('%d bytes', var.bytes));
    end
  end
  % `load` converts every array to double, and the checks hold a double and a logical temporary
  needed = total + 9 * prod(fold_vars(largest).dims) + sum([other.bytes]);
  [available, what] = available_memory();
  if needed > available
    fail('mlfs:fold:noMemory', path, fold_vars(largest).name, 'not enough memory to load the fold', ...
         sprintf('at most %d bytes (%s)', available, what), sprintf('%d bytes needed to load it (%s)', needed, shapes));
  end
end

function bytes = loading_bytes(var)
  % pipeline.data.matheader.MatVariable.loading_bytes
  n = prod(var.dims);
  bytes = 8 * n;
  if var.narrower
    bytes = max(bytes, var.bytes + var.item * n);
  end
end

function text = describe(var)
  text = sprintf('%s %s', var.name, strjoin(arrayfun(@num2str, var.dims, 'UniformOutput', false), 'x'));
  if var.narrower
    text = sprintf('%s %s stored as %s', text, var.class_name, var.storage_name);
  end
end

function [available, what] = available_memory()
  % pipeline.limits.available_memory: the room left under the address-space limit, and the
  % machine's available memory plus free swap (Linux /proc; no bound elsewhere).
  available = Inf;
  what = '';
  limits = read_text('/proc/self/limits');
  statm = sscanf(read_text('/proc/self/statm'), '%f', 1);
  soft = regexp(limits, 'Max address space\s+(\d+)', 'tokens', 'once');
  if ~isempty(soft) && ~isempty(statm)
    soft = str2double(soft{1});
    available = max(0, soft - statm * 4096);
    what = sprintf('left under the address-space limit of %d bytes', soft);
  end
  meminfo = read_text('/proc/meminfo');
  free = regexp(meminfo, '(?:MemAvailable|SwapFree):\s+(\d+)', 'tokens');
  if numel(free) == 2
    machine = 1024 * (str2double(free{1}{1}) + str2double(free{2}{1}));
    if machine < available
      available = machine;
      what = 'memory available plus free swap';
    end
  end
end

function text = read_text(name)
  text = '';
  fid = fopen(name, 'r');
  if fid >= 0
    text = fread(fid, Inf, 'char=>char').';
    fclose(fid);
  end
end

function fold_vars = check_headers(path, keys, limit)
  % Walk the file's variables without loading them (for a compressed one, only the start of its
  % zlib stream is inflated, by inflated_head), as pipeline.data.matheader does: refuse a
  % file that is not MAT v5 or whose elements run past its end, a name with a NUL byte, a fold
  % variable stored twice, and sizes beyond the limits (check_sizes).
  info = dir(path);
  fid = fopen(path, 'r');
  header = fread(fid, 128, 'uint8=>char').';
  fclose(fid);
  bad_file = @(found) fail('mlfs:fold:badFile', path, '', 'not a readable MATLAB .mat file (truncated or wrong format)', '', found);
  if ~(numel(header) == 128 && any(strcmp(header(127:128), {'IM', 'MI'})) && all(double(header(1:4)) ~= 0))
    bad_file('no MAT v5 header (a MAT v4 file or not a MAT file)');
  end
  big_endian = strcmp(header(127:128), 'MI');
  fid = fopen(path, 'r', mlfs_ifelse(big_endian, 'ieee-be', 'ieee-le'));
  closer = onCleanup(@() fclose(fid));
  fold_vars = struct('name', {}, 'bytes', {}, 'dims', {}, 'narrower', {}, 'item', {}, 'class_name', {}, 'storage_name', {});
  other = fold_vars;
  offset = 128;
  while offset < info.bytes
    fseek(fid, offset, 'bof');
    tag = fread(fid, 2, 'uint32');
    if ~(numel(tag) == 2 && offset + 8 + tag(2) <= info.bytes)
      bad_file(sprintf('element at byte %d runs past the end of the file', offset));
    end
    if tag(1) == 15      % miCOMPRESSED
      head = inflated_head(path, fid, tag(2), bad_file);
    else
      fseek(fid, offset, 'bof');
      head = fread(fid, min(8 + tag(2), 256), 'uint8=>uint8').';
    end
    var = matrix_header(head, big_endian, bad_file);
    if any(var.name == 0)
      fail('mlfs:fold:badFile', path, strrep(var.name, char(0), '\0'), 'variable name holds a NUL byte', ...
           'names without NUL (load would cut the name there)', '');
    end
    if any(strcmp(var.name, keys))
      if any(strcmp(var.name, {fold_vars.name}))
        fail('mlfs:fold:badFile', path, var.name, 'variable stored twice', '', '');
      end
      if var.bytes > 8 * prod(var.dims) + 4096
        bad_file(sprintf('variable ''%s'' declares %d bytes for shape %s', var.name, var.bytes, mat2str(var.dims)));
      end
      fold_vars(end + 1) = var;
    else
      other(end + 1) = var;
    end
    offset = offset + 8 + tag(2);
  end
  check_sizes(path, fold_vars, other, limit);
end

function head = inflated_head(path, fid, n_compressed, bad_file)
  % The first 256 bytes (a matrix header: 32 dimensions and a 63-character name fit) a compressed
  % element at the position of fid inflates to. MATLAB and Octave have no zlib call on bytes in
  % memory, so the gzip program inflates at most the first 4096 compressed bytes: a zlib stream
  % after its 2-byte header is raw deflate data, as is a gzip member after its 10-byte header
  % (RFC 1950, 1952). gzip then reports the missing gzip trailer, after writing what it inflated.
  stream = double(fread(fid, min(n_compressed, 4096), 'uint8=>uint8').');
  if numel(stream) < 2 || bitand(stream(1), 15) ~= 8 || mod(stream(1) * 256 + stream(2), 31) ~= 0 || bitand(stream(2), 32)
    bad_file('corrupt compressed variable (no zlib header)');
  end
  base = tempname();
  files = strcat(base, {'.gz', '.out', '.err'});
  cleanup = onCleanup(@() cellfun(@delete_if_present, files));
  packed = fopen(files{1}, 'w');
  fwrite(packed, [31 139 8 0 0 0 0 0 0 255 stream(3:end)], 'uint8');  % gzip header: deflate, no name or time
  fclose(packed);
  status = system(sprintf('gzip -dc < "%s" > "%s" 2> "%s"', files{:}));
  head = mlfs_read_bytes(files{2}).';
  head = head(1:min(256, end));
  gzip_said = strtrim(char(mlfs_read_bytes(files{3}).'));
  if status > 2  % gzip exits with 0, 1 (error) or 2 (warning); anything else: it did not run
    error('mlfs:fold:noGzip', ['%s: reading a compressed MAT file needs the gzip program on the PATH ' ...
          '(%s); install it (on Windows, Git for Windows ships one: put its usr\\bin folder on the PATH)'], path, gzip_said);
  end
  if isempty(head)
    bad_file(sprintf('corrupt compressed variable (%s)', gzip_said));
  end
end

function delete_if_present(name)
  if exist(name, 'file')
    delete(name);
  end
end

function var = matrix_header(head, big_endian, bad_file)
  % Name, dimensions, class, storage type and inflated size of the miMATRIX element that starts
  % ``head``.
  words = double(typecast(head(1:4 * floor(numel(head) / 4)), 'uint32'));
  if big_endian
    words = double(swapbytes(uint32(words)));
  end
  bad = @() bad_file('malformed variable header');
  % words: matrix tag (1-2), array flags tag and flags (3-6), dimensions tag (7-8) and values
  if numel(words) < 8 || words(1) ~= 14 || words(7) ~= 5 || words(8) > 128 || mod(words(8), 4)
    bad();
  end
  var.bytes = words(2);
  class_id = mod(words(5), 256);
  n_dims = words(8) / 4;
  dims_end = 8 + 2 * ceil(n_dims / 2);   % dimensions are padded to 8 bytes
  if numel(words) < dims_end + 2
    bad();
  end
  var.dims = double(typecast(uint32(words(9:8 + n_dims)), 'int32'));
  name_word = words(dims_end + 1);
  if name_word > 65535                     % small data element: up to 4 name bytes inline
    name_bytes = head(4 * (dims_end + 1) + (1:floor(name_word / 65536)));
    next = dims_end + 3;
  else
    n_name = words(dims_end + 2);
    if 4 * (dims_end + 2) + n_name > numel(head)
      bad();
    end
    name_bytes = head(4 * (dims_end + 2) + (1:n_name));
    next = dims_end + 3 + 2 * ceil(n_name / 8);
  end
  var.name = char(name_bytes);
  % numeric classes 6..15 (double ... uint64), their storage types and bytes per element
  class_names = {'double', 'single', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'};
  class_storage = [9 7 1 2 3 4 5 6 12 13];
  class_item = [8 4 1 1 2 2 4 4 8 8];
  storage_names = containers.Map(num2cell(class_storage), class_names);
  var.narrower = false;
  var.item = 8;
  var.class_name = '';
  var.storage_name = '';
  if class_id >= 6 && class_id <= 15 && numel(words) >= next
    storage = words(next);
    if storage > 65535
      storage = mod(storage, 65536);
    end
    var.item = class_item(class_id - 5);
    var.class_name = class_names{class_id - 5};
    var.narrower = storage ~= class_storage(class_id - 5) && isKey(storage_names, storage);
    if var.narrower
      var.storage_name = storage_names(storage);
    end
  end
end
