function folds = mlfs_fold_indices(data_dir, dataset, n_folds)
%MLFS_FOLD_INDICES  Fold indices to run: 0..n_folds-1 (all must exist), or every fold<i>.mat when empty.
  folder = fullfile(data_dir, dataset);
  listing = dir(fullfile(folder, 'fold*.mat'));
  present = [];
  for i = 1:numel(listing)
    token = regexp(listing(i).name, '^fold(\d+)\.mat$', 'tokens', 'once');
    if ~isempty(token)
      present(end + 1) = str2double(token{1}); %#ok<AGROW>
    end
  end
  present = sort(present);
  mlfs_require(~isempty(present), 'mlfs:fold:missing', 'no fold files in %s (expected fold0.mat, fold1.mat, ...)', folder);
  if isempty(n_folds)
    folds = present;
    return
  end
  folds = 0:n_folds-1;
  missing = setdiff(folds, present);
  if ~isempty(missing)
    error('mlfs:fold:missing', 'fold files missing in %s (expected fold0..fold%d): no fold%d.mat', ...
          folder, n_folds - 1, missing(1));
  end
end
