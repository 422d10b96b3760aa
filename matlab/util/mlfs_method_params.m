function p = mlfs_method_params(method, defaults, params)
%MLFS_METHOD_PARAMS  The method's defaults (struct) overridden by the fields of params.
%   params may be struct() or [] (all defaults). A field that is not a default is an error
%   (mlfs:<method>:unknownParameter), as is a value of another type than its default
%   (mlfs:<method>:badParameter), as MethodSpec.resolve_params does in Python: a logical default
%   takes a logical scalar, a char default text, a numeric default a finite real numeric scalar
%   (not a logical), and seed an integer in the seed range of definitions.json, [0, 2^32 - 1] (it
%   seeds a Mersenne Twister). MATLAB stores integer and real defaults alike as doubles, so
%   Python's "an int default takes integers only" (max_iter = 1.7) is checked on the Python side only.
%   Then each value must lie in the method's declared range (mlfs_check_param_ranges): a shipped
%   method's in its definition file, a plug-in's where its defaults declare it (a default made by
%   mlfs_parameter; the returned p holds the plain value).
  [defaults, declared] = split_declarations(defaults);
  p = defaults;
  if isempty(params)
    return
  end
  mlfs_require_params_struct(method, params);
  names = fieldnames(params);
  for i = 1:numel(names)
    mlfs_require(isfield(defaults, names{i}), sprintf('mlfs:%s:unknownParameter', method), ...
      '%s: unknown parameter ''%s'' (known: %s)', method, names{i}, strjoin(sort(fieldnames(defaults)).', ', '));
    check_type(method, names{i}, params.(names{i}), defaults.(names{i}));
    p.(names{i}) = params.(names{i});
  end
  mlfs_check_param_ranges(method, params, declared);
end

function [defaults, declared] = split_declarations(defaults)
%SPLIT_DECLARATIONS  The plain defaults, and the ranges of those made by mlfs_parameter.
  declared = struct();
  names = fieldnames(defaults);
  for i = 1:numel(names)
    value = defaults.(names{i});
    if isstruct(value) && isfield(value, 'default')
      defaults.(names{i}) = value.default;
      declared.(names{i}) = rmfield(value, 'default');
    end
  end
end

function check_type(method, name, value, default)
  real_scalar = isnumeric(value) && isreal(value) && isscalar(value) && isfinite(value);
  if strcmp(name, 'seed')
    definitions = mlfs_definitions();
    seeds = definitions.seed;
    ok = real_scalar && value == fix(value) && mlfs_range_admits(seeds, value);
    expected = sprintf('an integer in [%d, %d]', seeds.low, seeds.high);
  elseif islogical(default)
    [ok, expected] = deal(islogical(value) && isscalar(value), 'true or false');
  elseif ischar(default)
    [ok, expected] = deal(ischar(value) && size(value, 1) <= 1, 'text');
  elseif isnumeric(default)
    [ok, expected] = deal(real_scalar, 'a finite real number');
  else
    return
  end
  if ~ok
    error(sprintf('mlfs:%s:badParameter', method), '%s: invalid value for parameter ''%s'' (expected %s; found %s, %s)', ...
          method, name, expected, mlfs_shown_value(value), class(value));
  end
end
