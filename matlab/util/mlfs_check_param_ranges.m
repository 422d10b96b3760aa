function mlfs_check_param_ranges(method, params, declared)
%MLFS_CHECK_PARAM_RANGES  Each field of params (a struct) that has a declared range must lie in it:
%   a shipped method's ranges are those its definition file declares (mlfs_method_definition:
%   pipeline/methods/definitions/<METHOD>.json, the file the Python package reads too), a plug-in's those its mlfs_parameter defaults declare (declared:
%   parameter -> range, from the no-argument call). Else mlfs:<method>:badParameter in Python's
%   words: "<method>: value out of range for parameter 'alpha' of method <method> (expected >= 0;
%   found -1)". Called by the front doors before any task and by mlfs_method_params inside each
%   method. params may be [] (nothing given); anything else but a struct is mlfs:<method>:badParams.
  if isempty(params)
    return
  end
  mlfs_require_params_struct(method, params);
  ranges = shipped_ranges(method);
  if nargin >= 3
    names = fieldnames(declared);
    for i = 1:numel(names)
      ranges.(names{i}) = declared.(names{i});
    end
  end
  names = fieldnames(params);
  for i = 1:numel(names)
    if isfield(ranges, names{i})
      value = params.(names{i});
      [ok, expected] = mlfs_range_admits(ranges.(names{i}), value);
      if ~ok
        error(sprintf('mlfs:%s:badParameter', method), ...
              '%s: value out of range for parameter ''%s'' of method %s (expected %s; found %s)', ...
              method, names{i}, method, expected, mlfs_shown_value(value));
      end
    end
  end
end

function ranges = shipped_ranges(method)
%SHIPPED_RANGES  The ranges a shipped method's definition file declares; struct() for any other method.
  definition = mlfs_method_definition(method);
  ranges = struct();
  if isstruct(definition)
    ranges = definition.ranges;
  end
end
