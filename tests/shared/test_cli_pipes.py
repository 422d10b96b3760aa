"""Piping a command into a reader that stops early (``... | head``) ends quietly: no
BrokenPipeError traceback, the exit status a shell gives ``yes | head`` (141), in the core and the
protocol commands alike (one mechanism: :func:`pipeline.cli.run_main`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli import BROKEN_PIPE_EXIT

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
# commands that print to standard output on success, without data
COMMANDS = [["pipeline.datasets", "list"],
            ["pipeline.protocols.forecast", "compare_models", "--results-dirs", "seasonal-naive", "--model-names", "n"]]


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": f"{PYTHON_DIR}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_a_closed_pipe_ends_the_command_quietly(command):
    # the read end is closed before the command writes: every write meets a pipe without reader
    process = subprocess.Popen([sys.executable, "-m", *command], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=_env())
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == BROKEN_PIPE_EXIT
    assert stderr == ""


def test_head_reads_the_first_line_and_nothing_else_is_printed():
    shell = f"{sys.executable} -m pipeline.datasets list | head -n 1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True,
                          env=_env(), timeout=120)
    assert done.stdout.split() == ["dataset", "format", "n", "train", "test", "d", "L", "card."]
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
    assert done.returncode in (0, BROKEN_PIPE_EXIT)  # 141 when head left before the last write
