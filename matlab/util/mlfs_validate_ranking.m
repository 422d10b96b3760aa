function ranking = mlfs_validate_ranking(values, d, source)
%MLFS_VALIDATE_RANKING  values must be a 1-based permutation of 1..d; returns a 1×d double row.
%   A value out of range is reported as it is (e.g. 1e+30), as pipeline.rankings.validate_ranking.
%   Error identifiers: mlfs:ranking:notInteger, :wrongLength, :zeroBased, :outOfRange, :repeated.
  mlfs_require(isnumeric(values) && isreal(values), 'mlfs:ranking:notInteger', ...
               '%s: ranking holds non-numeric or complex values (expected integers 1..%d; found %s)', ...
               source, d, [mlfs_ifelse(isreal(values), '', 'complex ') class(values)]);
  ranking = double(values(:)).';
  bad = find(~isfinite(ranking) | ranking ~= fix(ranking), 1);
  mlfs_require(isempty(bad), 'mlfs:ranking:notInteger', ...
               '%s: ranking holds non-integer values (expected integers 1..%d; found %.17g (entry %d))', ...
               source, d, ranking(bad), bad);
  mlfs_require(numel(ranking) == d, 'mlfs:ranking:wrongLength', ...
               '%s: ranking has the wrong length (expected %d entries, found %d)', source, d, numel(ranking));
  mlfs_require(~any(ranking == 0), 'mlfs:ranking:zeroBased', '%s: ranking looks 0-based (expected 1-based indices 1..%d)', source, d);
  bad = find(ranking < 1 | ranking > d, 1);
  mlfs_require(isempty(bad), 'mlfs:ranking:outOfRange', ...
               '%s: ranking index out of range (expected values in 1..%d; found %.17g (entry %d))', source, d, ranking(bad), bad);
  counts = accumarray(ranking(:), 1, [d 1]);
  dup = find(counts > 1, 1);
  mlfs_require(isempty(dup), 'mlfs:ranking:repeated', '%s: ranking repeats feature %d', source, dup);
end
