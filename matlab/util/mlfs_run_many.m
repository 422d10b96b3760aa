function summary = mlfs_run_many(caller, results_dir, data_dir, datasets, methods, args, rank)
%MLFS_RUN_MANY  The loop shared by run_suite (rank = true) and eval_rankings_matlab (rank = false).
  mlfs_require(ischar(results_dir) && ~isempty(results_dir), sprintf('mlfs:%s:badArgument', caller), ...
    '%s: results_dir must be a folder path (text)', caller);
  mlfs_require(exist(results_dir, 'dir') == 7 || ~exist(results_dir, 'file'), sprintf('mlfs:%s:badArgument', caller), ...
    '%s: %s: cannot create results directory: a file of that name exists', caller, results_dir);
  mlfs_require(ischar(data_dir) && exist(data_dir, 'dir') == 7, sprintf('mlfs:%s:missingFolder', caller), ...
    '%s: data_dir not found: %s', caller, char(data_dir));
  datasets = mlfs_cellstr_arg(datasets, 'dataset', caller);
  methods = mlfs_cellstr_arg(methods, 'method', caller);
  opts = mlfs_parse_options(caller, mlfs_suite_options(rank), args);
  mlfs_check_grid_options(caller, opts);
  if rank
    check_given_params(caller, methods, opts.params);
  end
  opts.plugins = plugin_folders(caller, opts.plugins);
  if ~rank
    for m = 1:numel(methods)
      mlfs_require(exist(fullfile(results_dir, methods{m}), 'dir') == 7, sprintf('mlfs:%s:missingFolder', caller), ...
        '%s: method folder not found: %s', caller, fullfile(results_dir, methods{m}));
    end
  end
  folds = cell(size(datasets));
  for s = 1:numel(datasets)
    folds{s} = mlfs_fold_indices(data_dir, datasets{s}, opts.folds);
  end
  check_neighbours_fit(caller, data_dir, datasets, folds, opts.mlknn_k);
  git = mlfs_git_state();
  contexts = cellfun(@(method) mlfs_task_context(method, rank, git, opts.plugins), methods, 'UniformOutput', false);
  if rank
    check_plugin_params(methods, contexts, opts.params);
  end
  if ~exist(results_dir, 'dir')
    [made, why] = mkdir(results_dir);
    mlfs_require(made, sprintf('mlfs:%s:badArgument', caller), '%s: %s: cannot create results directory: %s', ...
      caller, results_dir, why);
  end
  run_arguments = struct('results_dir', results_dir, 'data_dir', data_dir, 'datasets', {datasets}, ...
                     'methods', {methods}, 'options', to_json_options(opts));
  history = mlfs_run_history(results_dir, caller, run_arguments);

  counts = struct('done', int64(0), 'skipped', int64(0), 'failed', int64(0));
  failures = {};
  degenerate = {};
  for s = 1:numel(datasets)       % datasets, folds, methods: the order of the Python front door
    for fold = folds{s}
      task_fold = mlfs_task_fold(data_dir, datasets{s}, fold);   % read once for all its methods
      for m = 1:numel(methods)
        key = sprintf('%s/%s/fold%d', methods{m}, datasets{s}, fold);
        try
          [status, degenerate_points] = mlfs_run_task(results_dir, methods{m}, datasets{s}, task_fold, opts, rank, ...
                                                       contexts{m});
          message = '';
          if degenerate_points > 0
            degenerate{end + 1} = sprintf('%s (%d points)', key, degenerate_points); %#ok<AGROW>
          end
        catch err
          status = 'failed';
          message = err.message;
          failures{end + 1} = struct('task', key, 'status', 'failed', 'method', methods{m}, ...
            'dataset', datasets{s}, 'fold', int64(fold), 'error_type', err.identifier, 'message', message); %#ok<AGROW>
        end
        counts.(status) = counts.(status) + 1;
        line = strtrim(sprintf('%s %s %s', status, key, message));
        mlfs_run_history(history, 'log', line);
        if opts.verbose
          fprintf('%s\n', line);
        end
      end
    end
  end
  mlfs_run_history(history, 'finish', counts);
  layout = mlfs_results_layout();
  failures_path = fullfile(results_dir, layout.failures_file);
  if isempty(failures)
    if exist(failures_path, 'file')
      delete(failures_path);
    end
  else
    mlfs_write_json_atomic(failures_path, struct('failed', {failures}));
  end
  if ~isempty(degenerate)
    warning('mlfs:run_suite:degenerateSelection', ['%d task(s) selected mostly features that are constant ' ...
            'on the training part at some grid points: %s; see n_constant_selected and degenerate in their ' ...
            'metrics files'], numel(degenerate), strjoin(degenerate, ', '));
  end
  summary = counts;
  summary.failures = failures;
  summary.degenerate = degenerate;
end

function check_given_params(caller, methods, params)
%CHECK_GIVEN_PARAMS  Before any task, as the Python front door: params names only methods of this
%   run (a misspelt or other method's entry would be ignored), and a shipped method's parameters are
%   known, of their default's type and in range (its definition file; plug-ins: check_plugin_params).
  given = fieldnames(params);
  for i = 1:numel(given)
    if ~any(strcmp(given{i}, methods))
      error(sprintf('mlfs:%s:badArgument', caller), ['%s: field ''params.%s'': parameters of a method this run ' ...
            'does not run (they would be ignored) (expected one of the methods %s)'], caller, given{i}, strjoin(methods, ', '));
    end
    mlfs_check_param_ranges(given{i}, params.(given{i}));  % a struct, in range (for every method)
    mlfs_resolved_params(given{i}, params.(given{i}));     % known names and types (shipped methods)
  end
end

function check_neighbours_fit(caller, data_dir, datasets, folds, mlknn_k)
%CHECK_NEIGHBOURS_FIT  Before any task, as the Python front door: every fold has more training
%   instances than ML-kNN has neighbours (from the fold files' headers), else every task of it would
%   fail alike. A fold file that cannot be read is left to its tasks, which say what is wrong with it.
  for s = 1:numel(datasets)
    for fold = folds{s}
      fold_file = fullfile(data_dir, datasets{s}, sprintf('fold%d.mat', fold));
      try
        n_train = mlfs_load_fold(fold_file, 'training_rows');
      catch
        continue
      end
      mlfs_require(mlknn_k < n_train, sprintf('mlfs:%s:tooFewTrainingRows', caller), ...
        '%s: %s, field ''X_train'': ML-kNN needs more training instances than neighbours (expected n_train > %d; found n_train = %d)', ...
        caller, fold_file, mlknn_k, n_train);
    end
  end
end

function check_plugin_params(methods, contexts, params)
%CHECK_PLUGIN_PARAMS  A plug-in's given parameters against its defaults (names, types and the
%   ranges it declares with mlfs_parameter), before any task: a bad value is the user's error.
  for m = 1:numel(methods)
    if ~isempty(contexts{m}.defaults) && isfield(params, methods{m})
      mlfs_method_params(methods{m}, contexts{m}.defaults, params.(methods{m}));
    end
  end
end

function folders = plugin_folders(caller, folders)
%PLUGIN_FOLDERS  The plug-in folders as absolute paths, added to the path; a NAME.m there named
%   like a function defined elsewhere (mlfs_plugin_clashes) is an error (mlfs:plugins:nameClash),
%   before any task.
  folders = cellstr(folders);
  for i = 1:numel(folders)
    mlfs_require(exist(folders{i}, 'dir') == 7, sprintf('mlfs:%s:missingFolder', caller), ...
      '%s: plug-in folder not found: %s', caller, folders{i});
    here = cd(folders{i});               % the absolute path, in MATLAB and Octave alike
    folders{i} = pwd();
    cd(here);
    [files, others] = mlfs_plugin_clashes(folders{i});
    if ~isempty(files)
      error('mlfs:plugins:nameClash', ['%s: the plug-in file %s is named like %s: on the path it would ' ...
            'replace it for every method, the shipped ones included; rename it'], caller, files{1}, others{1});
    end
    addpath(folders{i});
  end
end

function opts = to_json_options(opts)
  keys = fieldnames(opts);
  for i = 1:numel(keys)
    value = opts.(keys{i});
    if islogical(value)
      opts.(keys{i}) = logical(value);
    elseif isnumeric(value) && isscalar(value) && value == fix(value) && ~any(strcmp(keys{i}, ...
        {'mlknn_smooth', 'p_min', 'p_max', 'p_step', 'p_target'}))
      opts.(keys{i}) = int64(value);
    end
  end
end
