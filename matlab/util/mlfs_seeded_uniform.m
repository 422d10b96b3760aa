function varargout = mlfs_seeded_uniform(seed, varargin)
%MLFS_SEEDED_UNIFORM  U(0,1) matrices of the given sizes from a Mersenne Twister seeded with seed.
%   [A, B] = mlfs_seeded_uniform(seed, [m1 n1], [m2 n2]) draws A then B from one stream; the
%   caller's global random state is left untouched. Used by LRMFS and SRFS when no initial
%   matrices are passed (run_suite without 'init'); this is not NumPy's stream, so pass the
%   harness's init for rankings comparable with the Python engine.
  if mlfs_is_octave()
    saved = rand('twister');
    rand('twister', seed);
    for i = 1:numel(varargin)
      varargout{i} = rand(varargin{i});
    end
    rand('twister', saved);
  else
    stream = RandStream('mt19937ar', 'Seed', seed);
    for i = 1:numel(varargin)
      varargout{i} = rand(stream, varargin{i});
    end
  end
end
