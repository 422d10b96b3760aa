function [outputs, seconds] = mlfs_isolated_call(fname, nout, varargin)
%MLFS_ISOLATED_CALL  fname(varargin{:}) with nout outputs (a 1×nout cell), and the session state it
%   may change (path, working folder, random generators, warnings: mlfs_session_state) put back
%   afterwards, whether it returns or errors: one method cannot change what the methods after it
%   compute in the same session. seconds: the call's own wall time (not the putting back).
%   An error of the call is rethrown once the state is back.
  saved = mlfs_session_state();
  outputs = cell(1, nout);
  try
    started = tic;
    [outputs{:}] = feval(fname, varargin{:});
    seconds = toc(started);
  catch err
    mlfs_session_state(saved);
    rethrow(err);
  end
  mlfs_session_state(saved);
end
