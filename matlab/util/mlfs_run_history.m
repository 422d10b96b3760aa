function history = mlfs_run_history(varargin)
%MLFS_RUN_HISTORY  The record and log of one run in <results_dir>/runs/ (twin of pipeline.runner.history).
%   history = mlfs_run_history(results_dir, caller, arguments)  writes the opening record
%     runs/<RUN_ID>.json (finished: null) and starts runs/<RUN_ID>.log; RUN_ID is
%     <UTC start, YYYYMMDDTHHMMSS.FFFZ>_<host>_<pid> (with -2, -3, ... if the same process started
%     another run in the same millisecond), so no two runs share a file.
%   mlfs_run_history(history, 'log', line)    appends one line to the run's log.
%   mlfs_run_history(history, 'finish', summary)  writes the closing record (end time, summary).
%   The record holds the command, the arguments, the Octave/MATLAB version and BLAS, the variables
%   that choose BLAS kernels and threads, the git commit and whether the tree was dirty, the start
%   and end times and the summary.
  if ischar(varargin{1})
    history = open_run(varargin{:});
    return
  end
  history = varargin{1};
  switch varargin{2}
    case 'log'
      append_line(history.log_path, varargin{3});
    case 'finish'
      history.record.finished = utc_now('iso');
      history.record.summary = varargin{3};
      mlfs_write_json_atomic(history.record_path, history.record);
  end
end

function history = open_run(results_dir, caller, arguments)
  layout = mlfs_results_layout();
  folder = fullfile(results_dir, layout.run_history_folder);
  if ~exist(folder, 'dir')
    [ok, msg] = mkdir(folder);
    mlfs_require(ok, 'mlfs:io:mkdir', 'cannot create folder %s: %s', folder, msg);
  end
  host = host_name();
  base = sprintf('%s_%s_%d', utc_now('compact'), host, mlfs_process_id());
  run_id = base;
  n = 1;
  while exist(fullfile(folder, [run_id '.json']), 'file')
    n = n + 1;
    run_id = sprintf('%s-%d', base, n);
  end
  history.record_path = fullfile(folder, [run_id '.json']);
  history.log_path = fullfile(folder, [run_id '.log']);
  history.record = struct('run_id', run_id, 'command', caller, 'arguments', arguments, ...
    'versions', mlfs_runtime_versions(), 'git', mlfs_git_state(), 'environment', numerics_environment(), ...
    'host', host, 'pid', int64(mlfs_process_id()), ...
    'started', utc_now('iso'), 'finished', [], 'summary', [], 'log', [run_id '.log']);
  mlfs_write_json_atomic(history.record_path, history.record);
end

function env = numerics_environment()
%NUMERICS_ENVIRONMENT  The variables that choose BLAS kernels and threads (null when unset).
  names = {'OPENBLAS_CORETYPE', 'OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'MKL_CBWR', ...
           'NUMBA_NUM_THREADS'};
  env = struct();
  for i = 1:numel(names)
    value = getenv(names{i});
    env.(names{i}) = mlfs_ifelse(isempty(value), NaN, value);   % NaN: null, as Python writes None
  end
end

function append_line(path, line)
  fid = fopen(path, 'a');
  mlfs_require(fid >= 0, 'mlfs:io:open', 'cannot append to %s', path);
  fprintf(fid, '%s %s\n', utc_now('iso'), line);
  fclose(fid);
end

function text = utc_now(style)
  if mlfs_is_octave()
    t = time() / 86400 + datenum(1970, 1, 1);
  else
    t = datenum(datetime('now', 'TimeZone', 'UTC'));
  end
  if strcmp(style, 'compact')
    text = datestr(t, 'yyyymmddTHHMMSS.FFFZ');
  else
    text = datestr(t, 'yyyy-mm-ddTHH:MM:SS+00:00');
  end
end

function name = host_name()
  if mlfs_is_octave()
    name = gethostname();
  else
    name = char(java.net.InetAddress.getLocalHost().getHostName());
  end
  name = regexprep(name, '[^A-Za-z0-9.-]', '-');
  name = regexprep(name(1:min(end, 40)), '^[.-]+|[.-]+$', '');
  if isempty(name)
    name = 'host';
  end
end
