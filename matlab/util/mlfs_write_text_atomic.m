function mlfs_write_text_atomic(path, text)
%MLFS_WRITE_TEXT_ATOMIC  Write text to path through a temporary file in the same folder + rename.
%   A reader sees the old complete file or the new complete file, never a partial one.
  folder = fileparts(path);
  if ~isempty(folder) && ~exist(folder, 'dir')
    [ok, msg] = mkdir(folder);
    mlfs_require(ok, 'mlfs:io:mkdir', 'cannot create folder %s: %s', folder, msg);
  end
  [~, base, ext] = fileparts(path);
  tmp = fullfile(folder, sprintf('.%s%s.%d%06d.tmp', base, ext, mlfs_process_id(), randi(999999)));
  fid = fopen(tmp, 'w');
  mlfs_require(fid >= 0, 'mlfs:io:open', 'cannot write %s', tmp);
  try
    count = fwrite(fid, text, 'char');
    mlfs_require(count == numel(text), 'mlfs:io:write', 'short write to %s', tmp);
    mlfs_require(fclose(fid) == 0, 'mlfs:io:write', 'cannot close %s', tmp);
    fid = -1;
    move_over(tmp, path);
  catch err
    if fid >= 0
      fclose(fid);
    end
    if exist(tmp, 'file')
      delete(tmp);
    end
    rethrow(err);
  end
end

function move_over(source, target)
  if mlfs_is_octave()
    [status, msg] = rename(source, target);
    mlfs_require(status == 0, 'mlfs:io:rename', 'cannot rename %s to %s: %s', source, target, msg);
  else
    [ok, msg] = movefile(source, target, 'f');
    mlfs_require(ok, 'mlfs:io:rename', 'cannot rename %s to %s: %s', source, target, msg);
  end
end
