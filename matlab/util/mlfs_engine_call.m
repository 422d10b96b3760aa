function [outputs, failure, seconds, warned] = mlfs_engine_call(fname, nout, varargin)
%MLFS_ENGINE_CALL  Call fname(varargin{:}) with nout outputs for the Python bridges; never throws.
%   outputs: 1×nout cell of results ({} on failure). failure: '' on success, else a struct with the
%   error's identifier, message and a one-line call stack, so the Python side can report the
%   method, the task and the Octave/MATLAB message instead of a bridge traceback. seconds: the
%   call's own wall time inside Octave/MATLAB (no start-up, no data transfer). The session state
%   the call may change (path, working folder, random generators, warnings) is put back after it,
%   as after every method call (mlfs_isolated_call). warned: the messages of the warnings the call
%   printed, one per line ('' when none; pipeline.method_warnings).
  outputs = {};
  failure = '';
  seconds = NaN;
  warned = '';
  try
    [outputs, seconds, messages] = mlfs_isolated_call(fname, nout, varargin{:});
    warned = strjoin(messages, char(10));
  catch err
    where = '';
    if ~isempty(err.stack)
      frames = arrayfun(@(s) sprintf('%s:%d', s.name, s.line), err.stack(:).', 'UniformOutput', false);
      where = strjoin(frames, ' <- ');
    end
    failure = struct('identifier', err.identifier, 'message', err.message, 'stack', where);
  end
end
