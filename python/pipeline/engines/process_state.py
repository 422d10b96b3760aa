"""The process state a method may change and everything computed after it in the same process would
inherit: the working folder (relative paths), NumPy's global random generator, Python's ``random``
and NumPy's floating-point error handling. :func:`process_state_restored` puts them back after a
method call and after a task, whether it returns or raises (docs/plugins.md, "What a plug-in may
rely on, and what is put back").
"""

from __future__ import annotations

import contextlib
import os
import random
from typing import Iterator

import numpy as np


@contextlib.contextmanager
def process_state_restored() -> Iterator[None]:
    """Meanwhile, the code may change the state above; on leaving it is what it was on entering.

    About a millisecond per use (most of it copying NumPy's generator state; docs/reliability.md).
    """
    folder = os.getcwd()
    numpy_random = np.random.get_state(legacy=False)
    python_random = random.getstate()
    float_errors, float_error_call = np.geterr(), np.geterrcall()
    try:
        yield
    finally:
        os.chdir(folder)
        np.random.set_state(numpy_random)
        random.setstate(python_random)
        np.seterr(**float_errors)
        np.seterrcall(float_error_call)
