function [U, S, V] = mlfs_svd_econ(A)
%MLFS_SVD_ECON  svd(A, 'econ') by LAPACK's divide-and-conquer driver (gesdd), as NumPy's svd does. In
%   Octave, whose default driver is gesvd, that is 3.6x faster on a 499×374 matrix (the same
%   factorisation up to rounding); MATLAB chooses its driver itself.
  if mlfs_is_octave()
    previous = svd_driver('gesdd');
    restore = onCleanup(@() svd_driver(previous));
  end
  [U, S, V] = svd(A, 'econ');
end
