function p = mlfs_resolved_params(method, params)
%MLFS_RESOLVED_PARAMS  A method's defaults overridden by params (what the method actually uses).
%   p = mlfs_resolved_params(method, params)
%   For the methods listed below, which return their default struct when called with no arguments
%   (defaults = LRMFS()), the result is those defaults with the fields of params on top (an unknown
%   field is an error, mlfs:<method>:unknownParameter): what MethodSpec.resolve_params records on
%   the Python side. For any other method params is returned unchanged. The list is explicit so
%   that a method is never called just to probe it (a test method may never return); add a name
%   here when its function supports the no-argument call.
  with_defaults = {'LRMFS', 'GRRO', 'SRFS', 'SCNMF'};
  p = params;
  if any(strcmp(method, with_defaults))
    p = mlfs_method_params(method, feval(method), params);
  end
end
