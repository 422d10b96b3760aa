function opts = mlfs_parse_options(caller, option_table, args)
%MLFS_PARSE_OPTIONS  Name-value arguments checked against a specification.
%   opts = mlfs_parse_options(caller, option_table, args)
%   caller: function name used in error identifiers ('mlfs:<caller>:...').
%   option_table: N×3 cell {name, default, validator}; validator is a function handle returning true for
%   a valid value, or [] for no check. Names match case-insensitively.
%   args: the caller's varargin. Errors: mlfs:<caller>:oddArguments, :badOptionName,
%   :unknownOption, :badValue (each naming the option and what is expected).
  opts = struct();
  for i = 1:size(option_table, 1)
    opts.(option_table{i, 1}) = option_table{i, 2};
  end
  if mod(numel(args), 2) ~= 0
    error(sprintf('mlfs:%s:oddArguments', caller), ...
          '%s: options must come as name-value pairs (found %d trailing arguments)', caller, numel(args));
  end
  names = option_table(:, 1);
  for i = 1:2:numel(args)
    name = args{i};
    if ~(ischar(name) && size(name, 1) == 1) && ~(isstring(name) && isscalar(name))
      error(sprintf('mlfs:%s:badOptionName', caller), '%s: option names must be text (argument %d)', caller, i);
    end
    match = find(strcmpi(names, char(name)));
    if isempty(match)
      error(sprintf('mlfs:%s:unknownOption', caller), '%s: unknown option ''%s''; known options: %s', ...
            caller, char(name), strjoin(names.', ', '));
    end
    value = args{i + 1};
    check = option_table{match, 3};
    if ~isempty(check) && ~check(value)
      error(sprintf('mlfs:%s:badValue', caller), '%s: invalid value for option ''%s'' (%s)', ...
            caller, names{match}, func2str(check));
    end
    opts.(names{match}) = value;
  end
end
