function ap = metric_micro_pr_auc(outputs, Y)
%METRIC_MICRO_PR_AUC  Binary AP of all cells flattened label by label (index l*n + i; higher is better).
%   NaN when there is no positive cell.
  scores = outputs.';
  truth = Y.';
  ap = metric_binary_ap(scores(:), truth(:));
end
