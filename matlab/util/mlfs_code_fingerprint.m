function fingerprint = mlfs_code_fingerprint(fname)
%MLFS_CODE_FINGERPRINT  Fingerprint of a function's .m file and every .m file it uses, transitively.
%   fingerprint = mlfs_code_fingerprint('LRMFS') returns struct('sha256', hex, 'files', {{path, hex}, ...})
%   where the files are fname.m and, transitively, every .m file under matlab/ whose function name
%   appears in one of them as a word; paths are relative to matlab/ with '/', in path order, and
%   sha256 is the SHA-256 of the lines "<path>\0<file sha256>\n". Twin of
%   pipeline.runner.fingerprint.matlab_fingerprint: both front doors record the same value, so
%   either can tell whether a result was made by the current code (docs/results-schema.md).
  matlab_dir = fileparts(fileparts(mfilename('fullpath')));
  [names, paths] = function_files(matlab_dir);
  found = {};
  digests = {};
  pending = {fname};
  while ~isempty(pending)
    name = pending{end};
    pending(end) = [];
    index = find(strcmp(names, name), 1);
    if isempty(index) || any(strcmp(found, paths{index}))
      continue
    end
    bytes = mlfs_read_bytes(fullfile(matlab_dir, paths{index}));
    found{end + 1} = paths{index}; %#ok<AGROW>
    digests{end + 1} = mlfs_sha256_bytes(bytes); %#ok<AGROW>
    words = unique(regexp(char(bytes(:).'), '[A-Za-z][A-Za-z0-9_]*', 'match'));
    pending = [pending, words(ismember(words, names))]; %#ok<AGROW>
  end
  [found, order] = sort(found);
  digests = digests(order);
  lines = cellfun(@(p, h) [p char(0) h char(10)], found, digests, 'UniformOutput', false);
  files = cellfun(@(p, h) {p, h}, found, digests, 'UniformOutput', false);
  fingerprint = struct('sha256', mlfs_sha256_bytes(uint8([lines{:}])), 'files', {files});
end

function [names, paths] = function_files(matlab_dir)
%FUNCTION_FILES  Function names and paths (relative to matlab_dir, '/') of every .m file below it.
  folders = strsplit(genpath(matlab_dir), pathsep);
  names = {};
  paths = {};
  for f = 1:numel(folders)
    if isempty(folders{f})
      continue
    end
    listing = dir(fullfile(folders{f}, '*.m'));
    relative = strrep(folders{f}(numel(matlab_dir) + 2:end), filesep, '/');
    for i = 1:numel(listing)
      names{end + 1} = listing(i).name(1:end - 2); %#ok<AGROW>
      paths{end + 1} = strjoin([{relative}, {listing(i).name}](~cellfun(@isempty, {relative, listing(i).name})), '/'); %#ok<AGROW>
    end
  end
end
