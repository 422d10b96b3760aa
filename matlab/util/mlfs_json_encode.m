function text = mlfs_json_encode(value)
%MLFS_JSON_ENCODE  Strict JSON text of a value, laid out like Python's json.dumps(indent=2, sort_keys=True).
%   Mapping as in jsonencode: scalar struct -> object (keys sorted), cell -> array, char row ->
%   string, logical scalar -> true/false, numeric scalar -> number, numeric vector -> array,
%   matrix -> array of rows, [] -> []. Unlike jsonencode (15 significant digits in some versions)
%   doubles keep full precision: the shortest of 15..17 significant digits that reads back to the
%   same double. Integer classes (int32, int64, ...) are written as integers and doubles always as
%   floats (1.0, not 1), as Python writes them; NaN and Inf become null. Wrap a vector that must
%   stay a list even with one element in a cell (num2cell).
  text = [encode(value, '')];
end

function text = encode(value, indent)
  if isstruct(value)
    text = encode_struct(value, indent);
  elseif iscell(value)
    text = encode_list(value(:).', indent);
  elseif ischar(value)
    text = encode_string(value);
  elseif islogical(value) && isscalar(value)
    text = mlfs_ifelse(value, 'true', 'false');
  elseif (isnumeric(value) || islogical(value)) && isscalar(value)
    text = encode_number(value);
  elseif isnumeric(value) || islogical(value)
    if isvector(value) || isempty(value)
      text = encode_list(num2cell(value(:).'), indent);
    else
      text = encode_list(num2cell(value, 2).', indent);
    end
  else
    error('mlfs:json:unsupported', 'cannot encode a value of class %s as JSON', class(value));
  end
end

function text = encode_struct(value, indent)
  if numel(value) ~= 1
    text = encode_list(num2cell(value(:).'), indent);
    return
  end
  keys = sort(fieldnames(value));
  if isempty(keys)
    text = '{}';
    return
  end
  inner = [indent '  '];
  parts = cell(1, numel(keys));
  for i = 1:numel(keys)
    parts{i} = [inner encode_string(keys{i}) ': ' encode(value.(keys{i}), inner)];
  end
  text = ['{' char(10) strjoin(parts, [',' char(10)]) char(10) indent '}'];
end

function text = encode_list(items, indent)
  if isempty(items)
    text = '[]';
    return
  end
  inner = [indent '  '];
  parts = cell(1, numel(items));
  for i = 1:numel(items)
    parts{i} = [inner encode(items{i}, inner)];
  end
  text = ['[' char(10) strjoin(parts, [',' char(10)]) char(10) indent ']'];
end

function text = encode_number(value)
  if isinteger(value)
    text = sprintf('%d', value);
  elseif islogical(value)
    text = sprintf('%d', double(value));
  elseif ~isfinite(value)
    text = 'null';
  else
    value = double(value);
    first = 15;                 % %g drops trailing zeros, so 15..17 gives the shortest repr ...
    if abs(value) < realmin
      first = 1;                % ... except for subnormals, which may need fewer digits
    end
    for digits = first:17
      text = sprintf('%.*g', digits, value);
      if str2double(text) == value
        break
      end
    end
    if isempty(regexp(text, '[.eE]', 'once'))
      text = [text '.0'];
    end
  end
end

function text = encode_string(value)
  text = strrep(value, '\', '\\');
  text = strrep(text, '"', '\"');
  text = strrep(text, char(10), '\n');
  text = strrep(text, char(13), '\r');
  text = strrep(text, char(9), '\t');
  controls = find(text < 32);
  for c = fliplr(controls)
    text = [text(1:c-1) sprintf('\\u%04x', double(text(c))) text(c+1:end)];
  end
  text = ['"' text '"'];
end
