function versions = mlfs_runtime_versions()
%MLFS_RUNTIME_VERSIONS  The interpreter and its BLAS/LAPACK, as recorded in result provenance, each
%   on one line with runs of white space as one space (as both front doors record them).
  if mlfs_is_octave()
    versions = struct('octave', one_line(version()), 'blas', one_line(version('-blas')), ...
                      'lapack', one_line(version('-lapack')));
  else
    versions = struct('matlab', one_line(version()), 'blas', one_line(version('-blas')), ...
                      'lapack', one_line(version('-lapack')));
  end
end

function text = one_line(text)
  text = regexprep(strtrim(text), '\s+', ' ');
end
