function ranking = mlknn_check_ranking(ranking, d)
%MLKNN_CHECK_RANKING  A ranking must hold distinct integers in 1..d (a prefix of a permutation).
  ranking = double(ranking(:)).';
  mlfs_require(~isempty(ranking) && all(isfinite(ranking)) && all(ranking == fix(ranking)), ...
    'mlfs:mlknn:badRanking', 'the ranking must hold integer feature indices');
  mlfs_require(all(ranking >= 1) && all(ranking <= d), 'mlfs:mlknn:badRanking', ...
    'ranking values must be 1-based indices in 1..%d, found %g..%g', d, min(ranking), max(ranking));
  mlfs_require(numel(unique(ranking)) == numel(ranking), 'mlfs:mlknn:badRanking', ...
    'the ranking repeats a feature');
end
