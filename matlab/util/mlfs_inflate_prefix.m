function out = mlfs_inflate_prefix(stream, n)
%MLFS_INFLATE_PREFIX  The first n bytes a zlib stream inflates to, without inflating the rest.
%   out = mlfs_inflate_prefix(stream, n)
%   stream: the zlib stream (uint8 or double byte values), or at least its start; n: bytes wanted.
%   out: uint8 row of min(n, available) bytes. A DEFLATE decoder (RFC 1950/1951: stored, fixed and
%   dynamic Huffman blocks, back-references) that stops as soon as it has n bytes, so a MAT file's
%   compressed variable headers can be read before `load` inflates a whole variable (MATLAB and
%   Octave have no zlib call that stops early). Error mlfs:inflate:corrupt for an invalid stream.
  bytes = double(stream(:)).';
  corrupt = @(what) error('mlfs:inflate:corrupt', 'corrupt zlib stream: %s', what);
  if numel(bytes) < 2 || bitand(bytes(1), 15) ~= 8 || mod(bytes(1) * 256 + bytes(2), 31) ~= 0 || bitand(bytes(2), 32)
    corrupt('no zlib header');
  end
  s.bits = reshape(mod(floor(bytes(3:end) ./ 2 .^ (0:7).'), 2), 1, []);  % LSB first
  s.pos = 1;
  out = zeros(1, n);
  count = 0;
  final = false;
  while ~final && count < n
    [final, s] = take(s, 1, corrupt);
    [kind, s] = take(s, 2, corrupt);
    if kind == 0
      [out, count, s] = stored_block(s, out, count, n, corrupt);
    elseif kind == 3
      corrupt('reserved block type');
    else
      if kind == 1
        [lit, dist] = fixed_codes();
      else
        [lit, dist, s] = dynamic_codes(s, corrupt);
      end
      [out, count, s] = huffman_block(s, lit, dist, out, count, n, corrupt);
    end
  end
  out = uint8(out(1:count));
end

function [value, s] = take(s, n, corrupt)
  % The next n bits, least significant first.
  if s.pos + n - 1 > numel(s.bits)
    corrupt('stream ends early');
  end
  value = sum(s.bits(s.pos:s.pos + n - 1) .* 2 .^ (0:n - 1));
  s.pos = s.pos + n;
end

function [out, count, s] = stored_block(s, out, count, n, corrupt)
  s.pos = 8 * ceil((s.pos - 1) / 8) + 1;  % stored blocks start on a byte boundary
  [len, s] = take(s, 16, corrupt);
  [nlen, s] = take(s, 16, corrupt);
  if len ~= 65535 - nlen
    corrupt('stored block length');
  end
  for i = 1:min(len, n - count)
    [out(count + 1), s] = take(s, 8, corrupt);
    count = count + 1;
  end
end

function code = canonical(lengths)
  % Canonical Huffman code of the code lengths: counts per length and symbols in code order.
  code.count = accumarray(lengths(lengths > 0).', 1, [15 1]).';
  [~, order] = sort(lengths * 1000 + (0:numel(lengths) - 1));  % by length, then symbol
  code.symbol = order(lengths(order) > 0) - 1;
end

function [symbol, s] = decode(s, code, corrupt)
  % One symbol of a canonical Huffman code, read bit by bit (bits inlined: this is the hot loop).
  value = 0; first = 0; index = 0;
  pos = s.pos;
  for len = 1:min(15, numel(s.bits) - pos + 1)
    value = value + s.bits(pos);
    pos = pos + 1;
    count = code.count(len);
    if value - first < count
      symbol = code.symbol(index + value - first + 1);
      s.pos = pos;
      return
    end
    index = index + count;
    first = (first + count) * 2;
    value = value * 2;
  end
  corrupt(mlfs_ifelse(pos > numel(s.bits), 'stream ends early', 'invalid Huffman code'));
end

function [lit, dist] = fixed_codes()
  lit = canonical([8 * ones(1, 144), 9 * ones(1, 112), 7 * ones(1, 24), 8 * ones(1, 8)]);
  dist = canonical(5 * ones(1, 30));
end

function [lit, dist, s] = dynamic_codes(s, corrupt)
  [hlit, s] = take(s, 5, corrupt);
  [hdist, s] = take(s, 5, corrupt);
  [hclen, s] = take(s, 4, corrupt);
  order = [16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1 15];
  lengths = zeros(1, 19);
  for i = 1:hclen + 4
    [lengths(order(i) + 1), s] = take(s, 3, corrupt);
  end
  lencode = canonical(lengths);
  total = hlit + 257 + hdist + 1;
  lengths = zeros(1, total);
  i = 0;
  while i < total
    [symbol, s] = decode(s, lencode, corrupt);
    if symbol < 16
      lengths(i + 1) = symbol;
      i = i + 1;
      continue
    end
    value = 0;
    if symbol == 16
      if i == 0
        corrupt('repeat with no previous length');
      end
      value = lengths(i);
      [repeat, s] = take(s, 2, corrupt); repeat = repeat + 3;
    elseif symbol == 17
      [repeat, s] = take(s, 3, corrupt); repeat = repeat + 3;
    else
      [repeat, s] = take(s, 7, corrupt); repeat = repeat + 11;
    end
    if i + repeat > total
      corrupt('too many code lengths');
    end
    lengths(i + 1:i + repeat) = value;
    i = i + repeat;
  end
  lit = canonical(lengths(1:hlit + 257));
  dist = canonical(lengths(hlit + 258:end));
end

function [out, count, s] = huffman_block(s, lit, dist, out, count, n, corrupt)
  len_base = [3 4 5 6 7 8 9 10 11 13 15 17 19 23 27 31 35 43 51 59 67 83 99 115 131 163 195 227 258];
  len_extra = [0 0 0 0 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 0];
  dist_base = [1 2 3 4 5 7 9 13 17 25 33 49 65 97 129 193 257 385 513 769 1025 1537 2049 3073 ...
               4097 6145 8193 12289 16385 24577];
  dist_extra = [0 0 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 11 11 12 12 13 13];
  while count < n
    [symbol, s] = decode(s, lit, corrupt);
    if symbol < 256
      count = count + 1;
      out(count) = symbol;
    elseif symbol == 256
      return
    else
      if symbol > 285
        corrupt('invalid length code');
      end
      [extra, s] = take(s, len_extra(symbol - 256), corrupt);
      len = len_base(symbol - 256) + extra;
      [code, s] = decode(s, dist, corrupt);
      if code > 29
        corrupt('invalid distance code');
      end
      [extra, s] = take(s, dist_extra(code + 1), corrupt);
      back = dist_base(code + 1) + extra;
      if back > count
        corrupt('distance too far back');
      end
      for i = 1:min(len, n - count)
        out(count + 1) = out(count + 1 - back);
        count = count + 1;
      end
    end
  end
end
