function normalised = mlfs_code_normalise(bytes)
%MLFS_CODE_NORMALISE  What a .m file runs, as the bytes its fingerprint hashes (uint8 row): each
%   line without its comment (% or # outside a string, to the end of the line) and the blanks
%   around it (space, tab, CR, FF, VT), without blank lines and block comments (%{ to %}, or #{ to
%   #}, each alone on its line, nested). A quote opens a string unless it is a transpose (after a
%   letter, digit, _ . ) ] } or a quote); in a string a doubled quote is one, and in a
%   double-quoted one a backslash escapes the next character. Bytes are characters one to one.
%   Twin of pipeline.runner.fingerprint.matlab_canonical: both front doors hash the same bytes.
  text = char(bytes(:).');
  lines = strsplit(text, char(10), 'CollapseDelimiters', false);
  % Whole-file operations where possible: Octave is slow line by line, and most lines need no scan
  blanks_around = '^[\x20\x09\x0d\x0c\x0b]+|[\x20\x09\x0d\x0c\x0b]+$';
  stripped = regexprep(lines, blanks_around, '');
  code = regexprep(lines, '^([^''"%#]*)[%#].*$', '$1');   % a comment mark before any quote
  scan = ~cellfun(@isempty, regexp(code, '[''"].*[%#]', 'once'));   % a quote, then a mark
  code(scan) = cellfun(@without_comment, code(scan), 'UniformOutput', false);
  code = regexprep(code, blanks_around, '');
  keep = outside_block_comments(stripped) & ~cellfun(@isempty, code);
  normalised = uint8(sprintf('%s\n', code{keep}));
  if ~any(keep)
    normalised = uint8([]);
  end
end

function outside = outside_block_comments(stripped)
%OUTSIDE_BLOCK_COMMENTS  Lines outside (nested) %{ %} and #{ #} block comments, whose marks stand
%   alone on their (stripped) lines; the marks' own lines are not outside.
  opens = strcmp(stripped, '%{') | strcmp(stripped, '#{');
  outside = ~opens;
  if ~any(opens)
    return
  end
  closes = strcmp(stripped, '%}') | strcmp(stripped, '#}');
  depth = 0;
  for i = 1:numel(stripped)
    if opens(i)
      depth = depth + 1;
    elseif depth > 0
      outside(i) = false;
      depth = depth - closes(i);
    end
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
