function D = mlknn_accumulate(D, ref, query, symmetric)
%MLKNN_ACCUMULATE  Add features to squared distances: for f = 1..size(ref,2), in order,
%   D(i,j) = D(i,j) + (ref(i,f) - query(j,f))^2, the canonical accumulation of every evaluator.
%   ref: n_ref × c and query: n_query × c hold the c new feature columns in ranking order.
%   symmetric (default false): ref and query are the same rows (training × training); only the
%   upper triangle is accumulated and the lower one copied from it, which is exact because
%   (a - b)^2 and (b - a)^2 are the same double.
%   The work is done one block of ~2 MB of columns of D at a time, all c features per block, so the
%   block stays in cache and D is read and written once per call instead of three times per
%   feature; each entry still receives its terms one feature at a time, in ranking order.
  if nargin < 4
    symmetric = false;
  end
  [n_ref, n_query] = size(D);
  block = mlknn_block_columns(n_ref);
  for first = 1:block:n_query
    cols = first:min(first + block - 1, n_query);
    rows = 1:n_ref;
    if symmetric
      rows = 1:cols(end);
    end
    part = D(rows, cols);
    for f = 1:size(ref, 2)
      diff = ref(rows, f) - query(cols, f).';
      part = part + diff .* diff;
    end
    D(rows, cols) = part;
  end
  if symmetric
    for first = 1:block:n_query
      cols = first:min(first + block - 1, n_query);
      below = cols(end)+1:n_ref;
      D(below, cols) = D(cols, below).';
    end
  end
end
