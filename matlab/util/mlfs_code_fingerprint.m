function fingerprint = mlfs_code_fingerprint(fname, plugin_dirs)
%MLFS_CODE_FINGERPRINT  Fingerprint of a function's .m file and every .m file it uses, transitively.
%   fingerprint = mlfs_code_fingerprint('LRMFS') returns struct('sha256', hex, 'files', {{path, hex}, ...},
%   'scheme', name)
%   where the files are fname.m and, transitively, every .m file under matlab/ whose function name
%   appears in one of them as a word; paths are relative to matlab/ with '/', in path order, and
%   sha256 is the SHA-256 of the lines "<path>\0<file sha256>\n"; a .m file's sha256 is that of its
%   normalised form (mlfs_code_normalise: no comments, blank lines or blanks around a line), whose
%   words also decide which functions it uses, and 'scheme' names that hashing
%   (definitions.json's code_files.fingerprint_scheme). Twin of
%   pipeline.runner.fingerprint.matlab_fingerprint: both front doors record the same value, so
%   either can tell whether a result was made by the current code (docs/results-schema.md).
%
%   mlfs_code_fingerprint(fname, plugin_dirs) also looks in the plug-in folders (cell of paths):
%   their files are 'plugin/<file>'. A function in neither is fingerprinted by the file Octave or
%   MATLAB resolves on the user's path (with the other functions of its folder, as a plug-in
%   folder). A function with no readable file is an error (mlfs:fingerprint:noCode): a
%   fingerprint never covers nothing. A file to read that is not a regular file (a FIFO, a link to
%   /dev/zero) or is larger than definitions.json's code_files.max_bytes is refused before it is
%   opened (mlfs:file:notRegular, mlfs:file:tooLarge), as pipeline.runner.fingerprint refuses it.
%
%   A shipped method's fingerprint also covers its definition file (its defaults decide what it
%   computes), labelled with its path in the Python package, 'methods/definitions/LRMFS.json',
%   and no other method's: editing LRMFS's defaults stales LRMFS's results only.
  if nargin < 2
    plugin_dirs = {};
  end
  matlab_dir = fileparts(fileparts(mfilename('fullpath')));
  [names, files, labels] = function_files(matlab_dir);
  [in_plugins, where] = plugin_file(fname, plugin_dirs);
  if ~any(strcmp(names, fname)) && ~in_plugins
    resolved = which(fname);
    mlfs_require(~isempty(resolved) && exist(resolved, 'file') == 2, 'mlfs:fingerprint:noCode', ...
      'no code to fingerprint: %s.m is not under %s, in the plug-in folders or on the path', fname, matlab_dir);
    where = fileparts(resolved);
  end
  if ~isempty(where)
    [names, files, labels] = add_plugin_folder(names, files, labels, where);
  end
  definitions = mlfs_definitions();
  found = {};
  digests = {};
  pending = {fname};
  while ~isempty(pending)
    name = pending{end};
    pending(end) = [];
    index = find(strcmp(names, name), 1, 'last');   % a plug-in folder's file is the one Octave calls
    if isempty(index) || any(strcmp(found, labels{index}))
      continue
    end
    [digest, words] = normalised_code(mlfs_read_bytes(files{index}, 'code file', definitions.code_files.max_bytes));
    found{end + 1} = labels{index}; %#ok<AGROW>
    digests{end + 1} = digest; %#ok<AGROW>
    pending = [pending, words(ismember(words, names))]; %#ok<AGROW>
  end
  [found, digests] = add_definition_file(fname, found, digests);
  [found, order] = sort(found);
  digests = digests(order);
  lines = cellfun(@(p, h) [p char(0) h char(10)], found, digests, 'UniformOutput', false);
  entries = cellfun(@(p, h) {p, h}, found, digests, 'UniformOutput', false);
  fingerprint = struct('sha256', mlfs_sha256_bytes(uint8([lines{:}])), 'files', {entries}, ...
                       'scheme', definitions.code_files.fingerprint_scheme);
end

function [digest, words] = normalised_code(bytes)
%NORMALISED_CODE  The SHA-256 of a .m file's normalised form and the words of its code, remembered
%   for the session under the SHA-256 of its bytes: normalising costs about 30 ms a file, and a
%   run_suite call fingerprints every method (a file whose bytes changed is normalised again).
  persistent known
  if isempty(known)
    known = containers.Map('KeyType', 'char', 'ValueType', 'any');
  end
  key = mlfs_sha256_bytes(bytes);
  if ~isKey(known, key)
    code = mlfs_code_normalise(bytes);
    known(key) = {mlfs_sha256_bytes(code), unique(regexp(char(code), '[A-Za-z][A-Za-z0-9_]*', 'match'))};
  end
  entry = known(key);
  [digest, words] = entry{:};
end

function [found, digests] = add_definition_file(fname, found, digests)
%ADD_DEFINITION_FILE  The package's definition file of fname, when it ships one, with its digest.
  relative = {'methods', 'definitions', [fname '.json']};
  file = mlfs_package_file(relative);
  if ~isempty(file)
    found{end + 1} = strjoin(relative, '/');
    digests{end + 1} = mlfs_sha256_bytes(mlfs_read_bytes(file));
  end
end

function [found, folder] = plugin_file(fname, plugin_dirs)
%PLUGIN_FILE  Whether fname.m is in one of the plug-in folders, and which.
  found = false;
  folder = '';
  for i = 1:numel(plugin_dirs)
    if exist(fullfile(plugin_dirs{i}, [fname '.m']), 'file') == 2
      found = true;
      folder = plugin_dirs{i};
      return
    end
  end
end

function [names, files, labels] = add_plugin_folder(names, files, labels, folder)
  listing = dir(fullfile(folder, '*.m'));
  for i = 1:numel(listing)
    names{end + 1} = listing(i).name(1:end - 2); %#ok<AGROW>
    files{end + 1} = fullfile(folder, listing(i).name); %#ok<AGROW>
    labels{end + 1} = ['plugin/' listing(i).name]; %#ok<AGROW>
  end
end

function [names, files, labels] = function_files(matlab_dir)
%FUNCTION_FILES  Function names, files and labels (paths relative to matlab_dir, '/') of every .m below it.
  folders = strsplit(genpath(matlab_dir), pathsep);
  names = {};
  files = {};
  labels = {};
  for f = 1:numel(folders)
    if isempty(folders{f})
      continue
    end
    listing = dir(fullfile(folders{f}, '*.m'));
    relative = strrep(folders{f}(numel(matlab_dir) + 2:end), filesep, '/');
    for i = 1:numel(listing)
      names{end + 1} = listing(i).name(1:end - 2); %#ok<AGROW>
      files{end + 1} = fullfile(folders{f}, listing(i).name); %#ok<AGROW>
      labels{end + 1} = strjoin([{relative}, {listing(i).name}](~cellfun(@isempty, {relative, listing(i).name})), '/'); %#ok<AGROW>
    end
  end
end
