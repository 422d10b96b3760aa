function context = mlfs_task_context(method, rank, git)
%MLFS_TASK_CONTEXT  What every task of one method shares within a run, computed once per run:
%   struct('code', struct('method', fingerprint or [], 'evaluator', fingerprint), 'git', state).
%   rank = false (external rankings): no method fingerprint. git: mlfs_git_state() when omitted.
  if nargin < 3
    git = mlfs_git_state();
  end
  code = struct('method', [], 'evaluator', mlfs_code_fingerprint('MLKNN_eval_kgrid'));
  if rank
    code.method = mlfs_code_fingerprint(method);
  end
  context = struct('code', code, 'git', git);
end
