function [status, record] = mlfs_metrics_status(path, mode, expected)
%MLFS_METRICS_STATUS  'missing', 'invalid', 'different' or 'ok', as the Python store decides.
%   A file is complete when it parses, grid_mode equals mode, the grid axis (k_values or p_values)
%   is a non-empty list and the metric lists (mlknn_metric_names) have its length. It is 'different' when mlknn or
%   grid differ from expected's, or when a parameter given in expected.params differs from the
%   file's (the file also holds the method's defaults, which MATLAB/Octave learns only from the
%   method's info.params). record: the parsed file ([] unless complete).
  record = [];
  if ~exist(path, 'file')
    status = 'missing';
    return
  end
  try
    parsed = jsondecode(fileread(path));
  catch
    status = 'invalid';
    return
  end
  if ~is_complete(parsed, mode)
    status = 'invalid';
    return
  end
  record = parsed;
  status = 'ok';
  keys = fieldnames(expected);
  for i = 1:numel(keys)
    if ~isfield(record, keys{i})
      status = 'different';
    elseif strcmp(keys{i}, 'params')
      if ~is_subset(expected.params, record.params)
        status = 'different';
      end
    elseif ~same_value(record.(keys{i}), expected.(keys{i}))
      status = 'different';
    end
  end
end

function ok = is_complete(record, mode)
  ok = isstruct(record) && isfield(record, 'grid_mode') && strcmp(record.grid_mode, mode);
  if ~ok
    return
  end
  axis_key = 'k_values';
  if strcmp(mode, 'pgrid')
    axis_key = 'p_values';
  end
  ok = isfield(record, axis_key) && ~isempty(record.(axis_key)) && ~ischar(record.(axis_key));
  names = mlknn_metric_names();
  for i = 1:numel(names)
    ok = ok && isfield(record, names{i}) && ~ischar(record.(names{i})) && ...
         numel(record.(names{i})) == numel(record.(axis_key));
  end
end

function same = same_value(a, b)
  if isstruct(a) && isstruct(b)
    same = isequal(sort(fieldnames(a)), sort(fieldnames(b)));
    keys = fieldnames(a);
    for i = 1:numel(keys)
      same = same && same_value(a.(keys{i}), b.(keys{i}));
    end
  elseif isnumeric(a) && isnumeric(b) || islogical(a) || islogical(b)
    same = isequal(double(a(:)), double(b(:)));
  else
    same = isequal(a, b);
  end
end

function ok = is_subset(given, stored)
  ok = isstruct(stored) && isscalar(stored);
  keys = fieldnames(given);
  for i = 1:numel(keys)
    ok = ok && isfield(stored, keys{i}) && same_value(stored.(keys{i}), given.(keys{i}));
  end
end
