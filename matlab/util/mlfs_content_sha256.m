function digest = mlfs_content_sha256(text)
%MLFS_CONTENT_SHA256  The digest a metrics file carries of its own content (content_sha256).
%   digest = mlfs_content_sha256(text): the SHA-256 of a JSON text as mlfs_json_encode writes it
%   (sorted, indented by two spaces, newline at the end), without its content_sha256 field: the line
%   '  "content_sha256": "<hex>",' between two fields, or that line and the comma before it when it
%   is the last field (the whole text when it has none). Computed on the text, not on what jsondecode
%   reads back (a number may come back one unit in the last place off). Twin of
%   pipeline.results.digest.content_sha256: both front doors write it and check it, so a file edited
%   after it was written is stale in both.
  field = '"content_sha256": "[0-9a-f]{64}"';
  [starts, ends] = regexp(text, ['\n  ' field ',(?=\n)'], 'once');
  if isempty(starts)
    [starts, ends] = regexp(text, [',\n  ' field '(?=\n\})'], 'once');
  end
  if ~isempty(starts)
    text = [text(1:starts - 1) text(ends + 1:end)];
  end
  digest = mlfs_sha256_bytes(uint8(text));
end
