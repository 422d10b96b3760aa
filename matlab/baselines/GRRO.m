function [ranking, info] = GRRO(X, Y, params, init) %#ok<INUSD>
%GRRO  Global relevance and redundancy optimisation (Zhang, Lin, Jiang, Li, Tang, Tan, IJCAI 2020).
%   [ranking, info] = GRRO(X, Y, params, init)
%   defaults = GRRO()  returns the default parameter struct (no arguments; pipeline/methods/definitions/GRRO.json).
%   X: n×d training features; Y: n×L labels in {0,1}; init: unused (deterministic).
%   params (missing fields take the defaults, GRRO()): alpha (redundancy), beta (label
%     dissimilarity), num_bins (equal frequency).
%   Closed form, as the authors' example script (docs/methods/GRRO.md): discretise each feature
%   (mlfs_discretize_efi);
%   FL = MI(feature, label) and FF = MI(feature, feature) in bits with diag(FF) = 1
%   (mlfs_mutual_information); LL = label cosine distance, NaN -> 0; W = lyap(I + alpha FF,
%   beta LL, -FL), i.e. (I + alpha FF) W + W (beta LL) = FL. ranking: the signed row sum of W (the
%   score the script sorts), ordered by mlfs_rank_scores.
%   info: scores (d×1), sylvester_residual |(I+alpha FF)W + beta W LL - FL| / |FL|, seconds,
%   params.
%   Twin of pipeline.methods.grro.
  defaults = mlfs_method_defaults('GRRO');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'GRRO');
  p = mlfs_method_params('GRRO', defaults, params);
  mlfs_require(p.num_bins == fix(p.num_bins), 'mlfs:GRRO:badParams', ...
    'GRRO: num_bins must be an integer');   % its range (>= 2): definitions/GRRO.json
  mlfs_require(size(X, 1) >= p.num_bins, 'mlfs:GRRO:badInput', 'GRRO: needs at least num_bins training rows');
  codes = mlfs_discretize_efi(X, p.num_bins);
  features = cell(1, p.num_bins);
  for b = 1:p.num_bins
    features{b} = double(codes == b);
  end
  labels = {double(Y == 0), double(Y == 1)};
  FL = mlfs_mutual_information(features, labels);
  FF = mlfs_mutual_information(features, features);
  d = size(X, 2);
  FF(1:d+1:end) = 1;
  LL = mlfs_label_cosine_distance(Y);
  A = eye(d) + p.alpha * FF;
  W = mlfs_lyap(A, p.beta * LL, -FL);
  residual = norm(A * W + p.beta * (W * LL) - FL, 'fro') / max(norm(FL, 'fro'), realmin);
  scores = sum(W, 2);
  ranking = mlfs_rank_scores(scores, 'GRRO');
  info = struct('scores', scores, 'sylvester_residual', residual, 'seconds', toc(started), 'params', p);
end
