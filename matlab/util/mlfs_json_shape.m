function [depth, longest_text] = mlfs_json_shape(text)
%MLFS_JSON_SHAPE  The deepest nesting of [ and { outside strings, and the longest string (in
%   characters of the JSON text, escapes included), of a JSON text; computed without recursion,
%   so that a file too deep for jsondecode (which recurses) can be refused before it is parsed.
%   The bounds they are checked against are pipeline.documents.RESULT_LIMITS's.
  n = numel(text);
  position = int32(1:n);
  last_other = cummax(position .* int32(text ~= '\'));                    % the last non-backslash so far
  run_before = [int32(0), position(1:end-1) - last_other(1:end-1)];      % backslashes just before each
  quote = text == '"' & mod(run_before, 2) == 0;                         % quotes no backslash escapes
  inside = mod(cumsum(int32(quote)), 2) == 1;                            % a string's opening quote and text
  steps = int8(~inside & (text == '[' | text == '{')) - int8(~inside & (text == ']' | text == '}'));
  depth = max([0, cumsum(int32(steps))]);
  starts = find(diff([false, inside]) == 1);
  ends = find(diff([inside, false]) == -1);
  longest_text = max([0, ends - starts]);                                % without the opening quote
end
