function ranges = mlfs_parameter_ranges(method)
%MLFS_PARAMETER_RANGES  What each parameter of a shipped method may be beyond its type: the
%   Octave twin of MethodSpec.allowed (pipeline/methods/<method>.py). A test compares the two for
%   every shipped method, so they cannot drift. ranges: struct parameter -> struct('low', 'high',
%   'low_open', 'high_open', 'choices') ([] = no bound, {} = no choices); struct() for a method
%   without declared ranges (plug-ins, the anchors). Checked by mlfs_check_param_ranges.
%   Why some bounds: tol < 1 because the authors' loops start with err = 1 (no iteration would
%   run); lsmfs's gamma > 0 keeps its W-step system non-singular.
%   The methods are matched in lower case on purpose: the code fingerprint follows every word that
%   names a function, and the upper-case names would tie each method's fingerprint to every other
%   method's file (an edit of one would make all of them stale).
  switch lower(method)
    case 'lrmfs'
      ranges = struct('alpha', non_negative(), 'beta', non_negative(), 'gamma', non_negative(), ...
                      'lambda', non_negative(), 'tol', fraction_below_one(), 'max_iter', at_least(1), ...
                      'mode', one_of({'fast', 'faithful'}));
    case 'lsmfs'
      ranges = struct('alpha', non_negative(), 'beta', non_negative(), 'lambda', non_negative(), ...
                      'gamma', positive(), 'tol', fraction_below_one(), 'max_iter', at_least(1), ...
                      'divergence_limit', positive());
    case {'lrdg', 'rfsfs'}
      ranges = struct('alpha', non_negative(), 'beta', non_negative(), 'gamma', non_negative(), ...
                      'max_iter', at_least(1), 'divergence_limit', positive());
    case 'srfs'
      ranges = struct('alpha', non_negative(), 'beta', non_negative(), 'gamma', non_negative(), ...
                      'tol', non_negative(), 'max_iter', at_least(1));
    case 'scnmf'
      ranges = struct('lambda1', non_negative(), 'lambda2', non_negative(), 'tol', non_negative(), ...
                      'max_iter', at_least(1));
    case 'grro'
      ranges = struct('num_bins', at_least(2));
    otherwise
      ranges = struct();
  end
end

function r = bounds(low, high, low_open, high_open)
  r = struct('low', low, 'high', high, 'low_open', low_open, 'high_open', high_open, 'choices', {{}});
end

function r = non_negative()
  r = bounds(0, [], false, false);
end

function r = positive()
  r = bounds(0, [], true, false);
end

function r = at_least(low)
  r = bounds(low, [], false, false);
end

function r = fraction_below_one()
  r = bounds(0, 1, false, true);
end

function r = one_of(choices)
  r = struct('low', [], 'high', [], 'low_open', false, 'high_open', false, 'choices', {choices});
end
