function A = mlfs_knn_heat_graph(F, k)
%MLFS_KNN_HEAT_GRAPH  Heat-kernel k-NN affinity of the ROWS of F (N×p) -> sparse N×N (LRDG's cLLR_k).
%   Squared distances |a|^2 + |b|^2 - 2a.b (absolute value); each row keeps its k+1 nearest rows
%   (itself normally first) with weight exp(-dist/2), ranked by the distance snapped to 1e-10 of the
%   largest squared row norm with ties to the lower index (exact duplicates, whose expanded
%   distances carry BLAS-dependent noise, tie exactly); then A = max(A, A'). Rows are processed in
%   blocks of 2^20 entries (memory only); an F under 5 % non-zero is multiplied as sparse (speed).
%   Twin of pipeline.methods.lrdg.heat_knn_graph.
  resolution = 1e-10;
  block_rows = max(1, floor(2^20 / max(size(F, 1), 1)));   % 8 MiB of distances at once
  N = size(F, 1);
  mlfs_require(N >= k + 1, 'mlfs:knn_heat_graph:tooFewPoints', ...
    'the k-NN graph needs at least k+1 points (k = %d, %d rows)', k, N);
  norms = sum(F .* F, 2);
  grid = resolution * max(norms);
  rows = zeros(N * (k + 1), 1);
  cols = rows;
  weights = rows;
  products = mlfs_gram_operand(F);      % a sparse F*F' beats BLAS only when very sparse, as X'X
  for start = 1:block_rows:N
    block = start:min(start + block_rows - 1, N);
    dist = -2 * full(products(block, :) * products.');     % (-2a.b + |a|^2) + |b|^2, NumPy's order
    dist = dist + norms(block);
    dist = abs(dist + norms.');
    if grid > 0
      key = floor(dist / grid + 0.5);
    else
      key = zeros(size(dist));
    end
    [col, row] = find(smallest_in_rows(key, k + 1).');   % row by row, columns ascending
    at = (start - 1) * (k + 1) + (1:numel(row));
    rows(at) = block(row);
    cols(at) = col;
    weights(at) = exp(-dist(sub2ind(size(dist), row, col)) / 2);
  end
  A = sparse(rows, cols, weights, N, N);
  A = max(A, A.');
end

function take = smallest_in_rows(key, count)
%SMALLEST_IN_ROWS  Mask of the count smallest entries of each row of key by (value, column), NaN after
%   every number: the first count of a stable ascending sort. A partial selection, O(N) per row
%   instead of a sort's O(N log N) in Octave: the count-th smallest value (nth_element; NaN if fewer
%   numbers), every entry below it, and the entries equal to it (or NaN when it is NaN) in column order.
  if mlfs_is_octave()
    threshold = nth_element(key, count, 2);  % Octave only
  else
    sorted = sort(key, 2);  % NaN last, as nth_element
    threshold = sorted(:, count);
  end
  short = isnan(threshold);
  below = key < threshold | (short & ~isnan(key));
  tied = key == threshold | (short & isnan(key));
  take = below | (tied & cumsum(tied, 2) <= count - sum(below, 2));
end
