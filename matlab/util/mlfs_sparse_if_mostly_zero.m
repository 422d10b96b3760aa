function X = mlfs_sparse_if_mostly_zero(X)
%MLFS_SPARSE_IF_MOSTLY_ZERO  X as a sparse matrix when under 30 % of it is non-zero, else X unchanged.
%   Speed only: the text data sets are 92-99 % zeros, and products with the sparse form skip them
%   (the same products up to the order of the additions). Twin of
%   pipeline.methods._common.sparse_if_mostly_zero.
  if nnz(X) < 0.3 * numel(X)
    X = sparse(X);
  end
end
