function [p, k] = mlfs_pgrid_values(d, p_min, p_max, p_step)
%MLFS_PGRID_VALUES  numpy.arange(p_min, p_max + 1e-12, p_step) kept to 0 < p <= 1, and
%   k = min(d, max(1, round_half_even(p*d))) for each p.
%   NumPy's arange has ceil((stop - start)/step) elements, element i being start + i*delta with
%   delta = (start + step) - start; both are reproduced so the p values match to the bit.
  stop = p_max + 1e-12;
  n = max(0, ceil((stop - p_min) / p_step));
  delta = (p_min + p_step) - p_min;
  p = p_min + (0:n-1) * delta;
  p = p(p > 0 & p <= 1);
  k = min(d, max(1, mlfs_round_half_even(p * d)));
end
