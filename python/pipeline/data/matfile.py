"""Deterministic MATLAB v5 ``.mat`` writing.

``scipy.io.savemat`` stamps the wall-clock time and ``os.name`` into the 116-byte descriptive text
that opens every MAT v5 file, so two exports of the same arrays differ in those bytes. The MAT v5
format reserves those bytes for free text (readers check only the version and endian fields that
follow), so we let SciPy encode the variables and then replace that text with a fixed one. With the
same arrays and the same zlib, the bytes are identical on every run; SciPy, MATLAB and GNU Octave
read the files as usual.
"""

from __future__ import annotations

import io
from typing import Mapping

import numpy as np


#: Length of the descriptive text at the start of a MAT v5 file (format definition).
MAT_HEADER_TEXT_BYTES = 116
#: Our fixed header text (ASCII, padded with spaces to 116 bytes).
MAT_HEADER_TEXT = "MATLAB 5.0 MAT-file, written by mlfs-bench (deterministic header, no timestamp)"


def mat_bytes(variables: Mapping[str, np.ndarray]) -> bytes:
    """Encode ``variables`` as a zlib-compressed MATLAB v5 file with a fixed header.

    Parameters
    ----------
    variables : mapping of str to ndarray
        MATLAB variable names and their arrays; 2-D arrays keep their shape (rows, columns).

    Returns
    -------
    bytes
        The complete file content; identical for identical inputs (and zlib version).
    """
    import scipy.io  # here, not with the module: about 1 s that a command writing no MAT file should not pay

    buffer = io.BytesIO()
    scipy.io.savemat(buffer, dict(variables), do_compression=True, format="5", oned_as="column")
    content = bytearray(buffer.getvalue())
    text = MAT_HEADER_TEXT.encode("ascii").ljust(MAT_HEADER_TEXT_BYTES, b" ")
    content[:MAT_HEADER_TEXT_BYTES] = text
    return bytes(content)
