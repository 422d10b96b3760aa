function digest = mlfs_sha256_file(path)
%MLFS_SHA256_FILE  Lower-case hex SHA-256 of a file's bytes ('' if it does not exist).
  if ~exist(path, 'file')
    digest = '';
    return
  end
  fid = fopen(path, 'r');
  mlfs_require(fid >= 0, 'mlfs:io:open', 'cannot read %s', path);
  bytes = fread(fid, Inf, 'uint8=>uint8');
  fclose(fid);
  if mlfs_is_octave()
    digest = hash('sha256', char(bytes(:).'));
  else
    engine = java.security.MessageDigest.getInstance('SHA-256');
    engine.update(typecast(bytes(:), 'int8'));
    digest = lower(reshape(dec2hex(typecast(engine.digest(), 'uint8'), 2).', 1, []));
  end
end
