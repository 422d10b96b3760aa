function mlfs_write_json_atomic(path, value)
%MLFS_WRITE_JSON_ATOMIC  Strict, sorted, indented JSON (see mlfs_json_encode) + newline, atomically.
  mlfs_write_text_atomic(path, [mlfs_json_encode(value) char(10)]);
end
