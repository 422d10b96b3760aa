function nbrs = mlknn_neighbours(D, Num)
%MLKNN_NEIGHBOURS  The Num nearest reference rows of each query column, by (distance, row index).
%   D: n_ref × n_query squared distances. nbrs: Num × n_query row indices. min returns the first
%   index of a tied minimum, so equal distances go to the lower training index; each chosen entry
%   is then set to Inf before the next pass.
  n_query = size(D, 2);
  nbrs = zeros(Num, n_query);
  offsets = (0:n_query-1) * size(D, 1);
  for t = 1:Num
    [~, idx] = min(D, [], 1);
    nbrs(t, :) = idx;
    D(idx + offsets) = Inf;
  end
end
