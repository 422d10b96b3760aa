function mlfs_check_seed(seed)
%MLFS_CHECK_SEED  A random-start seed is an integer in the seed range of definitions.json, [0, 2^32 - 1]
%   (mlfs:seed:badValue otherwise).
  definitions = mlfs_definitions();
  seeds = definitions.seed;
  mlfs_require(mlfs_range_admits(seeds, seed) && seed == fix(seed), 'mlfs:seed:badValue', ...
    'a random-start seed must be an integer in [%d, %d]', seeds.low, seeds.high);
end
