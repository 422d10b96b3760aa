function mlfs_require(condition, identifier, varargin)
%MLFS_REQUIRE  error(identifier, message, ...) unless condition holds.
  if ~condition
    error(identifier, varargin{:});
  end
end
