function prior = mlknn_prior(Ytr, Smooth)
%MLKNN_PRIOR  Prior_l = (s + #positives of label l) / (2s + n_train), 1×L.
  prior = (Smooth + sum(Ytr, 1)) ./ (2 * Smooth + size(Ytr, 1));
end
