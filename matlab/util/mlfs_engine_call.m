function [outputs, failure] = mlfs_engine_call(fname, nout, varargin)
%MLFS_ENGINE_CALL  Call fname(varargin{:}) with nout outputs for the Python bridges; never throws.
%   outputs: 1×nout cell of results ({} on failure). failure: '' on success, else a struct with the
%   error's identifier, message and a one-line call stack, so the Python side can report the
%   method, the task and the Octave/MATLAB message instead of a bridge traceback.
  outputs = {};
  failure = '';
  try
    results = cell(1, nout);
    [results{:}] = feval(fname, varargin{:});
    outputs = results;
  catch err
    where = '';
    if ~isempty(err.stack)
      frames = arrayfun(@(s) sprintf('%s:%d', s.name, s.line), err.stack(:).', 'UniformOutput', false);
      where = strjoin(frames, ' <- ');
    end
    failure = struct('identifier', err.identifier, 'message', err.message, 'stack', where);
  end
end
