function X = mlfs_sylvester(A, B, C)
%MLFS_SYLVESTER  Solve A*X + X*B = C for X (m×n), with A m×m and B n×n (full, finite).
%   The same equation as Octave's and MATLAB's sylvester and SciPy's solve_sylvester
%   (Bartels–Stewart); inputs are made full first because Octave's sylvester rejects sparse ones.
%   See mlfs_lyap for the Control toolbox's lyap(A, B, C) convention (A*X + X*B + C = 0).
  mlfs_require(isnumeric(A) && isnumeric(B) && isnumeric(C) && size(A, 1) == size(A, 2) && ...
    size(B, 1) == size(B, 2) && isequal(size(C), [size(A, 1), size(B, 1)]), 'mlfs:sylvester:badInput', ...
    'mlfs_sylvester: need square A (m×m), square B (n×n) and C (m×n)');
  A = full(double(A));
  B = full(double(B));
  C = full(double(C));
  mlfs_require(all(isfinite(A(:))) && all(isfinite(B(:))) && all(isfinite(C(:))), ...
    'mlfs:sylvester:nonFinite', 'mlfs_sylvester: A, B and C must be finite');
  X = sylvester(A, B, C);
end
