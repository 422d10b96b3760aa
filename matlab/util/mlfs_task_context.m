function context = mlfs_task_context(method, rank, git, plugin_dirs)
%MLFS_TASK_CONTEXT  What every task of one method shares within a run, computed once per run:
%   struct('code', struct('method', fingerprint or [], 'evaluator', fingerprint), 'git', state,
%   'defaults', struct or []). rank = false (external rankings): no method fingerprint. git:
%   mlfs_git_state() when omitted. plugin_dirs: the run's plug-in folders; a method found there is
%   a plug-in: its no-argument call gives its default parameters (defaults), and an error there
%   (mlfs:plugins:noDefaults) stops the run before any task. A method found elsewhere on the path
%   is fingerprinted by its file and gets its parameters as given (defaults = []).
  if nargin < 3 || isempty(git)
    git = mlfs_git_state();
  end
  if nargin < 4
    plugin_dirs = {};
  end
  code = struct('method', [], 'evaluator', mlfs_code_fingerprint('MLKNN_eval_kgrid'));
  defaults = [];
  if rank
    code.method = mlfs_code_fingerprint(method, plugin_dirs);
    if in_plugin_folder(method, plugin_dirs)
      defaults = plugin_defaults(method);
    end
  end
  context = struct('code', code, 'git', git, 'defaults', defaults);
end

function yes = in_plugin_folder(method, plugin_dirs)
  yes = any(cellfun(@(folder) exist(fullfile(folder, [method '.m']), 'file') == 2, plugin_dirs));
end

function defaults = plugin_defaults(method)
  try
    defaults = mlfs_plugin_defaults(method);
  catch err
    error('mlfs:plugins:noDefaults', '%s: calling %s() with no argument must return its default parameters: %s', ...
          which(method), method, err.message);
  end
  mlfs_require(isstruct(defaults) && isscalar(defaults), 'mlfs:plugins:noDefaults', ...
    '%s: calling %s() with no argument must return its default parameters as a struct', which(method), method);
end
