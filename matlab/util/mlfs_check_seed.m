function mlfs_check_seed(seed)
%MLFS_CHECK_SEED  A random-start seed is an integer in [0, 2^32 - 1] (mlfs:seed:badValue otherwise).
  mlfs_require(isnumeric(seed) && isscalar(seed) && seed == fix(seed) && seed >= 0 && seed <= 2^32 - 1, ...
    'mlfs:seed:badValue', 'a random-start seed must be an integer in [0, 2^32 - 1]');
end
