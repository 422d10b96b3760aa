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
    parsed = mlfs_read_result_json(path, 'metrics file');
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
%IS_COMPLETE  The twin of the Python schema (pipeline.results.schema.MetricsFile) for what a
%   resumed task needs: the grid axis, every metric a real list aligned with it (null reads as NaN;
%   a text or a boolean makes a cell or a logical, refused), integer k values, a non-negative
%   ranking time, the constant-feature check complete or absent, a 64-digit fold digest.
  ok = isstruct(record) && isscalar(record) && isfield(record, 'grid_mode') && ischar(record.grid_mode) && ...
       strcmp(record.grid_mode, mode);
  if ~ok
    return
  end
  axis_key = mlfs_ifelse(strcmp(mode, 'pgrid'), 'p_values', 'k_values');
  ok = isfield(record, axis_key) && is_real_list(record.(axis_key)) && ~isempty(record.(axis_key));
  if ~ok
    return
  end
  n = numel(record.(axis_key));
  aligned = @(key) ~isfield(record, key) || (is_real_list(record.(key)) && numel(record.(key)) == n);
  names = mlknn_metric_names();
  for i = 1:numel(names)
    ok = ok && isfield(record, names{i}) && aligned(names{i});
  end
  ok = ok && aligned('k_values') && (~isfield(record, 'k_values') || is_integer_list(record.k_values));
  ok = ok && (~isfield(record, 'time_rank_seconds') || isempty(record.time_rank_seconds) || ...
              (is_real_list(record.time_rank_seconds) && isscalar(record.time_rank_seconds) && ...
               record.time_rank_seconds >= 0));
  ok = ok && has_selection_check(record, n) && has_fold_digest(record);
end

function ok = has_selection_check(record, n)
  present = isfield(record, {'n_constant_selected', 'degenerate', 'n_constant_features'});
  if ~any(present)
    ok = true;
    return
  end
  ok = all(present) && isfield(record, 'k_values') && ...
       is_integer_list(record.n_constant_selected) && numel(record.n_constant_selected) == n && ...
       islogical(record.degenerate) && numel(record.degenerate) == n && ...
       is_integer_list(record.n_constant_features) && isscalar(record.n_constant_features) && ...
       record.n_constant_features >= 0;
end

function ok = has_fold_digest(record)
  ok = ~isfield(record, 'provenance') || ~isstruct(record.provenance) || ...
       ~isfield(record.provenance, 'fold_sha256') || isempty(record.provenance.fold_sha256) || ...
       (ischar(record.provenance.fold_sha256) && ~isempty(regexp(record.provenance.fold_sha256, '^[0-9a-f]{64}$', 'once')));
end

function ok = is_real_list(value)
  ok = isnumeric(value) && isreal(value) && all(~isinf(value(:)));
end

function ok = is_integer_list(value)
  ok = is_real_list(value) && all(value(:) == fix(value(:)));
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
