function nbrs = mlknn_neighbours(D, Num)
%MLKNN_NEIGHBOURS  The Num nearest reference rows of each query column, by (distance, row index).
%   D: n_ref × n_query squared distances. nbrs: Num × n_query row indices. min returns the first
%   index of a tied minimum, so equal distances go to the lower training index; each chosen entry
%   is then set to Inf before the next pass. Done per cache-sized block of columns.
  [n_ref, n_query] = size(D);
  nbrs = zeros(Num, n_query);
  block = mlknn_block_columns(n_ref);
  for first = 1:block:n_query
    cols = first:min(first + block - 1, n_query);
    part = D(:, cols);
    offsets = (0:numel(cols)-1) * n_ref;
    for t = 1:Num
      [~, idx] = min(part, [], 1);
      nbrs(t, cols) = idx;
      part(idx + offsets) = Inf;
    end
  end
end
