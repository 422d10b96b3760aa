function mlfs_check_param_ranges(method, params, declared)
%MLFS_CHECK_PARAM_RANGES  Each field of params (a struct) that has a declared range
%   (mlfs_parameter_ranges, the twin of MethodSpec.allowed; for a plug-in, declared: parameter ->
%   range, from the mlfs_parameter defaults its no-argument call returns) must lie in it, else
%   mlfs:<method>:badParameter in Python's words: "<method>: value out of range for parameter
%   'alpha' of method <method> (expected >= 0; found -1)". Called by the front doors before any task
%   and by mlfs_method_params inside each method. params may be [] (nothing given); anything else
%   but a struct is mlfs:<method>:badParams.
  if isempty(params)
    return
  end
  mlfs_require_params_struct(method, params);
  ranges = mlfs_parameter_ranges(method);
  if nargin >= 3
    names = fieldnames(declared);
    for i = 1:numel(names)
      ranges.(names{i}) = declared.(names{i});
    end
  end
  names = fieldnames(params);
  for i = 1:numel(names)
    if isfield(ranges, names{i})
      check_range(method, names{i}, params.(names{i}), ranges.(names{i}));
    end
  end
end

function check_range(method, name, value, range)
  if ~isempty(range.choices)
    ok = ischar(value) && any(strcmp(value, range.choices));
    quoted = cellfun(@(c) ['''' c ''''], range.choices, 'UniformOutput', false);
    expected = sprintf('one of [%s]', strjoin(quoted, ', '));
  else
    ok = isnumeric(value) && isreal(value) && isscalar(value) && ~isnan(value);
    parts = {};
    if ~isempty(range.low)
      ok = ok && (value > range.low || (~range.low_open && value == range.low));
      parts{end + 1} = sprintf('%s %g', mlfs_ifelse(range.low_open, '>', '>='), range.low);
    end
    if ~isempty(range.high)
      ok = ok && (value < range.high || (~range.high_open && value == range.high));
      parts{end + 1} = sprintf('%s %g', mlfs_ifelse(range.high_open, '<', '<='), range.high);
    end
    expected = strjoin(parts, ' and ');
  end
  if ~ok
    error(sprintf('mlfs:%s:badParameter', method), ...
          '%s: value out of range for parameter ''%s'' of method %s (expected %s; found %s)', ...
          method, name, method, expected, mlfs_shown_value(value));
  end
end
