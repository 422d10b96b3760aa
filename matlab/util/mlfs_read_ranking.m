function ranking = mlfs_read_ranking(path, d)
%MLFS_READ_RANKING  Read a ranking file (one value per line, or comma-separated) and validate it.
  mlfs_require(exist(path, 'file') == 2, 'mlfs:ranking:missing', '%s: ranking file not found', path);
  tokens = regexp(fileread(path), '[^,\s]+', 'match');
  values = str2double(tokens);
  bad = find(isnan(values), 1);
  if ~isempty(bad)
    error('mlfs:ranking:notNumeric', '%s: ranking holds a non-numeric value (found ''%s'')', path, tokens{bad});
  end
  ranking = mlfs_validate_ranking(values, d, path);
end
