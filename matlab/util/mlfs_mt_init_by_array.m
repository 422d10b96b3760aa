function state = mlfs_mt_init_by_array(seed)
%MLFS_MT_INIT_BY_ARRAY  The 624-word MT19937 state of init_by_array([seed]) (the reference seeding).
%   state = mlfs_mt_init_by_array(seed) returns a 624×1 double vector of 32-bit words, the state
%   that GNU Octave's rand('twister', seed) and NumPy's RandomState([seed]) start from. MATLAB's
%   RandStream seeds with init_genrand instead, so mlfs_seeded_uniform loads this state into a
%   mt19937ar stream to draw the same numbers there. Arithmetic is exact in doubles: products of
%   32-bit words are split into 16-bit halves.
  mlfs_check_seed(seed);
  n = 624;
  mt = zeros(n, 1);
  mt(1) = 19650218;
  for i = 2:n
    mt(i) = mod(mul32(1812433253, mix(mt(i - 1))) + (i - 1), 2^32);
  end
  i = 2;
  for k = 1:n                          % key length 1: j stays 0, key(1) = seed
    mt(i) = mod(bitxor(mt(i), mul32(mix(mt(i - 1)), 1664525)) + double(seed), 2^32);
    [mt, i] = advance(mt, i);
  end
  for k = 1:n - 1
    mt(i) = mod(bitxor(mt(i), mul32(mix(mt(i - 1)), 1566083941)) - (i - 1), 2^32);
    [mt, i] = advance(mt, i);
  end
  mt(1) = 2^31;
  state = mt;
end

function value = mix(word)
  value = bitxor(word, floor(word / 2^30));
end

function product = mul32(a, b)
%MUL32  (a * b) mod 2^32 for 32-bit words a, b, exactly in double arithmetic.
  low = mod(b, 2^16);
  high = floor(b / 2^16);
  product = mod(a * low + mod(a * high, 2^16) * 2^16, 2^32);
end

function [mt, i] = advance(mt, i)
  i = i + 1;
  if i > numel(mt)
    mt(1) = mt(end);
    i = 2;
  end
end
