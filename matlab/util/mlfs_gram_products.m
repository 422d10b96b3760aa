function [gram_w, fit] = mlfs_gram_products(fold, W)
%MLFS_GRAM_PRODUCTS  X'XW (d×L) and the fit |XW - Y|^2 at W, for a fold from mlfs_gram_fold.
%   From the cached Gram matrix: X'XW and <W, X'XW> - 2<W, X'Y> + |Y|^2 (no n×L temporary);
%   otherwise through XW (no d×d matrix), computed as Xt.' * W (X * W with the same sums, three
%   times faster in Octave for a sparse X). Twin of pipeline.methods._common.GramProducts.__call__.
  if ~isempty(fold.gram)
    gram_w = fold.gram * W;
    fit = sum(sum(W .* gram_w)) - 2 * sum(sum(W .* fold.XtY)) + fold.Y_norm2;
  else
    XW = full(fold.Xt.' * W);
    residual = XW - fold.Y;
    gram_w = full(fold.X.' * XW);
    fit = sum(sum(residual .* residual));
  end
end
