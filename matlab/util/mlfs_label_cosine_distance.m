function LL = mlfs_label_cosine_distance(Y)
%MLFS_LABEL_COSINE_DISTANCE  Cosine distance between the label columns of Y (n×L) -> L×L.
%   pdist2(Y', Y', 'cosine') with NaN (an all-zero label column) set to 0, the GRRO and SCNMF
%   code's convention. Twin of pipeline.methods._common.label_cosine_distance.
  Y = double(Y);
  norms = sqrt(sum(Y .* Y, 1));
  LL = 1 - (Y.' * Y) ./ (norms.' * norms);
  LL(~isfinite(LL)) = 0;
end
