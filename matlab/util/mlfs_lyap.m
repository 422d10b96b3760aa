function X = mlfs_lyap(A, B, C)
%MLFS_LYAP  The Control toolbox's lyap(A, B, C): solve A*X + X*B + C = 0 (toolbox-free).
%   Equivalent to sylvester(A, B, -C) and SciPy's solve_sylvester(A, B, -C).
  X = mlfs_sylvester(A, B, -C);
end
