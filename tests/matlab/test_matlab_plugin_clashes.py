"""A MATLAB/Octave plug-in folder may not hold a .m named like a function defined elsewhere (real
GNU Octave): on the path it would replace a shipped helper, an Octave library function or a
built-in for every method, the shipped baselines included, silently and outside their code
fingerprints. Both front doors refuse such a folder before any work, with the file and the
function it would replace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from matlab_test_paths import REPO
from pipeline.errors import EngineError

pytestmark = pytest.mark.octave

DATA = REPO / "data" / "paper_matlab_minmax"
SHADOWS = {  # file name -> what the refusal names
    "mlfs_rank_scores.m": str(REPO / "matlab" / "util" / "mlfs_rank_scores.m"),
    "repmat.m": "/m/general/repmat.m",
    "numel.m": "the built-in numel",
}


def _folder(tmp_path: Path, shadow: str) -> Path:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "MADEV.m").write_text((REPO / "docs" / "plugin_example" / "MADEV.m").read_text())
    (folder / shadow).write_text(f"function out = {shadow[:-2]}(varargin)\n  out = 0;\nend\n")
    return folder


@pytest.mark.parametrize("shadow", SHADOWS)
def test_the_python_front_door_refuses_a_folder_that_shadows_a_function(tmp_path, shadow):
    folder = _folder(tmp_path, shadow)
    done = subprocess.run([sys.executable, "-m", "pipeline.kgrid", "--engine", "octave", "--plugins", str(folder),
                           "--methods", "MADEV", "VARIANCE", "--datasets", "demo", "--folds", "1", "--data-dir",
                           str(DATA), "--results-dir", str(tmp_path / "results"), "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {folder / shadow}: ")
    assert f"the plug-in file is named like {SHADOWS[shadow]}" in done.stderr or SHADOWS[shadow] in done.stderr
    assert "rename it" in done.stderr and not (tmp_path / "results").exists()


@pytest.mark.parametrize("shadow", SHADOWS)
def test_run_suite_refuses_a_folder_that_shadows_a_function(octave, tmp_path, shadow):
    folder = _folder(tmp_path, shadow)
    with pytest.raises(EngineError, match=r"mlfs:plugins:nameClash") as refused:
        octave.call("run_suite", str(tmp_path / "results"), str(DATA), ["demo"], ["MADEV", "VARIANCE"],
                    "folds", 1.0, "verbose", False, "plugins", [str(folder)], nout=1)
    assert f"{folder / shadow} is named like" in str(refused.value) and SHADOWS[shadow] in str(refused.value)
    assert not (tmp_path / "results").exists()
    (path,) = octave.call("path", nout=1)
    assert str(folder) not in path  # the folder never reached the path


def test_a_folder_without_clashes_is_accepted_by_run_suite(octave, tmp_path):
    folder = _folder(tmp_path, "madev_helper.m")
    (summary,) = octave.call("run_suite", str(tmp_path / "results"), str(DATA), ["demo"], ["MADEV"], "folds", 1.0,
                             "verbose", False, "k_max", 30.0, "plugins", [str(folder)], nout=1)
    assert summary["done"] == 1
    octave.call("rmpath", str(folder), nout=0)
