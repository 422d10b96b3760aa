function [defaults, logical_names, is_struct] = mlfs_plugin_defaults(method)
%MLFS_PLUGIN_DEFAULTS  What a plug-in's no-argument call returns (its defaults: values, or
%   declarations made by mlfs_parameter), the names of its logical defaults (the bridge to Python
%   carries a logical as a number, and the Python front door checks a given value against its
%   default's type) and whether it is a scalar struct (the bridge carries struct(), a method without
%   parameters, as a cell). Errors of the call are the caller's to report. The call is isolated
%   like a ranking call (mlfs_isolated_call): what it changes in the session is put back.
  outputs = mlfs_isolated_call(method, 1);
  defaults = outputs{1};
  logical_names = {};
  is_struct = isstruct(defaults) && isscalar(defaults);
  if is_struct
    names = fieldnames(defaults);
    logical_names = names(cellfun(@(name) islogical(defaults.(name)), names)).';
  end
end
