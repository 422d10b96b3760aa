function f1 = metric_macro_f1(pred, Y)
%METRIC_MACRO_F1  Per-label F1 averaged over all L labels (higher is better).
%   A label with a zero denominator (no positives, none predicted) contributes 0; it is not skipped.
  tp = sum(pred & Y, 2);
  denom = 2 * tp + sum(pred & ~Y, 2) + sum(~pred & Y, 2);
  per_label = zeros(size(tp));
  ok = denom > 0;
  per_label(ok) = 2 * tp(ok) ./ denom(ok);
  f1 = mlfs_np_mean(per_label);
end
