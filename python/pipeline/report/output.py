"""Output folders of the reporting commands, checked before any work is done."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ConfigError, StorageError
from ..fileio import ensure_directory


def prepare_output_folder(folder: str | Path, *, option: str) -> Path:
    """Create ``folder`` (and its parents) if needed and check that files can be written into it.

    Raises ConfigError naming ``option`` (e.g. ``--out-dir``) when the folder cannot be created
    (a file is in the way, no permission) or is not writable, so a command fails in one line
    before it computes anything.
    """
    folder = Path(folder)
    try:
        ensure_directory(folder, "the output folder")
    except StorageError as exc:  # a user's option, so a ConfigError that names it
        raise ConfigError(exc.message, file=folder, field=option) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError("the output folder is not writable", file=folder, field=option)
    return folder
