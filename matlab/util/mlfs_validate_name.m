function name = mlfs_validate_name(name, kind)
%MLFS_VALIDATE_NAME  A method/dataset name must be one safe path component.
%   Letters, digits and _ . + - only, starting with a letter or digit, never containing '..'.
  ok = ischar(name) && size(name, 1) == 1 && ~isempty(regexp(name, '^[A-Za-z0-9][A-Za-z0-9_.+-]*$', 'once')) ...
       && isempty(strfind(name, '..'));
  if ~ok
    if ischar(name)
      shown = name;
    else
      shown = class(name);
    end
    error('mlfs:badName', 'invalid %s name ''%s'': use letters, digits and _ . + - only, no path separators or ''..''', ...
          kind, shown);
  end
end
