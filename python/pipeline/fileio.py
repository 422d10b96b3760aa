"""Crash-safe file writing.

Every result file is written to a temporary file in the destination folder, flushed and fsynced,
then renamed over its final name. A reader therefore sees either the old complete file or the new
complete file, never a partial one, even if the writer is killed.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, then ``os.replace``).

    The file gets the permissions of a normally created file (``0o666`` less the umask), not the
    private ``0o600`` of a temporary file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def to_strict_json(obj: Any) -> Any:
    """Return ``obj`` with NaN/Inf floats replaced by ``None`` and NumPy scalars/arrays as Python types.

    Strict JSON has no NaN; ``null`` is what MATLAB's ``jsonencode`` writes for NaN as well, so both
    front doors produce the same files.
    """
    if isinstance(obj, dict):
        return {str(k): to_strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_strict_json(v) for v in obj]
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):
        return to_strict_json(obj.tolist())
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    return obj


def dumps_json(obj: Any) -> str:
    """Serialise ``obj`` as strict, sorted, indented JSON with a trailing newline."""
    return json.dumps(to_strict_json(obj), indent=2, sort_keys=True, allow_nan=False) + "\n"


def atomic_write_json(path: str | Path, obj: Any) -> Path:
    """Write ``obj`` as strict JSON (see :func:`dumps_json`) to ``path`` atomically."""
    return atomic_write_text(path, dumps_json(obj))
