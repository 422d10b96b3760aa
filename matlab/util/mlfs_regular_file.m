function n_bytes = mlfs_regular_file(path, what, max_bytes)
%MLFS_REGULAR_FILE  The size of PATH, once it is known to be a regular file of at most MAX_BYTES bytes
%   (Inf, or no third argument: any size), checked from its status without opening it: reading a
%   FIFO waits for a writer forever, and a link to a device such as /dev/zero never ends (dir and
%   exist report both as files of 0 bytes). A symbolic link is followed. Twin of
%   pipeline.fileio.open_regular_file, with its messages: mlfs:file:missing ('<path>: <what> not
%   found'), mlfs:file:notRegular ('<path>: <what> is not a regular file (expected a regular file;
%   found a FIFO (named pipe))'), mlfs:file:tooLarge.
  if nargin < 3
    max_bytes = Inf;
  end
  [kind, n_bytes] = file_kind(path);
  mlfs_require(~isempty(kind), 'mlfs:file:missing', '%s: %s not found', path, what);
  mlfs_require(strcmp(kind, 'regular'), 'mlfs:file:notRegular', ...
    '%s: %s is not a regular file (expected a regular file; found %s)', path, what, kind);
  mlfs_require(n_bytes <= max_bytes, 'mlfs:file:tooLarge', ...
    '%s: %s too large (expected at most %d bytes; found %d bytes)', path, what, max_bytes, n_bytes);
end

function [kind, n_bytes] = file_kind(path)
%FILE_KIND  'regular', what else PATH is (as pipeline.fileio names it), or '' when it does not exist.
  kind = '';
  n_bytes = 0;
  if mlfs_is_octave()
    [info, failed] = stat(path);
    if failed
      return
    end
    n_bytes = info.size;
    kinds = {@S_ISREG, 'regular'; @S_ISFIFO, 'a FIFO (named pipe)'; @S_ISCHR, 'a character device'; ...
             @S_ISBLK, 'a block device'; @S_ISDIR, 'a folder'; @S_ISSOCK, 'a socket'};
    kind = 'another kind of file';
    for i = 1:size(kinds, 1)
      if kinds{i, 1}(info.mode)
        kind = kinds{i, 2};
        return
      end
    end
  else  % MATLAB has no stat: Java's File.isFile is true for regular files only
    file = java.io.File(path);
    if ~file.exists()
      return
    end
    n_bytes = double(file.length());
    kind = mlfs_ifelse(file.isFile(), 'regular', mlfs_ifelse(file.isDirectory(), 'a folder', ...
      'a special file (a FIFO, a device or a socket)'));
  end
end
