function saved = mlfs_session_state(saved)
%MLFS_SESSION_STATE  Take (no argument) or put back (saved) the session state a method may change
%   and every later call in the same MATLAB/Octave session would inherit: the path (a folder added
%   there, or the working folder, can shadow var, mean or any function the shipped methods call),
%   the working folder, the random number generators and the warning states.
%   saved = mlfs_session_state();  ...call...;  mlfs_session_state(saved);
%   Taking and putting back cost a few milliseconds together in Octave (docs/reliability.md); the
%   path (tens of milliseconds to set) and the folder are set only when changed.
  if nargin == 0
    saved = struct('path', path(), 'folder', pwd(), 'random', {random_states()}, 'warnings', warning());
    return
  end
  if ~strcmp(pwd(), saved.folder)
    cd(saved.folder);
  end
  if ~strcmp(path(), saved.path)
    path(saved.path);         % also drops the functions found through removed folders from the
                              % lookup cache: no rehash needed (checked for nested calls, Octave 7.3)
  end
  set_random_states(saved.random);
  warning(saved.warnings);
end

function states = random_states()
  if mlfs_is_octave()
    % 'state' is the Mersenne twister of rand (same as 'twister'); setting it also ends the old
    % generator that rand('seed', x) selects. randn, rande, randg and randp have their own states.
    states = {rand('state'), randn('state'), rande('state'), randg('state'), randp('state')};
  else
    states = {rng()};
  end
end

function set_random_states(states)
  if mlfs_is_octave()
    rand('state', states{1});
    randn('state', states{2});
    rande('state', states{3});
    randg('state', states{4});
    randp('state', states{5});
  else
    rng(states{1});
  end
end
