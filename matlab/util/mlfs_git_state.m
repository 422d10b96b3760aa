function state = mlfs_git_state()
%MLFS_GIT_STATE  struct('commit', sha or [], 'dirty', true/false or []) of the checkout matlab/ is in.
%   Twin of pipeline.runner.fingerprint.git_state (tracked files only decide "dirty").
  repo = fileparts(fileparts(fileparts(mfilename('fullpath'))));
  state = struct('commit', [], 'dirty', []);
  [code, commit] = system(sprintf('git -C "%s" rev-parse HEAD 2>/dev/null', repo));
  if code ~= 0
    return
  end
  state.commit = strtrim(commit);
  setenv('GIT_OPTIONAL_LOCKS', '0');  % no index refresh under .git/index.lock (a killed run would leave it)
  [code, changes] = system(sprintf('git -C "%s" status --porcelain --untracked-files=no 2>/dev/null', repo));
  if code == 0
    state.dirty = ~isempty(strtrim(changes));
  end
end
