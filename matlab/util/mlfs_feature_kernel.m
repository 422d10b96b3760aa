function [H, sigma] = mlfs_feature_kernel(XtX)
%MLFS_FEATURE_KERNEL  Gaussian kernel of the feature columns from their Gram matrix X'X (d×d).
%   Squared distances g_j + g_k - 2 (X'X)_jk (the kernelmatrix expansion), clamped at 0 with a zero
%   diagonal; sigma = mean Euclidean distance over the pairs j < k (1 if there are none or all are
%   0); H = exp(-D2 / (2 sigma^2)). Twin of pipeline.methods.scnmf.gaussian_feature_kernel.
  g = diag(XtX);
  squared = max(g + g.' - 2 * XtX, 0);
  d = size(squared, 1);
  squared(1:d+1:end) = 0;
  upper = sqrt(squared(triu(true(d), 1)));
  sigma = 1;
  if ~isempty(upper) && mean(upper) > 0
    sigma = mean(upper);
  end
  H = exp(-squared / (2 * sigma * sigma));
end
