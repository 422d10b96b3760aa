function D = mlknn_add_feature(D, ref, query)
%MLKNN_ADD_FEATURE  D(i,j) = D(i,j) + (ref(i) - query(j))^2 for one feature column.
%   This is the canonical accumulation shared by every evaluator. Pairs where both values are 0
%   add exactly +0, so they are skipped: on sparse data (Yahoo: ~93% zeros) only the rows and
%   columns of non-zero entries are touched, with bit-identical results.
  nz_query = find(query ~= 0);
  if numel(nz_query) > numel(query) / 2
    diff = ref - query.';
    D = D + diff .* diff;
    return
  end
  if ~isempty(nz_query)
    diff = ref - query(nz_query).';
    D(:, nz_query) = D(:, nz_query) + diff .* diff;
  end
  nz_ref = find(ref ~= 0);
  if ~isempty(nz_ref)
    zero_query = find(query == 0);
    ref_nz = ref(nz_ref);
    D(nz_ref, zero_query) = D(nz_ref, zero_query) + repmat(ref_nz .* ref_nz, 1, numel(zero_query));
  end
end
