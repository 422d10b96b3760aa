function bytes = mlfs_read_bytes(path, what, max_bytes)
%MLFS_READ_BYTES  A file's content as a uint8 column vector.
%   mlfs_read_bytes(path, what, max_bytes) reads only a regular file of at most max_bytes bytes
%   (default: any size), refused before it is opened otherwise (mlfs_regular_file: a FIFO or a
%   device would block or never end); what names the file in the messages (default 'file').
  if nargin < 2
    what = 'file';
  end
  if nargin < 3
    max_bytes = Inf;
  end
  mlfs_regular_file(path, what, max_bytes);
  fid = fopen(path, 'r');
  mlfs_require(fid >= 0, 'mlfs:io:open', 'cannot read %s', path);
  bytes = fread(fid, max_bytes + 1, 'uint8=>uint8');  % one more: a file that grew is refused too
  fclose(fid);
  mlfs_require(numel(bytes) <= max_bytes, 'mlfs:file:tooLarge', ...
    '%s: %s too large (expected at most %d bytes; found more, it grew while it was read)', path, what, max_bytes);
end
