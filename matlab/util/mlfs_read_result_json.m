function value = mlfs_read_result_json(path, what)
%MLFS_READ_RESULT_JSON  A JSON file a run wrote and now reads back (metrics file, ranking record),
%   within the bounds of pipeline.documents.RESULT_LIMITS: at most 64 MiB, checked before it is
%   read, and nested at most 32 levels, checked on the text before jsondecode, which a deeper file
%   (a damaged or hostile one) crashes by recursion. Brackets inside strings do not count.
%   Error identifiers: mlfs:result:tooLarge, :tooDeep (callers treat such a file as unreadable).
  max_bytes = 64 * 2^20;
  max_depth = 32;
  info = dir(path);
  mlfs_require(info.bytes <= max_bytes, 'mlfs:result:tooLarge', ...
    '%s: %s too large (expected at most %d bytes; found %d bytes)', path, what, max_bytes, info.bytes);
  text = fileread(path);
  depth = nesting_depth(text);
  mlfs_require(depth <= max_depth, 'mlfs:result:tooDeep', ...
    '%s: %s nested too deeply (expected at most %d levels; found %d)', path, what, max_depth, depth);
  value = jsondecode(text);
end

function depth = nesting_depth(text)
%NESTING_DEPTH  The deepest nesting of [ and { outside JSON strings, computed without recursion.
  n = numel(text);
  position = int32(1:n);
  last_other = cummax(position .* int32(text ~= '\'));                    % the last non-backslash so far
  run_before = [int32(0), position(1:end-1) - last_other(1:end-1)];      % backslashes just before each
  quote = text == '"' & mod(run_before, 2) == 0;                         % quotes no backslash escapes
  inside = mod(cumsum(int32(quote)), 2) == 1;                            % within a string
  steps = int8(~inside & (text == '[' | text == '{')) - int8(~inside & (text == ']' | text == '}'));
  depth = max([0, cumsum(int32(steps))]);
end
