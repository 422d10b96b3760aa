function varargout = mlfs_seeded_uniform(seed, varargin)
%MLFS_SEEDED_UNIFORM  U(0,1) matrices of the given sizes from one MT19937 stream seeded with seed.
%   [A, B] = mlfs_seeded_uniform(seed, [m1 n1], [m2 n2]) draws A then B, each filled in column-major
%   order; the caller's global random state is left untouched. The stream is seeded as Octave's
%   rand('twister', seed) (init_by_array([seed])), so these are exactly the matrices the Python
%   harness passes as init (pipeline.methods.starts.UniformStream): both front doors start every
%   random-start method from the same point (docs/methods/README.md).
%   In MATLAB the same state is loaded into a mt19937ar RandStream (mlfs_mt_init_by_array); that
%   path is untested here (no MATLAB), the state itself is tested against Octave's.
  if mlfs_is_octave()
    mlfs_check_seed(seed);
    saved = rand('twister');
    rand('twister', seed);
    for i = 1:numel(varargin)
      varargout{i} = rand(varargin{i});
    end
    rand('twister', saved);
  else
    stream = RandStream('mt19937ar');
    stream.State = uint32([mlfs_mt_init_by_array(seed); 624]);   % 624 = the index of a fresh state
    for i = 1:numel(varargin)
      varargout{i} = rand(stream, varargin{i});
    end
  end
end
