function [files, others] = mlfs_plugin_clashes(folder)
%MLFS_PLUGIN_CLASHES  The .m files of a plug-in folder named like a function defined elsewhere: a
%   shipped function (under matlab/), a built-in, or a function of Octave, MATLAB, a toolbox or
%   another plug-in folder on the path. On the path, a plug-in file would replace that function for
%   every method, the shipped ones included, silently and outside their code fingerprints, so both
%   front doors refuse such a folder before adding it (mlfs:plugins:nameClash). files{i} clashes with
%   others{i} (a file, or 'the built-in NAME'); both are {} when there is no clash. Call it before
%   the folder is on the path: a file there that shadows a function this check uses would break it.
%   A .m there that is not a regular file (a FIFO, which Octave would wait on forever when it loads
%   the function, or a link to a device) or is larger than definitions.json's code_files.max_bytes
%   is an error first (mlfs:file:notRegular, mlfs:file:tooLarge), as the Python door refuses it.
  listing = dir(fullfile(folder, '*.m'));
  definitions = mlfs_definitions();
  files = {};
  others = {};
  for j = 1:numel(listing)
    own = fullfile(folder, listing(j).name);
    mlfs_regular_file(own, 'plug-in file', definitions.code_files.max_bytes);
    elsewhere = other_definitions(listing(j).name(1:end - 2), own);
    if ~isempty(elsewhere)
      files{end + 1} = own; %#ok<AGROW>
      others{end + 1} = elsewhere{1}; %#ok<AGROW>
    end
  end
end

function others = other_definitions(name, own)
%OTHER_DEFINITIONS  Where else NAME is defined: files on the path other than OWN, and built-ins.
  if mlfs_is_octave()
    found = file_in_loadpath([name '.m'], 'all');
    found = cellstr(mlfs_ifelse(isempty(found), {}, found));
    if exist(name, 'builtin') == 5
      found{end + 1} = ['the built-in ' name];
    end
  else
    found = cellstr(which(name, '-all'));
  end
  others = found(~strcmp(found, own) & ~cellfun(@isempty, found));
end
