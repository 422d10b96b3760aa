"""Every command of docs/plugins.md runs as written (from an empty folder to tables, in Python and
in Octave), and the shipped plug-in example passes the contract checker."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "plugins.md"
PLACEHOLDER = "path/to/mlfs-bench"


def blocks(language: str) -> list[str]:
    text = DOC.read_text()
    return [block.replace(PLACEHOLDER, str(REPO)) for block in re.findall(rf"```{language}\n(.*?)```", text, re.S)]


@pytest.mark.slow
@pytest.mark.octave
def test_every_command_of_the_plugin_guide_runs(tmp_path):
    (bash,) = blocks("bash")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(REPO / "python")}
    done = subprocess.run(["bash", "-e", "-c", bash], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "12 done, 0 skipped" in done.stderr and "0 stale, 0 failed of 12 tasks" in done.stdout  # + 2 references
    assert "FAIL" not in done.stdout and done.stdout.count("PASS ") == 12  # 6 checks, 2 methods
    tables = (tmp_path / "my_study" / "tables" / "kgrid" / "table_microf1.tex").read_text()
    assert all(name in tables for name in ("FISHER", "MADEV", "GIVEN", "SRFS", "VARIANCE"))
    (matlab,) = blocks("matlab")[1:]
    script = matlab.replace("...\n", " ") + "\nprintf('%d done, %d skipped\\n', ans.done, ans.skipped);"
    octave = subprocess.run(["octave-cli", "--no-gui", "--quiet", "--eval", script.replace("true);", "true)")],
                            cwd=tmp_path / "my_study", capture_output=True, text=True, timeout=600)
    assert "0 done, 4 skipped" in octave.stdout, octave.stdout + octave.stderr
