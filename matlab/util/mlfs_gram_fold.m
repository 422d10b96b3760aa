function fold = mlfs_gram_fold(X, Y, XtY)
%MLFS_GRAM_FOLD  What mlfs_gram_products needs to give X'XW and |XW - Y|^2 of a training fold.
%   X: n×d, Y: n×L, XtY = X'Y. With d <= n the Gram matrix X'X is cached (fold.gram); otherwise X
%   is kept (sparse when under 30 % non-zero, with its transpose for Octave's fast X*W) and no d×d
%   matrix is formed. Twin of pipeline.methods._common.GramProducts.
  [n, d] = size(X);
  fold = struct('gram', [], 'X', [], 'Xt', [], 'Y', Y, 'XtY', XtY, 'Y_norm2', sum(sum(Y .* Y)));
  if d <= n
    fold.gram = mlfs_gram_matrix(mlfs_gram_operand(X));
  else
    fold.X = mlfs_sparse_if_mostly_zero(X);
    fold.Xt = fold.X.';
  end
end
