function normalised = mlfs_code_normalise(bytes)
%MLFS_CODE_NORMALISE  What a .m file runs, as the bytes its fingerprint hashes (uint8 row): each
%   line without its comment (% or # outside a string, to the end of the line) and the blanks
%   around it (space, tab, CR, FF, VT), without blank lines and block comments (%{ to %}, or #{ to
%   #}, each alone on its line, nested). A quote opens a string unless it is a transpose (after a
%   letter, digit, _ . ) ] } or a quote); in a string a doubled quote is one, and in a
%   double-quoted one a backslash escapes the next character. Bytes are characters one to one.
%   Twin of pipeline.runner.fingerprint.matlab_canonical: both front doors hash the same bytes.
  text = char(bytes(:).');
  ends = [0, find(text == char(10)), numel(text) + 1];
  kept = repmat({''}, 1, numel(ends) - 1);   % char, so that joining them converts nothing
  depth = 0;
  for i = 1:numel(ends) - 1
    line = text(ends(i) + 1:ends(i + 1) - 1);
    stripped = strip_blanks(line);
    if any(strcmp(stripped, {'%{', '#{'}))
      depth = depth + 1;
    elseif depth > 0
      depth = depth - any(strcmp(stripped, {'%}', '#}'}));
    else
      code = strip_blanks(without_comment(line));
      if ~isempty(code)
        kept{i} = [code char(10)];
      end
    end
  end
  normalised = uint8([kept{:}]);
end

function line = strip_blanks(line)
  code = find(~ismember(line, [' ' char([9 13 12 11])]));
  if isempty(code)
    line = '';
  else
    line = line(code(1):code(end));
  end
end

function line = without_comment(line)
%WITHOUT_COMMENT  The line up to its comment. Most lines have no quote before their first comment
%   mark, and are cut there without a scan (Octave is slow character by character).
  mark = find(line == '%' | line == '#', 1);
  if isempty(mark)
    return
  end
  first_quote = find(line == '''' | line == '"', 1);
  if isempty(first_quote) || first_quote > mark
    line = line(1:mark - 1);
    return
  end
  transpose_after = ['A':'Z' 'a':'z' '0':'9' '_.)]}''"'];
  quote = '';
  i = 1;
  while i <= numel(line)
    c = line(i);
    if isempty(quote)
      if c == '%' || c == '#'
        line = line(1:i - 1);
        return
      elseif c == '"' || (c == '''' && ~(i > 1 && any(line(i - 1) == transpose_after)))
        quote = c;
      end
    elseif c == '\' && quote == '"'
      i = i + 1;
    elseif c == quote
      if i < numel(line) && line(i + 1) == quote
        i = i + 1;
      else
        quote = '';
      end
    end
    i = i + 1;
  end
end
