function D = mlknn_accumulate(D, ref, query)
%MLKNN_ACCUMULATE  Add features to squared distances: for f = 1..size(ref,2), in order,
%   D(i,j) = D(i,j) + (ref(i,f) - query(j,f))^2, the canonical accumulation of every evaluator.
%   ref: n_ref × c and query: n_query × c hold the c new feature columns in ranking order.
%   The work is done one block of ~2 MB of columns of D at a time, all c features per block, so the
%   block stays in cache and D is read and written once per call instead of three times per
%   feature; each entry still receives its terms one feature at a time, in ranking order.
  block = mlknn_block_columns(size(D, 1));
  for first = 1:block:size(D, 2)
    cols = first:min(first + block - 1, size(D, 2));
    part = D(:, cols);
    for f = 1:size(ref, 2)
      diff = ref(:, f) - query(cols, f).';
      part = part + diff .* diff;
    end
    D(:, cols) = part;
  end
end
