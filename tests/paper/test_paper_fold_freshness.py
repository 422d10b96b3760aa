"""``paper run`` and ``status`` after the folds were exported again with another seed: every result of
the old folds is stale, with its reason (docs/results-schema.md), not kept."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SUITE = """
name: fresh
datasets: [emotions]
folds: {{mode: holdout, count: 1, seed: {seed}, test_size: reference}}
methods: {{VARIANCE: {{}}, LABELCORR: {{}}}}
engine: python
grids: {{kgrid: {{k_min: 10, k_max: 30, k_step: 10}}}}
run: {{executor: serial}}
tables: {{ref_method: VARIANCE, figures: false}}
"""


def paper(home: Path, shared_data: Path, command: str, *options) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "MLFS_SHARED_DATA": str(shared_data)}
    done = subprocess.run([sys.executable, "-m", "pipeline.paper", command, str(home / "suite.yaml"), "--root",
                           str(home / "root"), *options] + (["--no-progress"] if command == "run" else []),
                          capture_output=True, text=True, env=env, cwd=home, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def test_results_of_folds_exported_again_are_stale(tmp_path, shared_data):
    (tmp_path / "suite.yaml").write_text(SUITE.format(seed=42))
    assert "3 done, 0 skipped" in paper(tmp_path, shared_data, "run").stderr
    # another seed: the suite refuses the old folds and says to delete them; deleted, they are exported again
    (tmp_path / "suite.yaml").write_text(SUITE.format(seed=7))
    shutil.rmtree(tmp_path / "root" / "data" / "paper_matlab_minmax" / "emotions")
    rerun = paper(tmp_path, shared_data, "run", "--methods", "VARIANCE")
    assert "recomputed 1 stale task(s): the fold's training part changed" in rerun.stderr     # VARIANCE
    assert "recomputed 1 stale task(s): the fold file changed" in rerun.stderr                # the reference
    status = paper(tmp_path, shared_data, "status").stdout
    assert "2 done, 0 missing, 1 stale, 0 failed of 3 tasks" in status
    assert "stale    LABELCORR/emotions/fold0: the fold's training part changed" in status
    assert "recomputed 1 stale task(s): the fold's training part changed" in \
        paper(tmp_path, shared_data, "run").stderr
    assert "remaining: nothing" in paper(tmp_path, shared_data, "status").stdout
