function layout = mlfs_results_layout()
%MLFS_RESULTS_LAYOUT  The file names of a results folder, read from the Python package's layout.json.
%   The one definition of the suffixes is pipeline/results/layout.json: beside the Python package in a
%   checkout (matlab/../python/pipeline/results) and in the installed package (pipeline/matlab/..
%   /results). Read once per session.
  persistent cached
  if isempty(cached)
    matlab_dir = fileparts(fileparts(mfilename('fullpath')));
    places = {fullfile(matlab_dir, '..', 'python', 'pipeline', 'results', 'layout.json'), ...
              fullfile(matlab_dir, '..', 'results', 'layout.json')};
    found = places(cellfun(@(p) exist(p, 'file') == 2, places));
    if isempty(found)
      error('mlfs:layout:missing', 'the results layout (layout.json) was not found at %s or %s', places{:});
    end
    cached = jsondecode(fileread(found{1}));
  end
  layout = cached;
end
