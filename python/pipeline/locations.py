"""Where the MATLAB/Octave code is: the installed package's copy, a checkout's ``matlab/`` folder,
or the folder named by ``$MLFS_MATLAB_DIR`` (``--matlab-dir`` sets it for one run).

A wheel carries the repository's ``matlab/`` folder as ``pipeline/matlab`` (copied by the build,
``setup.py``); an editable install or a checkout reads the repository's own folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import ConfigError

#: Environment variable naming another MATLAB/Octave code folder (e.g. a checkout being edited).
MATLAB_DIR_VARIABLE = "MLFS_MATLAB_DIR"
#: Environment variable naming the folder of what is kept between runs to save time (default:
#: ``$XDG_CACHE_HOME/mlfs-bench``, else ``~/.cache/mlfs-bench``); deleting it loses nothing.
CACHE_DIR_VARIABLE = "MLFS_CACHE_DIR"
PACKAGE_DIR = Path(__file__).resolve().parent
INSTALLED_MATLAB_DIR = PACKAGE_DIR / "matlab"
CHECKOUT_MATLAB_DIR = PACKAGE_DIR.parents[1] / "matlab"
#: A file every complete MATLAB/Octave code folder holds.
MARKER = Path("util") / "mlfs_engine_call.m"


def matlab_dir() -> Path:
    """The MATLAB/Octave code folder the engines, ``run_suite`` and the fingerprints use.

    Raises
    ------
    ConfigError
        When ``$MLFS_MATLAB_DIR`` names a folder without the code, or no copy of it is found.
    """
    override = os.environ.get(MATLAB_DIR_VARIABLE)
    if override:
        folder = Path(override).resolve()
        if not (folder / MARKER).is_file():
            raise ConfigError("not a MATLAB/Octave code folder of mlfs-bench", file=folder,
                              field=MATLAB_DIR_VARIABLE, expected=f"a folder holding {MARKER.as_posix()}")
        return folder
    for folder in (INSTALLED_MATLAB_DIR, CHECKOUT_MATLAB_DIR):
        if (folder / MARKER).is_file():
            return folder
    raise ConfigError("the MATLAB/Octave code was not found: reinstall the package or set "
                      f"{MATLAB_DIR_VARIABLE} to a checkout's matlab/ folder", file=INSTALLED_MATLAB_DIR)


def cache_dir() -> Path:
    """The folder of what is kept between runs to save time (see :data:`CACHE_DIR_VARIABLE`)."""
    override = os.environ.get(CACHE_DIR_VARIABLE)
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mlfs-bench"
