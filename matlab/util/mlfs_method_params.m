function p = mlfs_method_params(method, defaults, params)
%MLFS_METHOD_PARAMS  The method's defaults (struct) overridden by the fields of params.
%   params may be struct() or [] (all defaults). A field that is not a default is an error
%   (mlfs:<method>:unknownParameter), as MethodSpec.resolve_params does in Python.
  p = defaults;
  if isempty(params)
    return
  end
  mlfs_require(isstruct(params) && isscalar(params), sprintf('mlfs:%s:badParams', method), ...
    '%s: params must be a struct', method);
  names = fieldnames(params);
  for i = 1:numel(names)
    mlfs_require(isfield(defaults, names{i}), sprintf('mlfs:%s:unknownParameter', method), ...
      '%s: unknown parameter ''%s'' (known: %s)', method, names{i}, strjoin(sort(fieldnames(defaults)).', ', '));
    p.(names{i}) = params.(names{i});
  end
end
