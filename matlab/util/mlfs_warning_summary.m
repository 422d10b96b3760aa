function summary = mlfs_warning_summary(messages)
%MLFS_WARNING_SUMMARY  The ranking record's "warnings" of a call's warning messages (a cell of char,
%   one per occurrence): struct('count', n, 'messages', {{struct('text', t, 'count', c), ...}},
%   'unlisted', m): blanks collapsed, each text cut at recorded_warnings.max_message_chars, the
%   distinct texts with their counts, the most frequent first (ties in order of appearance), at
%   most recorded_warnings.max_messages of them, m distinct ones not listed (definitions.json).
%   Twin: pipeline.method_warnings.warnings_summary.
  definitions = mlfs_definitions();
  bounds = definitions.recorded_warnings;
  texts = cellfun(@(m) cut(regexprep(strtrim(m), '\s+', ' '), bounds.max_message_chars), messages, ...
                  'UniformOutput', false);
  distinct = {};
  counts = [];
  for i = 1:numel(texts)
    at = find(strcmp(distinct, texts{i}), 1);
    if isempty(at)
      distinct{end + 1} = texts{i};
      counts(end + 1) = 1;
    else
      counts(at) = counts(at) + 1;
    end
  end
  [~, order] = sort(-counts);            % stable: ties keep their order of appearance
  listed = order(1:min(numel(order), bounds.max_messages));
  entries = arrayfun(@(j) struct('text', distinct{j}, 'count', int64(counts(j))), listed, 'UniformOutput', false);
  summary = struct('count', int64(numel(texts)), 'messages', {entries}, ...
                   'unlisted', int64(numel(distinct) - numel(listed)));
end

function text = cut(text, limit)
  text = text(1:min(end, limit));
end
