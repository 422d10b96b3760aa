function block = mlknn_block_columns(n_rows)
%MLKNN_BLOCK_COLUMNS  Columns per block so that one block of doubles takes about 2 MB (cache-sized).
  block = max(1, floor(2^18 / max(1, n_rows)));
end
