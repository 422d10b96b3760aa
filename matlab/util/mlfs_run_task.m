function [status, degenerate_points] = mlfs_run_task(results_dir, method, dataset, task_fold, opts, rank, context)
%MLFS_RUN_TASK  One (method, dataset, fold) task; the Octave/MATLAB twin of pipeline.runner.run.
%   rank = true: rank on the training part with the function named method (reusing a fresh, complete
%   ranking unless overwrite) and write _scores.csv, _ranking.csv, _ranking.json, then _time.txt (the
%   method's own seconds); rank = false: read the ranking. Then score it with MLKNN_eval_kgrid on the
%   grid and write _kgrid/_pgrid_metrics.json. With skip_existing a task is skipped only when its
%   files are fresh: same settings, and made by the current code (code fingerprints,
%   mlfs_code_fingerprint) from the current data and ranking: the ranking record names the fold's
%   training part (mlfs_training_sha256), the metrics file the fold file and the ranking file
%   (SHA-256s; docs/results-schema.md).
%   Returns 'done' or 'skipped' and the number of grid points whose selection is mostly
%   training-constant features; errors are thrown (the suite records them as failures).
%   The "params" key records the method's info.params when it reports them (its defaults merged
%   with the given params, what the Python front door records), else the given params.
%   context: the run's code fingerprints and git state for this method (mlfs_task_context).
%   task_fold: the fold as read once for all its tasks (mlfs_task_fold); its read error is this task's.
  fold = task_fold.index;
  files = mlfs_task_files(results_dir, method, dataset, fold);
  metrics_path = files.(opts.grid);
  params = struct();
  if rank && isfield(opts.params, method)
    params = opts.params.(method);
  end
  if rank && ~isempty(context.defaults)
    params = mlfs_method_params(method, context.defaults, params);   % a plug-in: its no-argument call
  elseif rank
    params = mlfs_resolved_params(method, params);   % compare with what earlier runs recorded
  end
  code = context.code;
  mlknn = struct('num', int64(opts.mlknn_k), 'smooth', double(opts.mlknn_smooth));
  expected = struct('mlknn', mlknn, 'params', params, 'grid', mlfs_grid_struct(opts));
  [existing, previous] = mlfs_metrics_status(metrics_path, opts.grid, expected);
  degenerate_points = 0;
  if ~isempty(task_fold.error)
    rethrow(task_fold.error);
  end
  fold_file = task_fold.file;
  data = task_fold.data;
  fold_sha256 = task_fold.sha256;
  training = task_fold.training_sha256;
  ranking_fresh = ~rank || (~opts.overwrite && is_fresh_ranking(files, code.method, training));
  if opts.skip_existing && ~opts.overwrite && strcmp(existing, 'ok') && ranking_fresh && ...
      is_fresh_metrics(previous, metrics_path, files, code.evaluator, fold_sha256)
    status = 'skipped';
    return
  end
  mlfs_require(~strcmp(existing, 'different') || opts.overwrite, 'mlfs:task:differentSettings', ...
    '%s: result exists with other settings (ML-kNN, grid or parameters); use ''overwrite'' or another results folder', ...
    metrics_path);

  [n_train, d] = size(data.X_train);
  mlfs_require(opts.mlknn_k < n_train, 'mlfs:task:tooFewTrainingRows', ...
    '%s: ML-kNN needs more training instances than neighbours (n_train = %d, mlknn_k = %d)', ...
    fold_file, n_train, opts.mlknn_k);
  if strcmp(opts.grid, 'kgrid')
    k_entries = mlfs_kgrid_values(d, opts.k_min, opts.k_max, opts.k_step);
    p_values = [];
  else
    [p_values, k_entries] = mlfs_pgrid_values(d, opts.p_min, opts.p_max, opts.p_step);
  end

  if ~rank || (ranking_fresh && has_ranking(files, d))
    ranking = mlfs_read_ranking(files.ranking, d);
    used_params = recorded_params(files, previous, params, rank);
    timing = struct('rank_seconds', read_time(files.time), 'overhead_seconds', NaN);
  else
    [ranking, used_params, timing] = compute_ranking(files, method, data, training, params, opts, dataset, fold, ...
                                                     code.method, context.git);
  end
  started = tic;
  curves = MLKNN_eval_kgrid(data.X_train, data.Y_train, data.X_test, data.Y_test, ranking, ...
                            unique(k_entries), opts.mlknn_k, opts.mlknn_smooth);
  seconds = toc(started);
  record = mlfs_metrics_record(curves, k_entries, p_values, opts, method, dataset, fold, data, used_params);
  record = mlfs_constant_feature_counts(record, data.X_train, ranking, k_entries);
  record.time_rank_seconds = timing.rank_seconds;
  record.time_rank_overhead_seconds = timing.overhead_seconds;
  record.time_eval_seconds = seconds;
  record.provenance = struct('fold_sha256', fold_sha256, ...
    'ranking_sha256', mlfs_sha256_file(files.ranking), 'engine', engine_name(rank), ...
    'evaluator', engine_name(true), 'code', code, 'git', context.git, 'front_door', 'run_suite', ...
    'versions', mlfs_runtime_versions());
  record.content_sha256 = mlfs_content_sha256([mlfs_json_encode(record) char(10)]);   % as mlfs_write_json_atomic writes it
  mlfs_write_json_atomic(metrics_path, record);
  status = 'done';
  degenerate_points = sum([record.degenerate{:}]);
end

function name = engine_name(rank)
  name = 'external';
  if rank
    name = mlfs_ifelse(mlfs_is_octave(), 'octave', 'matlab');
  end
end

function [ranking, used_params, timing] = compute_ranking(files, method, data, training, params, opts, dataset, fold, method_code, git)
%COMPUTE_RANKING  Rank on the training part; write scores, ranking, its record, then the time file.
%   training: the training part's SHA-256 (mlfs_training_sha256), which the record names.
%   used_params: the method's info.params (its defaults merged with params, as the Python side
%   records them) when it reports them, else params. timing: the method's own seconds; no bridge
%   overhead in this front door. The method runs isolated (mlfs_isolated_call): the path, folder,
%   random generators and warnings it changes are put back before anything else runs; the warnings
%   it printed are recorded (mlfs_warning_summary, as the Python front door records them).
  d = size(data.X_train, 2);
  mlfs_require(exist(method, 'file') ~= 0, 'mlfs:task:unknownMethod', ...
    'no MATLAB/Octave function named %s on the path (matlab/baselines/%s.m)', method, method);
  init = struct();
  if isfield(opts.init, method)
    init = opts.init.(method);
  end
  try
    [outputs, seconds, warned] = mlfs_isolated_call(method, 2, data.X_train, data.Y_train, params, init);
  catch err
    error('mlfs:task:methodFailed', '%s/%s/fold%d: %s failed: %s [%s]', method, dataset, fold, ...
          method, err.message, err.identifier);
  end
  [ranking, info] = outputs{:};
  used_params = params;
  if isstruct(info) && isscalar(info) && isfield(info, 'params') && isstruct(info.params)
    used_params = info.params;
  end
  where = sprintf('%s output for %s/%s/fold%d', method, method, dataset, fold);
  ranking = mlfs_validate_ranking(ranking, d, where);
  mlfs_require(isstruct(info) && isscalar(info) && isfield(info, 'scores') && ...
    (isnumeric(info.scores) || islogical(info.scores)) && isreal(info.scores) && ...
    numel(info.scores) == d && all(isfinite(info.scores(:))), 'mlfs:task:badScores', ...
    '%s: info.scores must hold %d finite real feature scores', where, d);
  ordered = double(info.scores(ranking));   % as pipeline.rankings.check_ranking_sorts_scores
  rises = find(ordered(2:end) - ordered(1:end-1) > 1e-10 * max(abs(ordered(2:end)), abs(ordered(1:end-1))), 1);
  mlfs_require(isempty(rises), 'mlfs:task:unsortedScores', ...
    '%s: the ranking does not sort the scores (decreasing): feature %d (score %.6g) ranked after feature %d (score %.6g)', ...
    where, ranking(rises + 1), ordered(rises + 1), ranking(rises), ordered(rises));
  timing = struct('rank_seconds', seconds, 'overhead_seconds', 0);
  record = struct('method', method, 'dataset', dataset, 'fold', int64(fold), 'params', used_params, ...
    'training_sha256', training, 'engine', engine_name(true), 'code', method_code, 'git', git, ...
    'time_rank_seconds', seconds, 'time_rank_overhead_seconds', 0, 'info', recordable_info(info), ...
    'warnings', mlfs_warning_summary(warned), 'versions', mlfs_runtime_versions());
  if exist(files.time, 'file')
    delete(files.time);                 % an old time file must not vouch for the new ranking mid-write
  end
  mlfs_write_text_atomic(files.scores, ['feature,score' char(10) sprintf('%d,%.17g\n', [1:d; double(info.scores(:)).'])]);
  ranking_text = sprintf('%d\n', ranking);
  mlfs_write_text_atomic(files.ranking, ranking_text);
  record.ranking_sha256 = mlfs_sha256_bytes(uint8(ranking_text));   % the file it describes, as written
  mlfs_write_json_atomic(files.ranking_record, record);
  mlfs_write_text_atomic(files.time, sprintf('%.6f\n', seconds));
end

function kept = recordable_info(info)
%RECORDABLE_INFO  info without scores, without entries of more than recorded_info.max_numbers
%   numbers (1000) and without entries the strict reader would refuse when the record is read back
%   (nesting deeper than result_files.max_depth levels (32), a text of more than
%   result_files.max_string_chars characters (10000)): the bounds of definitions.json, which the
%   Python side reads too. Kept, such an entry would make the ranking look unreadable, and computed
%   again, at every resume.
  definitions = mlfs_definitions();
  max_numbers = definitions.recorded_info.max_numbers;
  bounds = definitions.result_files;
  kept = struct();
  keys = fieldnames(info);
  for i = 1:numel(keys)
    value = info.(keys{i});
    if ~strcmp(keys{i}, 'scores') && (ischar(value) || isstruct(value) || numel(value) <= max_numbers)
      [depth, longest_text] = mlfs_json_shape(mlfs_json_encode(struct(keys{i}, {value})));
      if depth <= bounds.max_depth && longest_text <= bounds.max_string_chars
        kept.(keys{i}) = value;
      end
    end
  end
end

function fresh = is_fresh_ranking(files, method_code, training)
%IS_FRESH_RANKING  A complete ranking whose record names the current code of the method, the
%   fold's current training part (a record without it predates the fold hashes: stale) and the
%   ranking file as it is (not edited since).
  fresh = false;
  if exist(files.time, 'file') ~= 2 || exist(files.ranking_record, 'file') ~= 2
    return
  end
  try
    record = mlfs_read_result_json(files.ranking_record, 'ranking record');
    fresh = isfield(record, 'code') && isfield(record.code, 'sha256') && strcmp(record.code.sha256, method_code.sha256) && ...
      isfield(record, 'training_sha256') && strcmp(record.training_sha256, training) && ...
      isfield(record, 'ranking_sha256') && strcmp(record.ranking_sha256, mlfs_sha256_file(files.ranking));
  catch
    fresh = false;
  end
end

function fresh = is_fresh_metrics(previous, metrics_path, files, evaluator_code, fold_sha256)
%IS_FRESH_METRICS  Metrics made by this evaluator's current code from the current fold and ranking
%   files, not edited since they were written (the file still gives its content_sha256).
  fresh = isfield(previous, 'content_sha256') && ...
    strcmp(previous.content_sha256, mlfs_content_sha256(fileread(metrics_path))) && ...
    isfield(previous, 'provenance') && isfield(previous.provenance, 'evaluator') && ...
    isfield(previous.provenance, 'fold_sha256') && strcmp(previous.provenance.fold_sha256, fold_sha256) && ...
    strcmp(previous.provenance.evaluator, engine_name(true)) && ...
    isfield(previous.provenance, 'ranking_sha256') && ...
    strcmp(previous.provenance.ranking_sha256, mlfs_sha256_file(files.ranking)) && ...
    isfield(previous.provenance, 'code') && isfield(previous.provenance.code, 'evaluator') && ...
    strcmp(previous.provenance.code.evaluator.sha256, evaluator_code.sha256);
end

function used = recorded_params(files, previous, params, rank)
%RECORDED_PARAMS  The resolved parameters of a reused ranking: from its record, else the old metrics.
  used = params;
  if ~rank
    return
  end
  try
    record = mlfs_read_result_json(files.ranking_record, 'ranking record');
    used = record.params;
  catch
    if isstruct(previous) && isfield(previous, 'params')
      used = previous.params;
    end
  end
end

function seconds = read_time(path)
  seconds = NaN;
  fid = fopen(path, 'r');
  if fid >= 0
    value = fscanf(fid, '%f', 1);
    fclose(fid);
    if isscalar(value)
      seconds = value;
    end
  end
end

function ok = has_ranking(files, d)
  ok = exist(files.ranking, 'file') == 2 && exist(files.time, 'file') == 2;
  if ok
    try
      mlfs_read_ranking(files.ranking, d);
    catch
      ok = false;
    end
  end
end
