function [p, k] = mlfs_pgrid_values(d, p_min, p_max, p_step)
%MLFS_PGRID_VALUES  numpy.arange(p_min, p_max + 1e-12, p_step) without the values above 1, and
%   k = min(d, max(1, round_half_even(p*d))) for each p. The bounds are checked at the front door
%   (mlfs_check_grid_options: each in (0, 1], p_min <= p_max), so only arange's float noise can pass 1.
%   NumPy's arange has ceil((stop - start)/step) elements, element i being start + i*delta with
%   delta = (start + step) - start; both are reproduced so the p values match to the bit.
  stop = p_max + 1e-12;
  n = max(0, ceil((stop - p_min) / p_step));
  delta = (p_min + p_step) - p_min;
  p = p_min + (0:n-1) * delta;
  p = p(p <= 1);
  k = min(d, max(1, mlfs_round_half_even(p * d)));
end
