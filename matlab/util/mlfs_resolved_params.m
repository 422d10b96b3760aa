function p = mlfs_resolved_params(method, params)
%MLFS_RESOLVED_PARAMS  A method's defaults overridden by params (what the method actually uses).
%   p = mlfs_resolved_params(method, params)
%   For methods that return their default struct when called with no arguments (LRMFS, GRRO, SRFS,
%   SCNMF, ...), the result is those defaults with the fields of params on top (an unknown field is
%   an error, mlfs:<method>:unknownParameter), i.e. what pipeline.methods' resolve_params records
%   on the Python side. For any other method, params is returned unchanged.
  p = params;
  if exist(method, 'file') == 0
    return
  end
  try
    defaults = feval(method);
  catch
    return
  end
  if isstruct(defaults) && isscalar(defaults)
    p = mlfs_method_params(method, defaults, params);
  end
end
