function [seconds, varargout] = mlfs_timed_call(fname, varargin)
%MLFS_TIMED_CALL  Call fname(varargin{:}) and also return its wall time inside MATLAB/Octave.
%   [seconds, out1, out2, ...] = mlfs_timed_call(fname, ...). Used to separate the bridge
%   overhead (transfer, conversion) from the computation in bench/bench_octave_bridge.py.
  started = tic;
  varargout = cell(1, max(nargout - 1, 0));
  [varargout{:}] = feval(fname, varargin{:});
  seconds = toc(started);
end
