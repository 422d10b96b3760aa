function f1 = metric_micro_f1(pred, Y)
%METRIC_MICRO_F1  2TP/(2TP+FP+FN) over all label-instance cells; 0 when the denominator is 0.
%   pred, Y: L × n logical (higher is better).
  tp = sum(pred(:) & Y(:));
  denom = 2 * tp + sum(pred(:) & ~Y(:)) + sum(~pred(:) & Y(:));
  if denom == 0
    f1 = 0;
  else
    f1 = 2 * tp / denom;
  end
end
