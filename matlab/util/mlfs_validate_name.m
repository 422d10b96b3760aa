function name = mlfs_validate_name(name, kind)
%MLFS_VALIDATE_NAME  A method/dataset name must be one safe path component (as pipeline.names).
%   1 to 128 characters; ASCII letters, digits and _ . + - only, starting with a letter or digit,
%   never containing '..' (no whitespace, not even a trailing newline); a method is not named like
%   what a results folder holds for itself (the run history folder, the failures file, in any case).
%   Characters are compared
%   one by one, not with a regular expression, because '$' also matches before a final newline.
%   Error identifier: mlfs:badName.
  max_length = 128;  % pipeline.names.MAX_NAME_LENGTH: the name plus ~45 bytes stays within 255
  ok = ischar(name) && size(name, 1) == 1 && ~isempty(name);
  if ok
    alnum = (name >= 'A' & name <= 'Z') | (name >= 'a' & name <= 'z') | (name >= '0' & name <= '9');
    allowed = alnum | name == '_' | name == '.' | name == '+' | name == '-';
    ok = alnum(1) && all(allowed) && isempty(strfind(name, '..'));
  end
  if ~ok
    error('mlfs:badName', 'invalid %s name ''%s'': use letters, digits and _ . + - only, no path separators or ''..''', ...
          kind, shown(name));
  end
  if numel(name) > max_length
    error('mlfs:badName', '%s name too long (expected at most %d characters; found %d characters, ''%s...'')', ...
          kind, max_length, numel(name), name(1:40));
  end
  if strncmp(kind, 'method', 6)
    % the names a results folder uses for itself (results/layout.json, which pipeline.names reads too)
    layout = mlfs_results_layout();
    reserved = sort(lower({layout.run_history_folder, layout.failures_file}));
    if any(strcmp(lower(name), reserved))
      error('mlfs:badName', ['invalid %s name ''%s'': a results folder uses it for itself (expected a name ' ...
            'other than %s, in any case)'], kind, name, strjoin(reserved, ', '));
    end
  end
end

function text = shown(name)
  % The name as one printable line (control characters as '?'), or its class if it is not text.
  if ~ischar(name)
    text = class(name);
    return
  end
  text = name(:).';
  text(text < 32 | text > 126) = '?';
  if numel(text) > 40
    text = [text(1:40) '...'];
  end
end
