function mi = mlfs_mutual_information(A, B)
%MLFS_MUTUAL_INFORMATION  Plug-in mutual information (bits) between discrete columns, all pairs.
%   A: cell of p-column state indicators {n×p, ...} (one per state), B: the same for q columns.
%   mi (p×q): sum over states a, b of (N_ab/n) log2(N_ab n / (N_a N_b)), 0 log 0 = 0. Counts come
%   from products of the indicators (all but the last state of each side; the rest from the
%   marginals), so they are exact integers. Twin of pipeline.methods.grro.mutual_information.
  n = size(A{1}, 1);
  counts = mlfs_joint_counts(A, B);
  mi = zeros(size(counts{1, 1}));
  for a = 1:numel(A)
    a_total = sum(A{a}, 1).';
    for b = 1:numel(B)
      joint = counts{a, b};
      term = (joint ./ n) .* log2((joint .* n) ./ (a_total .* sum(B{b}, 1)));
      term(~(joint > 0)) = 0;
      mi = mi + term;
    end
  end
end

function counts = mlfs_joint_counts(A, B)
  a_last = numel(A);
  b_last = numel(B);
  counts = cell(a_last, b_last);
  for a = 1:a_last-1
    for b = 1:b_last-1
      counts{a, b} = A{a}.' * B{b};
    end
  end
  for a = 1:a_last-1
    rest = zeros(size(A{a}, 2), size(B{1}, 2));
    for b = 1:b_last-1
      rest = rest + counts{a, b};
    end
    counts{a, b_last} = sum(A{a}, 1).' - rest;
  end
  for b = 1:b_last
    rest = zeros(size(A{1}, 2), size(B{b}, 2));
    for a = 1:a_last-1
      rest = rest + counts{a, b};
    end
    counts{a_last, b} = sum(B{b}, 1) - rest;
  end
end
