function mlfs_require_params_struct(method, params)
%MLFS_REQUIRE_PARAMS_STRUCT  Non-empty params given to a method must be one struct (field per
%   parameter), else mlfs:<method>:badParams. Shared by mlfs_method_params and
%   mlfs_check_param_ranges, which the front doors also call on their own.
  mlfs_require(isstruct(params) && isscalar(params), sprintf('mlfs:%s:badParams', method), ...
    '%s: params must be a struct', method);
end
