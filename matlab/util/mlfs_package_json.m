function decoded = mlfs_package_json(relative, what)
%MLFS_PACKAGE_JSON  A JSON file of the Python package, decoded: the one place both languages read a
%   definition from (definitions.json, methods/definitions/<METHOD>.json, results/layout.json).
%   RELATIVE is its path inside the package ({'results', 'layout.json'}), found by
%   mlfs_package_file; WHAT names it in the error. Decoded once per session and file, again when
%   the file has changed since (an edit in a running session). Error mlfs:package:notFound when
%   the package has no such file.
  persistent files versions contents
  if isempty(files)
    files = {}; versions = {}; contents = {};
  end
  key = strjoin(relative, '/');
  slot = find(strcmp(files(1:2:end), key), 1);
  if isempty(slot)
    file = package_file(relative, what);
    files(end + 1:end + 2) = {key, file};
    versions{end + 1} = ''; contents{end + 1} = [];
    slot = numel(versions);
  end
  file = files{2 * slot};
  listing = dir(file);
  version = sprintf('%.10f|%d', listing.datenum, listing.bytes);
  if ~strcmp(versions{slot}, version)
    contents{slot} = jsondecode(fileread(file));
    versions{slot} = version;
  end
  decoded = contents{slot};
end

function file = package_file(relative, what)
  [file, places] = mlfs_package_file(relative);
  mlfs_require(~isempty(file), 'mlfs:package:notFound', 'the %s (%s) was not found (looked for %s)', ...
    what, relative{end}, strjoin(places, ' and '));
end
