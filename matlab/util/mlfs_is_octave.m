function tf = mlfs_is_octave()
%MLFS_IS_OCTAVE  True under GNU Octave, false under MATLAB.
  tf = exist('OCTAVE_VERSION', 'builtin') ~= 0;
end
