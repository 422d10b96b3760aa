function loss = metric_hamming_loss(pred, Y)
%METRIC_HAMMING_LOSS  Share of the L·n cells where the prediction differs from the truth (lower is better).
  loss = sum(pred(:) ~= Y(:)) / numel(Y);
end
