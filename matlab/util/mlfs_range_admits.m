function [ok, expected] = mlfs_range_admits(range, value, spelled_as_span)
%MLFS_RANGE_ADMITS  Whether value lies in range, and the range in the words of Python's Interval
%   (pipeline/validation.py), so both front doors refuse with one message. range: a struct with
%   any of low, high (numbers; missing or [] = no bound), low_open, high_open (missing = closed)
%   and choices (texts), as definitions.json and a plug-in's declarations give it. A number must be
%   a real scalar (not NaN) within the bounds, a choice one of the texts. expected: "one of
%   ['fast', 'faithful']", ">= 0 and < 1", or with spelled_as_span true (both bounds given) "a
%   number in (0, 1]", as the command lines say it.
  if nargin < 3
    spelled_as_span = false;
  end
  low = field_or(range, 'low', []);
  high = field_or(range, 'high', []);
  low_open = logical(field_or(range, 'low_open', false));
  high_open = logical(field_or(range, 'high_open', false));
  choices = reshape(cellstr(field_or(range, 'choices', {})), 1, []);
  if ~isempty(choices)
    ok = ischar(value) && any(strcmp(value, choices));
    quoted = cellfun(@(c) ['''' c ''''], choices, 'UniformOutput', false);
    expected = sprintf('one of [%s]', strjoin(quoted, ', '));
    return
  end
  ok = isnumeric(value) && isreal(value) && isscalar(value) && ~isnan(value);
  ok = ok && (isempty(low) || value > low || (~low_open && value == low));
  ok = ok && (isempty(high) || value < high || (~high_open && value == high));
  if spelled_as_span && ~isempty(low) && ~isempty(high)
    expected = sprintf('a number in %s%s, %s%s', mlfs_ifelse(low_open, '(', '['), as_number(low), ...
                       as_number(high), mlfs_ifelse(high_open, ')', ']'));
    return
  end
  parts = {};
  if ~isempty(low)
    parts{end + 1} = sprintf('%s %g', mlfs_ifelse(low_open, '>', '>='), low);
  end
  if ~isempty(high)
    parts{end + 1} = sprintf('%s %g', mlfs_ifelse(high_open, '<', '<='), high);
  end
  expected = strjoin(parts, ' and ');
end

function value = field_or(range, name, missing)
  if isfield(range, name)
    value = range.(name);
  else
    value = missing;
  end
end

function text = as_number(value)
%AS_NUMBER  A whole number in full (1000000, not 1e+06), any other as %g does, as Python's _number.
  if value == fix(value)
    text = sprintf('%d', value);
  else
    text = sprintf('%g', value);
  end
end
