function [outputs, seconds, warned] = mlfs_isolated_call(fname, nout, varargin)
%MLFS_ISOLATED_CALL  fname(varargin{:}) with nout outputs (a 1×nout cell), and the session state it
%   may change (path, working folder, random generators, warnings: mlfs_session_state) put back
%   afterwards, whether it returns or errors: one method cannot change what the methods after it
%   compute in the same session. seconds: the call's own wall time (not the putting back).
%   warned: the messages of the warnings the call printed (1×n cell of char, one per occurrence;
%   pipeline.method_warnings): its output is captured (evalc) to find them, then printed as it
%   came, so it still reaches the log. The backtrace of a warning is off during the call.
%   An error of the call is rethrown once the state is back.
  saved = mlfs_session_state();
  outputs = cell(1, nout);
  failure = [];
  backtrace = warning('query', 'backtrace');   % Octave's warning(saved.warnings) leaves it as it is
  warning('off', 'backtrace');                 % one line per warning
  started = tic;
  printed = evalc('try, [outputs{:}] = feval(fname, varargin{:}); catch failure, end');
  seconds = toc(started);
  mlfs_session_state(saved);
  warning(backtrace.state, 'backtrace');
  fprintf('%s', printed);
  warned = warning_messages(printed);
  if ~isempty(failure)
    rethrow(failure);
  end
end

function messages = warning_messages(printed)
%WARNING_MESSAGES  The text after 'warning: ' (Octave) or 'Warning: ' (MATLAB) of each line that
%   starts with it, but for a backtrace's heading ('called from').
  messages = {};
  if isempty(strfind(printed, 'arning: '))   % most calls print no warning: no pattern matching
    return
  end
  found = regexp(printed, '^[ \t]*[Ww]arning: ([^\n]*)$', 'tokens', 'lineanchors');
  messages = cellfun(@(t) strtrim(t{1}), found, 'UniformOutput', false);
  messages = messages(~strcmp(messages, 'called from'));
end
