function digest = mlfs_sha256_file(path)
%MLFS_SHA256_FILE  Lower-case hex SHA-256 of a file's bytes ('' if it does not exist).
  if ~exist(path, 'file')
    digest = '';
    return
  end
  digest = mlfs_sha256_bytes(mlfs_read_bytes(path));
end
