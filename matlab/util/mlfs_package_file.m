function [file, places] = mlfs_package_file(relative)
%MLFS_PACKAGE_FILE  Where a file of the Python package is, seen from this MATLAB folder ('' when
%   the package has no such file), and the places looked at. RELATIVE is its path inside the
%   package ({'results', 'layout.json'}). Looked for under python/pipeline in a checkout first,
%   then beside this folder in an installed package (the wheel carries this folder as
%   pipeline/matlab); a checkout's own results/ folder is never read as the package's.
  matlab_folder = fileparts(fileparts(mfilename('fullpath')));
  places = {fullfile(matlab_folder, '..', 'python', 'pipeline', relative{:}), ...
            fullfile(fileparts(matlab_folder), relative{:})};
  found = places(cellfun(@(place) exist(place, 'file') == 2, places));
  file = '';
  if ~isempty(found)
    file = found{1};
  end
end
