"""The MATLAB/Octave side takes the results layout from the Python package's data file
(pipeline/results/layout.json, read by mlfs_results_layout.m), in a checkout and in an installed
package, so both front doors write and find the same files (real GNU Octave)."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import asdict
from pathlib import Path

import pytest

from matlab_test_paths import REPO
from pipeline.results.layout import LAYOUT_FILE, task_files

pytestmark = pytest.mark.octave


def test_octave_task_files_are_the_python_ones(octave, tmp_path):
    (files,) = octave.call("mlfs_task_files", str(tmp_path), "LRMFS__alpha_0.1", "emotions", 3.0, nout=1)
    expected = {key: str(path) for key, path in asdict(task_files(tmp_path, "LRMFS__alpha_0.1", "emotions", 3)).items()}
    assert dict(files) == expected


def _installed_task_files(package: Path) -> subprocess.CompletedProcess:
    """``mlfs_task_files`` run from ``package``/matlab, as a wheel installs it (a fresh Octave: the
    shared session must not see a second copy of the functions)."""
    code = (f"addpath('{package / 'matlab' / 'util'}'); f = mlfs_task_files('R', 'M', 'D', 3); "
            "disp(jsonencode(f))")
    return subprocess.run(["octave-cli", "--no-gui", "--norc", "--eval", code], capture_output=True, text=True,
                          timeout=300)


def test_installed_code_reads_the_layout_beside_it(tmp_path):
    package = tmp_path / "pipeline"
    shutil.copytree(REPO / "matlab" / "util", package / "matlab" / "util")
    layout = json.loads(LAYOUT_FILE.read_text())
    layout["task_suffixes"]["kgrid"] = "_kgrid_renamed.json"  # shows which file was read
    (package / "results").mkdir()
    (package / "results" / "layout.json").write_text(json.dumps(layout))
    done = _installed_task_files(package)
    assert done.returncode == 0, done.stderr
    files = json.loads(done.stdout.strip().splitlines()[-1])
    assert files["kgrid"] == "R/M/D_fold3_kgrid_renamed.json" and files["ranking"] == "R/M/D_fold3_ranking.csv"
    (package / "results" / "layout.json").unlink()
    done = _installed_task_files(package)
    assert done.returncode != 0 and "the results layout (layout.json) was not found" in done.stderr
