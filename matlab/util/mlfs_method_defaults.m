function defaults = mlfs_method_defaults(method)
%MLFS_METHOD_DEFAULTS  The default parameters (struct) of a shipped method, from its definition
%   file (mlfs_method_definition), which the Python package reads too: the no-argument call of
%   each shipped method returns them. Error mlfs:package:notFound when the package has none.
  definition = mlfs_method_definition(method);
  mlfs_require(isstruct(definition), 'mlfs:package:notFound', ...
    'the definition of method %s (%s.json) was not found in the package', method, method);
  defaults = definition.defaults;
end
