function bytes = mlfs_read_bytes(path)
%MLFS_READ_BYTES  A file's content as a uint8 column vector.
  fid = fopen(path, 'r');
  mlfs_require(fid >= 0, 'mlfs:io:open', 'cannot read %s', path);
  bytes = fread(fid, Inf, 'uint8=>uint8');
  fclose(fid);
end
