"""The digest a metrics file carries of its own content (``content_sha256``), so an edited value is seen.

Both writers write strict, sorted JSON indented by two spaces (:func:`~pipeline.fileio.dumps_json`,
``mlfs_json_encode.m``). The digest is the SHA-256 of the file's text without its own field: the
text written for the record without ``content_sha256``, which is the file's text with the field's
line taken out (``  "content_sha256": "<hex>",`` between two fields, or that line and the comma
before it when it is the last field). It is computed on the text, not on values read back, because
readers differ in how they read a number (Octave's ``jsondecode`` may be one unit in the last place
off), and it covers everything: values, settings, provenance. A file re-indented or edited by hand
no longer matches it. Twin: ``mlfs_content_sha256.m``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..fileio import dumps_json

#: The field a metrics file holds its digest in.
DIGEST_FIELD = "content_sha256"
_BETWEEN = re.compile(r'\n  "content_sha256": "[0-9a-f]{64}",(?=\n)')
_LAST = re.compile(r',\n  "content_sha256": "[0-9a-f]{64}"(?=\n\})')


def with_digest(record: dict) -> dict:
    """``record`` with its :data:`DIGEST_FIELD`, as the writers store it."""
    return {**record, DIGEST_FIELD: content_sha256(dumps_json(record))}


def content_unchanged(path: str | Path, recorded: str) -> bool:
    """Whether the file still gives the ``recorded`` digest (it was not edited since it was written)."""
    return content_sha256(Path(path).read_text(encoding="utf-8")) == recorded


def content_sha256(text: str) -> str:
    """The SHA-256 of a written JSON text without its digest field (the whole text if it has none)."""
    for field_line in (_BETWEEN, _LAST):
        without, found = field_line.subn("", text, count=1)
        if found:
            text = without
            break
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
