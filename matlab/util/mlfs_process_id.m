function pid = mlfs_process_id()
%MLFS_PROCESS_ID  The id of the Octave/MATLAB process.
  if mlfs_is_octave()
    pid = getpid();
  else
    pid = feature('getpid');
  end
end
