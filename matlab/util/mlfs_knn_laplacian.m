function L = mlfs_knn_laplacian(points, k)
%MLFS_KNN_LAPLACIAN  Laplacian of the symmetrised binary k-NN graph of the COLUMNS of points.
%   For each column, sort its Euclidean distance row ascending (stable), skip the first entry
%   (assumed to be itself) and link the next k with weight 1; G = (G + G')/2; L = diag(G*1) - G.
%   Needs more than k columns. Twin of pipeline.methods._common.knn_binary_laplacian.
  m = size(points, 2);
  mlfs_require(m > k, 'mlfs:knn_laplacian:tooFewPoints', ...
    'the k-NN graph needs more points than neighbours (k = %d, %d columns)', k, m);
  D = mlfs_pdist2(points.', points.', 'euclidean');
  [~, order] = sort(D, 2);
  G = zeros(m, m);
  if k > 0
    rows = repmat((1:m).', 1, k);
    G(sub2ind([m, m], rows(:), reshape(order(:, 2:k+1), [], 1))) = 1;
  end
  G = (G + G.') / 2;
  L = diag(sum(G, 2)) - G;
end
