function total = mlfs_np_sum(values)
%MLFS_NP_SUM  Sum of a vector in NumPy's pairwise order, so both front doors agree to the bit.
%   NumPy adds float64 arrays with 8 interleaved accumulators in blocks of up to 128 values and
%   splits longer arrays in halves (multiples of 8); below 8 values it adds left to right.
  values = double(values(:));
  n = numel(values);
  if n < 8
    total = 0;
    for i = 1:n
      total = total + values(i);
    end
  elseif n <= 128
    r = values(1:8);
    stop = n - mod(n, 8);
    for i = 9:8:stop
      r = r + values(i:i+7);
    end
    total = ((r(1) + r(2)) + (r(3) + r(4))) + ((r(5) + r(6)) + (r(7) + r(8)));
    for i = stop+1:n
      total = total + values(i);
    end
  else
    half = fix(n / 2);
    half = half - mod(half, 8);
    total = mlfs_np_sum(values(1:half)) + mlfs_np_sum(values(half+1:end));
  end
end
