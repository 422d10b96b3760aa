function ranking = mlfs_read_ranking(path, d)
%MLFS_READ_RANKING  Read a ranking file (one value per line, or comma-separated) and validate it.
%   As pipeline.rankings.read_ranking_file: the file may hold at most 32*d + 1024 bytes (the
%   ranking_files bounds of definitions.json, which Python reads too), checked before it is read;
%   the first value that is not a decimal number, longer than 32 characters (the bytes per feature),
%   not in 0..d or not an integer (read exactly: 2.9999999999999999999 is not 3) is reported as it
%   is written in the file; then mlfs_validate_ranking checks the permutation.
%   Error identifiers: mlfs:ranking:missing, mlfs:file:notRegular, mlfs:ranking:tooLarge, :notNumeric, :tooLong, :outOfRange,
%   :notInteger, and those of mlfs_validate_ranking.
  mlfs_require(exist(path, 'file') == 2, 'mlfs:ranking:missing', '%s: ranking file not found', path);
  mlfs_regular_file(path, 'ranking file');  % a FIFO or a device: refused before fileread blocks on it
  definitions = mlfs_definitions();
  per_feature = definitions.ranking_files.bytes_per_feature;
  slack = definitions.ranking_files.slack_bytes;
  limit = per_feature * d + slack;  % pipeline.rankings.max_ranking_bytes
  info = dir(path);
  mlfs_require(info.bytes <= limit, 'mlfs:ranking:tooLarge', ...
    '%s: ranking file is larger than a ranking of %d features can be (expected at most %d bytes (%d per feature + %d); found %d bytes)', ...
    path, d, limit, per_feature, slack, info.bytes);
  text = fileread(path);
  if numel(text) >= 3 && all(double(text(1:3)) == [239 187 191])  % UTF-8 byte-order mark
    text = text(4:end);
  end
  tokens = regexp(text, '[^,\s]+', 'match');
  is_number = ~cellfun(@isempty, regexp(tokens, '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$', 'once'));
  values = str2double(tokens);
  lengths = cellfun(@numel, tokens);
  short = lengths <= per_feature;  % pipeline.rankings.MAX_INDEX_CHARS
  in_range = is_number & short & isfinite(values) & values >= 0 & values <= d;
  bad = find(~(in_range & cellfun(@decimal_is_integer, tokens)), 1);
  if ~isempty(bad)
    shown = tokens{bad}(1:min(end, 20));
    if ~is_number(bad)
      error('mlfs:ranking:notNumeric', '%s: ranking holds a non-numeric value (expected integers 1..d; found ''%s'')', path, shown);
    elseif ~short(bad)
      error('mlfs:ranking:tooLong', '%s: ranking index too long (expected values in 1..%d of at most %d characters; found ''%s'' (entry %d, %d characters))', ...
            path, d, per_feature, shown, bad, lengths(bad));
    elseif ~in_range(bad)
      error('mlfs:ranking:outOfRange', '%s: ranking index out of range (expected values in 1..%d; found ''%s'' (entry %d))', ...
            path, d, shown, bad);
    end
    error('mlfs:ranking:notInteger', '%s: ranking holds non-integer values (expected integers 1..d; found ''%s'' (entry %d))', ...
          path, shown, bad);
  end
  ranking = mlfs_validate_ranking(values, d, path);
end

function integral = decimal_is_integer(token)
  % Whether the decimal number written in token is exactly an integer (str2double would round
  % 2.9999999999999999999 to 3): every digit after the point, once the exponent has moved it, is 0.
  [mantissa, rest] = strtok(lower(token), 'e');
  exponent = 0;
  if ~isempty(rest)
    exponent = str2double(rest(2:end));
  end
  mantissa = regexprep(mantissa, '^[+-]', '');
  dot = find(mantissa == '.', 1);
  if isempty(dot)
    dot = numel(mantissa) + 1;
  end
  digits = mantissa(mantissa ~= '.');
  point = dot - 1 + exponent;  % digits left of the decimal point
  integral = isfinite(point) && all(digits(max(point, 0) + 1:end) == '0');
end
