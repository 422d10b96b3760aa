function ranking = mlfs_validate_ranking(values, d, source)
%MLFS_VALIDATE_RANKING  values must be a 1-based permutation of 1..d; returns a 1×d double row.
%   Error identifiers: mlfs:ranking:notInteger, :wrongLength, :zeroBased, :outOfRange, :repeated.
  ranking = double(values(:)).';
  mlfs_require(all(isfinite(ranking)) && all(ranking == fix(ranking)), 'mlfs:ranking:notInteger', ...
               '%s: ranking holds non-integer values (expected integers 1..%d)', source, d);
  mlfs_require(numel(ranking) == d, 'mlfs:ranking:wrongLength', ...
               '%s: ranking has the wrong length (expected %d entries, found %d)', source, d, numel(ranking));
  mlfs_require(~any(ranking == 0), 'mlfs:ranking:zeroBased', '%s: ranking looks 0-based (expected 1-based indices 1..%d)', source, d);
  mlfs_require(all(ranking >= 1 & ranking <= d), 'mlfs:ranking:outOfRange', ...
               '%s: ranking index out of range (expected values in 1..%d)', source, d);
  counts = accumarray(ranking(:), 1, [d 1]);
  dup = find(counts > 1, 1);
  mlfs_require(isempty(dup), 'mlfs:ranking:repeated', '%s: ranking repeats feature %d', source, dup);
end
