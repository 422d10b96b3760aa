function mlfs_check_iterates(method, iteration, limit, varargin)
%MLFS_CHECK_ITERATES  Divergence guard of the Baselines II methods (LSMFS, LRDG, RFSFS).
%   mlfs_check_iterates(method, iteration, limit, 'W', W, 'V', V, ...) throws
%   mlfs:<method>:diverged, naming the method, the iteration and the iterate, when an iterate has
%   a non-finite entry or an entry larger than limit in magnitude (the divergence_limit parameter,
%   default 1e100; see docs/methods/README.md). Twin of pipeline.methods._divergence.check_iterates.
  id = sprintf('mlfs:%s:diverged', method);
  for i = 1:2:numel(varargin)
    name = varargin{i};
    value = varargin{i+1};
    bad = sum(~isfinite(value(:)));
    mlfs_require(bad == 0, id, '%s diverged at iteration %d: %s has non-finite entries (%d of %d)', ...
      method, iteration, name, bad, numel(value));
    peak = max([abs(value(:)); 0]);
    mlfs_require(peak <= limit, id, ...
      '%s diverged at iteration %d: an entry of %s exceeds divergence_limit (max |%s| = %.3g > %g)', ...
      method, iteration, name, name, peak, limit);
  end
end
