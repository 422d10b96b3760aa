function declared = mlfs_parameter(default, varargin)
%MLFS_PARAMETER  A plug-in's default parameter value together with what the parameter may be.
%   In the defaults struct of a MATLAB/Octave plug-in (docs/plugins.md):
%     defaults = struct('power', mlfs_parameter(1, '>', 0), ...
%                       'share', mlfs_parameter(0.5, '>=', 0, '<', 1), ...
%                       'mode',  mlfs_parameter('fast', {'fast', 'exact'}));
%   A number takes a lower and/or an upper bound ('>', '>=', '<', '<=' and a finite real number),
%   text a list of choices. mlfs_method_params reads the declarations: it returns the plain values
%   and refuses a given value outside its range; the Python front door reads them from the
%   no-argument call and refuses such a value before any work (exit code 2), as it does for the
%   shipped methods' ranges (declared in their definition files). A bad declaration, or a default outside its
%   own range, is mlfs:parameter:badDeclaration.
  declared = struct('default', default, 'low', [], 'high', [], 'low_open', false, 'high_open', false, ...
                    'choices', {{}});
  if ischar(default) && numel(varargin) == 1 && iscellstr(varargin{1}) && ~isempty(varargin{1})
    declared.choices = reshape(varargin{1}, 1, []);
    mlfs_require(any(strcmp(default, declared.choices)), 'mlfs:parameter:badDeclaration', ...
      'mlfs_parameter: the default ''%s'' is not among its choices', default);
    return
  end
  mlfs_require(isnumeric(default) && isreal(default) && isscalar(default) && isfinite(default), ...
    'mlfs:parameter:badDeclaration', ['mlfs_parameter: a range needs a finite real number as the default ' ...
    '(text takes a list of choices); found %s'], mlfs_shown_value(default));
  mlfs_require(any(numel(varargin) == [2 4]), 'mlfs:parameter:badDeclaration', ...
    'mlfs_parameter: expected one or two bounds, each an operator and a number, as in (1, ''>='', 0)');
  for i = 1:2:numel(varargin)
    declared = with_bound(declared, varargin{i}, varargin{i + 1});
  end
  mlfs_require(isempty(declared.low) || isempty(declared.high) || declared.low < declared.high, ...
    'mlfs:parameter:badDeclaration', 'mlfs_parameter: the lower bound %g is not below the upper bound %g', ...
    declared.low, declared.high);
  above = isempty(declared.low) || default > declared.low || (~declared.low_open && default == declared.low);
  below = isempty(declared.high) || default < declared.high || (~declared.high_open && default == declared.high);
  mlfs_require(above && below, 'mlfs:parameter:badDeclaration', ...
    'mlfs_parameter: the default %g lies outside its own range', default);
end

function declared = with_bound(declared, operator, bound)
  mlfs_require(ischar(operator) && any(strcmp(operator, {'>', '>=', '<', '<='})), ...
    'mlfs:parameter:badDeclaration', 'mlfs_parameter: expected an operator among >, >=, <, <=; found %s', ...
    mlfs_shown_value(operator));
  mlfs_require(isnumeric(bound) && isreal(bound) && isscalar(bound) && isfinite(bound), ...
    'mlfs:parameter:badDeclaration', 'mlfs_parameter: the bound after ''%s'' must be a finite real number; found %s', ...
    operator, mlfs_shown_value(bound));
  side = mlfs_ifelse(operator(1) == '>', 'low', 'high');
  mlfs_require(isempty(declared.(side)), 'mlfs:parameter:badDeclaration', ...
    'mlfs_parameter: two %s bounds', mlfs_ifelse(operator(1) == '>', 'lower', 'upper'));
  declared.(side) = double(bound);
  declared.([side '_open']) = numel(operator) == 1;
end
