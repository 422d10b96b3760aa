function G = mlfs_gram_matrix(X, row_scale)
%MLFS_GRAM_MATRIX  (RX)'(RX) (d×d), R = diag(row_scale) (the identity without it), full and exactly
%   symmetric. X (n×d) is full, or sparse from mlfs_gram_operand: a symmetric rank-k product of the
%   full X, or the sparse product (the same sums in another order). Twin of
%   pipeline.methods._common.gram_matrix.
  if nargin > 1 && issparse(X)
    X = spdiags(row_scale(:), 0, numel(row_scale), numel(row_scale)) * X;  % stays sparse; no n×n full
  elseif nargin > 1
    X = row_scale(:) .* X;  % MATLAB's diag(v) would be a full n×n matrix
  end
  G = full(X.' * X);
end
