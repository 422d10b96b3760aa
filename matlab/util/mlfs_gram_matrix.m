function G = mlfs_gram_matrix(X, row_scale)
%MLFS_GRAM_MATRIX  (RX)'(RX) (d×d), R = diag(row_scale) (the identity without it), full and exactly
%   symmetric. X (n×d) is full, or sparse from mlfs_gram_operand: a symmetric rank-k product of the
%   full X, or the sparse product (the same sums in another order). Twin of
%   pipeline.methods._common.gram_matrix.
  if nargin > 1
    X = diag(row_scale) * X;
  end
  G = full(X.' * X);
end
