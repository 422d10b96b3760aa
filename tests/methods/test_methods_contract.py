"""The contract checker (``python -m pipeline.methods check``) on every shipped method in every
engine here (Python, Octave; MATLAB: the missing-MATLAB path), and on plug-ins that break the
contract, one way each: each fails with one clear line."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pipeline import methods
from pipeline.cli import run_main
from pipeline.methods import available_methods, get_method
from pipeline.methods.__main__ import check_method, main as methods_main

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHIPPED = [name for name in available_methods() if methods.origin_of(name) == methods.SHIPPED]
MATLAB_TWINS = [name for name in SHIPPED if get_method(name).matlab_function]


@pytest.fixture(autouse=True)
def own_registry(registry):
    """Every test loads its plug-ins into a registry of its own."""


def lines_of(capsys) -> list[str]:
    return capsys.readouterr().out.strip().splitlines()


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_method_passes_the_checker_on_python(name, capsys):
    assert run_main(methods_main, ["check", name, "--engine", "python"]) == 0
    lines = lines_of(capsys)
    assert len(lines) == 7 and all(line.startswith("PASS ") for line in lines[1:]), lines


@pytest.mark.octave
@pytest.mark.parametrize("name", MATLAB_TWINS)
def test_every_shipped_method_passes_the_checker_on_octave(name, octave_engine):
    results = check_method(get_method(name), octave_engine)
    assert [r.check for r in results] == ["output", "deterministic", "unknown parameter refused",
                                         "values outside the declared ranges refused",
                                         "constant features, all-zero labels", "time"]
    if get_method(name).allowed:  # the .m refuses each declared range on its own
        assert results[3].detail.startswith("each of "), results[3].detail
    assert all(r.passed for r in results), [r.line() for r in results if not r.passed]


def test_the_matlab_engine_without_matlab_is_one_line_and_exit_2(capsys):
    assert run_main(methods_main, ["check", "VARIANCE", "--engine", "matlab"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "MATLAB engine for Python is not available" in err[0]


@pytest.mark.parametrize("name, check, found", [
    ("WRONGLEN", "output", "feature scores have the wrong length (expected 12; found 11)"),
    ("NANSCORES", "output", "feature scores are not finite"),
    ("ZEROBASED", "output", "ranking looks 0-based"),
    ("UNSEEDED", "deterministic", "gave different rankings"),
    ("MODIFIES", "output", "MODIFIES writes into its inputs (output array is read-only): the harness passes "
                           "X_train, Y_train and init read-only; work on a copy"),
    ("COMPLEX", "output", "feature scores must be real numbers (expected d real numbers (bool, integer or floating "
                          "point); found dtype complex128)"),
    ("TEXT", "output", "feature scores must be real numbers"),
    ("RAGGED", "output", "feature scores are not an array of numbers"),
    ("EXITS", "output", "EXITS called sys.exit(0) instead of returning its scores"),
    ("DIES", "output", "DIES (broken_methods.py) ended its process (exit code 0) instead of returning"),
    ("INTERRUPTS", "output", "INTERRUPTS raised KeyboardInterrupt itself (no Ctrl-C reaches a worker process)"),
    ("UNSORTED", "output", "the ranking does not sort the scores (decreasing)"),
    ("MASKED", "output", "feature scores are masked (expected d finite real numbers; found 1 masked)"),
])
def test_the_checker_fails_a_broken_python_plugin_with_one_line(name, check, found, capsys):
    assert run_main(methods_main, ["check", name, "--plugins", str(FIXTURES / "broken_python")]) == 1
    failed = [line for line in lines_of(capsys) if line.startswith("FAIL")]
    assert len(failed) == 1 and failed[0].startswith(f"FAIL {check}: ") and found in failed[0], failed


def test_the_checker_fails_a_method_that_kills_the_checks_process_with_one_line_and_exit_1(capsys):
    """The checks run in a worker process: a method that kills it (as ``os._exit(0)`` in the method
    used to end the command with exit 0 and no output) is one line and exit 1."""
    assert run_main(methods_main, ["check", "KILLER", "--plugins", str(FIXTURES / "broken_python")]) == 1
    assert lines_of(capsys) == ["FAIL KILLER: the process running its checks ended (killed by SIGKILL) before they "
                                "finished (os._exit, a signal or a crash in the method's code)"]


def test_what_a_method_started_in_a_session_of_its_own_ends_with_the_checks_process(tmp_path, capsys):
    """A program in a session of its own (as oct2py starts Octave) is outside the checks' process
    group: when the method killed that process, the program used to run on. The method's own
    process, sleeping on with the pipe open, used to hold the command for its 300 s."""
    import psutil

    pid_file = tmp_path / "pid.txt"
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "strays.py").write_text(f"""
import os, signal, subprocess, time
from pipeline.methods.base import MethodSpec


def scores(X, Y, params):
    stray = subprocess.Popen(["sleep", "300"], start_new_session=True)
    with open({str(pid_file)!r}, "w") as handle:
        handle.write(str(stray.pid))
    os.kill(os.getppid(), signal.SIGKILL)  # the process running the checks
    time.sleep(300)


STRAYS = MethodSpec(name="STRAYS", scores=scores)
""")
    started = time.monotonic()
    assert run_main(methods_main, ["check", "STRAYS", "--plugins", str(tmp_path / "plugin")]) == 1
    assert time.monotonic() - started < 120  # not the 300 s of the method's sleep
    assert lines_of(capsys)[-1].startswith("FAIL STRAYS: the process running its checks ended (killed by SIGKILL)")
    stray = int(pid_file.read_text())

    def running() -> bool:
        try:
            return psutil.Process(stray).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    deadline = time.monotonic() + 2.0  # a killed process is reaped by init within moments
    while running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running()


@pytest.mark.octave
def test_the_checker_fails_a_matlab_plugin_that_accepts_an_unknown_parameter(capsys):
    assert run_main(methods_main, ["check", str(FIXTURES / "broken_matlab" / "ACCEPTSALL.m")]) == 1
    lines = lines_of(capsys)
    failed = [line for line in lines if line.startswith("FAIL")]
    assert lines[0].startswith("ACCEPTSALL on octave")
    assert len(failed) == 1 and failed[0].startswith("FAIL unknown parameter refused: a run with the unknown "
                                                     "parameter 'mlfs_check_unknown_parameter' succeeded"), failed


@pytest.mark.octave
def test_the_checker_fails_a_matlab_plugin_that_declares_a_range_it_does_not_enforce(capsys):
    assert run_main(methods_main, ["check", str(FIXTURES / "broken_matlab" / "IGNORESRANGE.m")]) == 1
    failed = [line for line in lines_of(capsys) if line.startswith("FAIL")]
    assert failed == ["FAIL values outside the declared ranges refused: a run with power = 0.0 succeeded although "
                      "power is declared > 0"], failed
