function err = metric_one_error(outputs, Y)
%METRIC_ONE_ERROR  Share of instances whose top label (first maximum, lowest label index) is not
%   relevant; instances without relevant labels always count as errors (lower is better).
  [L, n] = size(outputs);
  [~, top] = max(outputs, [], 1);
  err = sum(~Y(top + (0:n-1) * L)) / n;
end
