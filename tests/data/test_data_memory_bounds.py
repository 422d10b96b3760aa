"""A fold whose arrays are declared double but stored compressed as uint8 (MATLAB's own way to
store small integers) costs 9 bytes per element once loaded, 1,000 times its size on disk. Both
loaders count that from the headers, before anything is inflated: above the size limit, or above
the memory the process can still get, the fold is refused with one line. The memory case is
produced for real, under an address-space limit (``RLIMIT_AS``) set in a subprocess."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hostile_mat import compressed, file_bytes, matrix, zero_bomb, MI_UINT8
from pipeline.data.folds import load_fold
from pipeline.errors import DataError

ROWS = 5_000_000  # X_train 5,000,000 x 20 and Y_train 5,000,000 x 2: 990 MB once loaded, 110 KB on disk


@pytest.fixture(scope="module")
def narrow_bomb(tmp_path_factory):
    """``<folds>/bomb/fold0.mat``: X_train and Y_train of zeros declared double, stored as uint8."""
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("folds") / "bomb" / "fold0.mat"
    path.parent.mkdir()
    path.write_bytes(file_bytes(zero_bomb("X_train", (ROWS, 20), MI_UINT8), zero_bomb("Y_train", (ROWS, 2), MI_UINT8),
                                compressed(matrix("X_test", rng.random((5, 20)))),
                                compressed(matrix("Y_test", np.ones((5, 2))))))
    assert path.stat().st_size < 200_000
    return path


def test_the_converted_copy_counts_against_the_size_limit(narrow_bomb, monkeypatch):
    # 8 bytes per element as float64 (880,000,160) plus the inflated uint8 data (110,000,...)
    monkeypatch.setenv("MLFS_MAX_FOLD_BYTES", str(900_000_000))
    with pytest.raises(DataError) as info:
        load_fold(narrow_bomb)
    message = str(info.value)
    assert "field 'X_train': arrays larger than the size limit (expected at most 900000000 bytes" in message
    assert "X_train 5000000x20 double stored as uint8, Y_train 5000000x2 double stored as uint8" in message


_UNDER_LIMIT = textwrap.dedent("""
    import resource, sys
    from pipeline import kgrid
    from pipeline.cli import run_main
    with open("/proc/self/statm") as handle:
        used = int(handle.read().split()[0]) * resource.getpagesize()
    limit = used + 600_000_000  # room for a fold of 600 MB, not for this one
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.exit(run_main(kgrid.main, sys.argv[1:]))
""")


def test_python_front_door_refuses_it_under_an_address_space_limit(narrow_bomb, tmp_path):
    proc = subprocess.run([sys.executable, "-c", _UNDER_LIMIT, "--engine", "python", "--methods", "VARIANCE",
                           "--no-progress", "--data-dir", str(narrow_bomb.parents[1]),
                           "--results-dir", str(tmp_path / "r")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
    failed = [line for line in proc.stderr.splitlines() if line.startswith("FAILED")]
    # the method's task and the all-features reference of the fold, each refused before inflating
    assert [line.split(":")[0] for line in failed] == ["FAILED VARIANCE/bomb/fold0", "FAILED _reference/bomb/fold0"]
    for line in failed:
        assert "not enough memory to load the fold" in line, proc.stderr
        assert "left under the address-space limit" in line and "double stored as uint8" in line


@pytest.mark.octave
def test_octave_loader_refuses_it_under_an_address_space_limit(narrow_bomb):
    util = Path(__file__).resolve().parents[2] / "matlab" / "util"
    script = (f"addpath('{util}'); try, mlfs_load_fold('{narrow_bomb}'); disp('loaded'); "
              "catch failure, disp(failure.identifier); disp(failure.message); end")
    limit = 1_400_000_000  # octave-cli takes about 350 MB of address space; this fold needs 1.9 GB in Octave

    def limited():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = subprocess.run(["octave-cli", "--no-gui", "--quiet", "--no-window-system", "--eval", script],
                          preexec_fn=limited, capture_output=True, text=True, timeout=600)
    lines = proc.stdout.splitlines()
    assert lines[:1] == ["mlfs:fold:noMemory"], proc.stdout + proc.stderr
    assert len(lines) == 2 and f"{narrow_bomb}, field 'X_train': not enough memory to load the fold" in lines[1]
    assert "X_train 5000000x20 double stored as uint8" in lines[1]
