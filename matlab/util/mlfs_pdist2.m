function D = mlfs_pdist2(A, B, metric)
%MLFS_PDIST2  Pairwise distances between the rows of A (m×p) and of B (k×p) -> m×k (toolbox-free).
%   metric: 'euclidean' (direct differences, so identical rows give exactly 0, as pdist2 does),
%   'sqeuclidean' (squared, direct) or 'cosine' (1 - a*b'/(|a||b|); NaN where a row is all zero,
%   as MATLAB's pdist2 returns). Replaces the Statistics toolbox's pdist2 for these metrics.
  mlfs_require(isnumeric(A) && isnumeric(B) && ismatrix(A) && ismatrix(B) && size(A, 2) == size(B, 2), ...
    'mlfs:pdist2:badInput', 'mlfs_pdist2: A and B must be numeric matrices with the same number of columns');
  A = double(A);
  B = double(B);
  switch metric
    case {'euclidean', 'sqeuclidean'}
      D = zeros(size(A, 1), size(B, 1));
      for j = 1:size(B, 1)
        difference = A - B(j, :);
        D(:, j) = sum(difference .* difference, 2);
      end
      if strcmp(metric, 'euclidean')
        D = sqrt(D);
      end
    case 'cosine'
      D = 1 - (A * B.') ./ (sqrt(sum(A .* A, 2)) * sqrt(sum(B .* B, 2)).');
    otherwise
      error('mlfs:pdist2:badMetric', 'mlfs_pdist2: unknown metric ''%s'' (euclidean, sqeuclidean, cosine)', metric);
  end
end
