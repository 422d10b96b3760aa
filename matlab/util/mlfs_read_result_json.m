function value = mlfs_read_result_json(path, what)
%MLFS_READ_RESULT_JSON  A JSON file a run wrote and now reads back (metrics file, ranking record),
%   within the bounds of definitions.json's result_files, which Python reads too: at most 64 MiB,
%   checked before it is read, and nested at most 32 levels, checked on the text before
%   jsondecode, which a deeper file (a damaged or hostile one) crashes by recursion. Brackets
%   inside strings do not count. Error identifiers: mlfs:file:notRegular, mlfs:result:tooLarge, :tooDeep (callers treat
%   such a file as unreadable).
  definitions = mlfs_definitions();
  max_bytes = definitions.result_files.max_bytes;
  max_depth = definitions.result_files.max_depth;
  mlfs_regular_file(path, what);  % a FIFO or a device: refused before fileread blocks on it
  info = dir(path);
  mlfs_require(info.bytes <= max_bytes, 'mlfs:result:tooLarge', ...
    '%s: %s too large (expected at most %d bytes; found %d bytes)', path, what, max_bytes, info.bytes);
  text = fileread(path);
  depth = mlfs_json_shape(text);
  mlfs_require(depth <= max_depth, 'mlfs:result:tooDeep', ...
    '%s: %s nested too deeply (expected at most %d levels; found %d)', path, what, max_depth, depth);
  value = jsondecode(text);
end
