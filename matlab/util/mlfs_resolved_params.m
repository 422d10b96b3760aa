function p = mlfs_resolved_params(method, params)
%MLFS_RESOLVED_PARAMS  A method's defaults overridden by params (what the method actually uses).
%   p = mlfs_resolved_params(method, params)
%   For a shipped method with a definition file (mlfs_method_definition, the file the Python
%   package reads too), the result is its defaults with the fields of params on top (an unknown
%   field is an error, mlfs:<method>:unknownParameter): what MethodSpec.resolve_params records on
%   the Python side. For any other method params is returned unchanged. The defaults are read from
%   the file, never by calling the method.
  p = params;
  definition = mlfs_method_definition(method);
  if isstruct(definition)
    p = mlfs_method_params(method, definition.defaults, params);
  end
end
