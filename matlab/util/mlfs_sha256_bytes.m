function digest = mlfs_sha256_bytes(bytes)
%MLFS_SHA256_BYTES  Lower-case hex SHA-256 of a uint8 vector (or of a char row's bytes).
  bytes = uint8(bytes(:));
  if mlfs_is_octave()
    digest = hash('sha256', char(bytes.'));
  else
    engine = java.security.MessageDigest.getInstance('SHA-256');
    engine.update(typecast(bytes, 'int8'));
    digest = lower(reshape(dec2hex(typecast(engine.digest(), 'uint8'), 2).', 1, []));
  end
end
