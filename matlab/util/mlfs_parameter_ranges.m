function ranges = mlfs_parameter_ranges(method)
%MLFS_PARAMETER_RANGES  What each parameter of a shipped method may be beyond its type: the
%   Octave twin of MethodSpec.allowed (pipeline/methods/<method>.py). A test compares the two for
%   every shipped method, so they cannot drift. ranges: struct parameter -> struct('low', 'high',
%   'low_open', 'high_open', 'choices') ([] = no bound, {} = no choices); struct() for a method
%   without declared ranges (plug-ins, VARIANCE, LABELCORR). Checked by mlfs_method_params, at
%   the front door (mlfs_check_param_ranges) and again inside the method. Why some bounds: tol < 1
%   because the authors' loops start with err = 1 (no iteration would run); LSMFS's gamma > 0 keeps
%   its W-step system non-singular.
  switch method
    case 'LRMFS'
      ranges = struct('alpha', non_negative(), 'beta', non_negative(), 'gamma', non_negative(), ...
                      'lambda', non_negative(), 'tol', fraction_below_one(), 'max_iter', at_least(1), ...
                      'mode', one_of({'fast', 'faithful'}));
    case 'LSMFS'
      ranges = struct('alpha', non_negative(), 'beta', non_negative(), 'lambda', non_negative(), ...
                      'gamma', positive(), 'tol', fraction_below_one(), 'max_iter', at_least(1), ...
                      'divergence_limit', positive());
    case {'LRDG', 'RFSFS'}
      ranges = struct('alpha', non_negative(), 'beta', non_negative(), 'gamma', non_negative(), ...
                      'max_iter', at_least(1), 'divergence_limit', positive());
    case 'SRFS'
      ranges = struct('alpha', non_negative(), 'beta', non_negative(), 'gamma', non_negative(), ...
                      'tol', non_negative(), 'max_iter', at_least(1));
    case 'SCNMF'
      ranges = struct('lambda1', non_negative(), 'lambda2', non_negative(), 'tol', non_negative(), ...
                      'max_iter', at_least(1));
    case 'GRRO'
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
