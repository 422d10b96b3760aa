function k = mlfs_kgrid_values(d, k_min, k_max, k_step)
%MLFS_KGRID_VALUES  k_min:k_step:min(k_max, d); when that is empty (d < k_min), the single value d.
  k = k_min:k_step:min(k_max, d);
  if isempty(k)
    k = d;
  end
end
