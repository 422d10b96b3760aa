function shown = mlfs_shown_value(value)
%MLFS_SHOWN_VALUE  A value as an error message shows it: text quoted and cut to 40 characters, a
%   numeric scalar in full precision, anything else by its size and class.
  if ischar(value)
    shown = ['''' value(1:min(end, 40)) ''''];
  elseif isnumeric(value) && isscalar(value)
    shown = sprintf('%.17g', double(value));
  else
    shown = sprintf('%s %s', mat2str(size(value)), class(value));
  end
end
