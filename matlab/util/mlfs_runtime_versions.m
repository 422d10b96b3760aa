function versions = mlfs_runtime_versions()
%MLFS_RUNTIME_VERSIONS  The interpreter and its BLAS/LAPACK, as recorded in result provenance.
  if mlfs_is_octave()
    versions = struct('octave', version(), 'blas', version('-blas'), 'lapack', version('-lapack'));
  else
    versions = struct('matlab', version(), 'blas', version('-blas'), 'lapack', version('-lapack'));
  end
end
