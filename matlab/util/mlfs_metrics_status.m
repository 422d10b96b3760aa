function status = mlfs_metrics_status(path, mode, expected)
%MLFS_METRICS_STATUS  'missing', 'invalid', 'different' or 'ok', as the Python store decides.
%   A file is complete when it parses, grid_mode equals mode, the grid axis (k_values or p_values)
%   is a non-empty list and the seven metric lists have its length. It is 'different' when one of
%   the fields of expected (mlknn, params, grid) differs from the file's.
  if ~exist(path, 'file')
    status = 'missing';
    return
  end
  try
    record = jsondecode(fileread(path));
  catch
    status = 'invalid';
    return
  end
  if ~is_complete(record, mode)
    status = 'invalid';
    return
  end
  keys = fieldnames(expected);
  for i = 1:numel(keys)
    if ~isfield(record, keys{i}) || ~same_value(record.(keys{i}), expected.(keys{i}))
      status = 'different';
      return
    end
  end
  status = 'ok';
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
