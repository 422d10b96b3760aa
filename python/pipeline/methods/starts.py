"""Random starting matrices that both front doors draw identically.

A method with random starts receives its initial matrices from the harness. They are U(0,1) draws
from one MT19937 stream per (task, seed), seeded exactly as GNU Octave's ``rand('twister', seed)``
seeds it (the reference ``init_by_array`` with the one-word key ``[seed]``), turned into 53-bit
doubles as ``genrand_res53`` does, and each matrix is filled in column-major order, matrices in the
order the method lists them. Octave's own ``rand`` therefore yields the very same numbers
(``matlab/util/mlfs_seeded_uniform.m``), so ``run_suite`` in Octave and the Python harness start
every method from bit-identical matrices (docs/methods/README.md).
"""

from __future__ import annotations

import numpy as np

from ..definitions import MAX_SEED, SEED_RANGE
from ..errors import ConfigError
from ..validation import is_integer


class UniformStream:
    """A stream of U(0,1) matrices for one seed.

    Parameters
    ----------
    seed : int
        In [0, MAX_SEED].
    """

    def __init__(self, seed: int):
        if not is_integer(seed) or not SEED_RANGE.admits(int(seed)):
            raise ConfigError(f"a random-start seed must be an integer in [0, {MAX_SEED}]", field="seed",
                              found=repr(seed))
        self._generator = np.random.RandomState([int(seed)])

    def matrix(self, rows: int, cols: int) -> np.ndarray:
        """The next ``rows`` × ``cols`` draws, filled column by column (as Octave's ``rand(rows, cols)``)."""
        return self._generator.random_sample((cols, rows)).T
