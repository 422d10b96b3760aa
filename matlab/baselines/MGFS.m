function [ranking, info] = MGFS(X, Y, params, init) %#ok<INUSD>
%MGFS  Multi-label graph-based feature selection via PageRank centrality (Hashemi, Dowlatshahi,
%   Nezamabadi-pour, Expert Systems with Applications 2020).
%   [ranking, info] = MGFS(X, Y, params, init)
%   defaults = MGFS()  returns the default parameter struct (pipeline/methods/definitions/MGFS.json).
%   X: n×d training features; Y: n×L labels in {0,1}; init: unused (deterministic).
%   params (missing fields take the defaults, MATLAB centrality's): follow_probability, tolerance,
%     max_iter (PageRank's power iteration).
%   C = 1 - Pearson r between each feature and each label (0 where undefined); E = Euclidean
%   distances between the rows of C, an edge of weight E_ij wherever E_ij > 0; score: the PageRank
%   of each feature, as MATLAB's centrality(G, 'pagerank', 'Importance', w) computes it
%   (docs/methods/MGFS.md); ordered by mlfs_rank_scores.
%   info: scores (d×1), pagerank_iterations, pagerank_converged, seconds, params.
%   Twin of pipeline.methods.mgfs.
  defaults = mlfs_method_defaults('MGFS');   % the file the Python package reads too
  if nargin == 0
    ranking = defaults;
    info = struct();
    return
  end
  started = tic;
  [X, Y] = mlfs_check_training_data(X, Y, 'MGFS');
  p = mlfs_method_params('MGFS', defaults, params);
  mlfs_require(p.max_iter == fix(p.max_iter), 'mlfs:MGFS:badParams', 'MGFS: max_iter must be an integer');
  C = correlation_distance(X, Y);
  E = mlfs_pdist2(C, C, 'euclidean');   % direct differences: identical rows exactly 0 apart (no edge)
  [scores, iterations, converged] = pagerank(E, p.follow_probability, p.tolerance, p.max_iter);
  ranking = mlfs_rank_scores(scores, 'MGFS');
  info = struct('scores', scores, 'pagerank_iterations', iterations, 'pagerank_converged', converged, ...
                'seconds', toc(started), 'params', p);
end

function C = correlation_distance(X, Y)
%CORRELATION_DISTANCE  1 - Pearson r (d×L) between the columns of X and Y, 0 where a column is
%   constant. Twin of mgfs.correlation_distance.
  C = 1 - unit_centred(X).' * unit_centred(Y);
  C(~isfinite(C)) = 0;
end

function U = unit_centred(A)
  centred = A - mean(A, 1);
  U = centred ./ sqrt(sum(centred .* centred, 1));
end

function [ranks, iterations, converged] = pagerank(W, follow, tolerance, max_iter)
%PAGERANK  Power iteration of MATLAB's centrality 'pagerank' on symmetric weights W (d×d).
%   Twin of mgfs.pagerank.
  d = size(W, 1);
  degrees = sum(W, 1).';
  sinks = degrees == 0;
  degrees(sinks) = 1;
  ranks = ones(d, 1) / d;
  converged = false;
  for iterations = 1:max_iter
    previous = ranks;
    ranks = follow * (W * (previous ./ degrees)) + follow / d * sum(previous(sinks)) + (1 - follow) / d;
    if max(abs(previous - ranks)) <= tolerance
      converged = true;
      return
    end
  end
end
