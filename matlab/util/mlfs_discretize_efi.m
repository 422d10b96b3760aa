function codes = mlfs_discretize_efi(X, num_bins)
%MLFS_DISCRETIZE_EFI  Equal-frequency codes 1..num_bins of each column of X (n×d).
%   Thresholds: sort(x)(round(k*n/num_bins)) for k = 1..num_bins (MATLAB round: halves away from
%   zero), duplicates removed; code = 1 + number of distinct thresholds strictly below the value.
%   With 2 bins the result is binary: 1 if x <= the lower median, 2 otherwise. Twin of
%   pipeline.methods.grro.discretize_equal_frequency.
  n = size(X, 1);
  mlfs_require(num_bins >= 2 && num_bins == fix(num_bins) && n >= num_bins, 'mlfs:discretize:badInput', ...
    'mlfs_discretize_efi: need an integer num_bins >= 2 and at least num_bins rows (n = %d)', n);
  positions = floor((1:num_bins) * n / num_bins + 0.5);
  sorted = sort(X, 1);
  thresholds = sorted(positions, :);
  distinct = true(size(thresholds));
  distinct(2:end, :) = thresholds(2:end, :) ~= thresholds(1:end-1, :);
  codes = ones(size(X));
  for k = 1:num_bins
    codes = codes + (distinct(k, :) & (X > thresholds(k, :)));
  end
end
