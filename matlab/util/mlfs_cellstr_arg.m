function names = mlfs_cellstr_arg(value, kind, caller)
%MLFS_CELLSTR_ARG  A char or cell array of names -> 1×N cellstr of validated safe names, none
%   listed twice (also in another case).
  if ischar(value)
    value = {value};
  end
  if ~iscellstr(value) || isempty(value)
    error(sprintf('mlfs:%s:badArgument', caller), '%s: %ss must be a non-empty cell array of names', caller, kind);
  end
  names = value(:).';
  for i = 1:numel(names)
    mlfs_validate_name(names{i}, kind);
  end
  % in any case: on a file system that ignores case, 'variance' and 'VARIANCE' are one folder
  [~, first] = unique(lower(names), 'stable');
  twice = setdiff(1:numel(names), first);
  if ~isempty(twice)
    error(sprintf('mlfs:%s:badArgument', caller), '%s: %s ''%s'' listed twice (it would run twice)', caller, kind, names{twice(1)});
  end
end
