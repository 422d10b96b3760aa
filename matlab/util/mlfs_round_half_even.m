function r = mlfs_round_half_even(x)
%MLFS_ROUND_HALF_EVEN  Round to the nearest integer, halves to even (numpy.round), not MATLAB's round.
  r = round(x);
  halves = abs(x - fix(x)) == 0.5;
  r(halves) = 2 * round(x(halves) / 2);
end
