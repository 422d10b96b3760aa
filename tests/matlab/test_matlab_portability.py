"""The MATLAB side must run in MATLAB too, which cannot run here: every Octave-only built-in sits in
an ``if mlfs_is_octave()`` branch, and what the MATLAB branch computes instead is checked in Octave."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

MATLAB = Path(__file__).resolve().parents[2] / "matlab"
OCTAVE_ONLY = ("nth_element", "getpid", "hash", "svd_driver")
GUARD_LINES = 3  # the guard stands at most this many lines above the call


def _code(line: str) -> str:
    return line.split("%", 1)[0]


@pytest.mark.parametrize("path", sorted(MATLAB.rglob("*.m")), ids=lambda p: str(p.relative_to(MATLAB)))
def test_octave_only_builtins_are_guarded(path):
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines):
        for name in OCTAVE_ONLY:
            if re.search(rf"(?<![\w'.]){name}\(", _code(line)):
                above = lines[max(0, number - GUARD_LINES):number]
                assert any("if mlfs_is_octave()" in _code(a) for a in above), (
                    f"{path.name}:{number + 1}: {name} is Octave-only; call it in an 'if mlfs_is_octave()' branch")


@pytest.mark.octave
def test_matlab_branch_of_the_row_threshold_equals_nth_element(oc):
    rng = np.random.default_rng(0)
    key = rng.integers(0, 5, size=(40, 30)).astype(float)  # many ties
    key[rng.random(key.shape) < 0.3] = np.nan
    key[0] = np.nan  # a row with fewer numbers than count
    for count in (1, 5, 30):
        nth = oc.feval("nth_element", key, float(count), 2.0)
        sorted_key = oc.feval("sort", key, 2.0)
        np.testing.assert_array_equal(np.asarray(nth).ravel(), np.asarray(sorted_key)[:, count - 1])
