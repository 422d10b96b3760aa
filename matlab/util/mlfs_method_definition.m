function definition = mlfs_method_definition(method)
%MLFS_METHOD_DEFINITION  A shipped method's definition, the file the Python package reads too
%   (pipeline/methods/definitions/<METHOD>.json), decoded: struct with fields defaults (parameter ->
%   default) and ranges (parameter -> what it may be, as mlfs_range_admits reads it). [] when the
%   package ships no definition of METHOD (a plug-in, or a method without parameters).
  definition = [];
  if ~(ischar(method) && isvarname(method))
    return
  end
  relative = {'methods', 'definitions', [method '.json']};
  if ~isempty(mlfs_package_file(relative))
    definition = mlfs_package_json(relative, sprintf('definition of method %s', method));
  end
end
