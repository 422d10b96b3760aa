function S = mlfs_label_cosine_similarity(Y)
%MLFS_LABEL_COSINE_SIMILARITY  Cosine similarity of the label columns of Y (n×L) -> L×L, 0 for an
%   all-zero column (scikit-learn's cosine_similarity convention, used by SRFS). Twin of
%   pipeline.methods._common.label_cosine_similarity.
  Y = double(Y);
  norms = sqrt(sum(Y .* Y, 1));
  S = (Y.' * Y) ./ (norms.' * norms);
  S(~isfinite(S)) = 0;
end
