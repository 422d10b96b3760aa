function definitions = mlfs_definitions()
%MLFS_DEFINITIONS  The definitions the Python package reads too (pipeline/definitions.json), decoded:
%   seed (the range of every seed), run_options (default and range of each ML-kNN and grid
%   option), max_grid_points, method_ranges (per shipped method, what each parameter may be).
%   The file is found from this MATLAB folder: beside it in an installed package (the wheel
%   carries this folder as pipeline/matlab) or under python/pipeline in a checkout. Decoded once
%   per session, again when the file has changed since (an edit in a running session). Error
%   mlfs:definitions:notFound when neither place holds it.
  persistent file decoded decoded_version
  if isempty(file)
    file = definitions_file();
  end
  listing = dir(file);
  version = sprintf('%.10f|%d', listing.datenum, listing.bytes);
  if ~strcmp(decoded_version, version)
    decoded = jsondecode(fileread(file));
    decoded_version = version;
  end
  definitions = decoded;
end

function file = definitions_file()
  matlab_folder = fileparts(fileparts(mfilename('fullpath')));
  places = {fullfile(fileparts(matlab_folder), 'definitions.json'), ...
            fullfile(matlab_folder, '..', 'python', 'pipeline', 'definitions.json')};
  found = places(cellfun(@(place) exist(place, 'file') == 2, places));
  mlfs_require(~isempty(found), 'mlfs:definitions:notFound', ...
    'the package''s definitions.json was not found (looked for %s)', strjoin(places, ' and '));
  file = found{1};
end
