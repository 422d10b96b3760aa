"""The Octave process's lifecycle with a real Octave: one process per session and no default
session, its exchange folder gone with it, a signal during a call killing Octave at once (never a
stale result), timeouts that kill, and start-up chatter sent to the log instead of the terminal."""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import psutil
import pytest

from engine_test_data import FIXTURES
from pipeline.engines.octave import OctaveEngine, OctaveSession, shared_session
from pipeline.fileio import remove_abandoned_scratch_dirs, scratch_root
from pipeline.methods import get_method
from pipeline.methods.base import MethodSpec

pytestmark = pytest.mark.octave

HANG = MethodSpec(name="MLFS_TEST_HANG", matlab_function="MLFS_TEST_HANG")
CHATTER = ("octave: X11 DISPLAY environment variable not set",
           "error: ignoring const execution_exception& while preparing to exit")
ONE_SESSION = """
import json, sys, psutil
from pipeline.engines.octave import OctaveSession
session = OctaveSession(timeout=60)
session.start()
octaves = [p.pid for p in psutil.Process().children(recursive=True) if p.name().startswith("octave")]
exchange = session._exchange
print(json.dumps({"octaves": octaves, "session": session.pid, "default": hasattr(sys.modules["oct2py"], "octave"),
                  "exchange": str(exchange), "exists": exchange.is_dir()}))
session.close()
print(json.dumps({"exchange_after_close": exchange.exists()}))
"""


def test_a_session_is_one_octave_and_leaves_no_folder():
    proc = subprocess.run([sys.executable, "-c", ONE_SESSION], capture_output=True, text=True, check=True)
    started, closed = (json.loads(line) for line in proc.stdout.splitlines())
    assert started["octaves"] == [started["session"]]  # no default session of oct2py's import
    assert started["default"] is False
    assert started["exists"] and started["exchange"].startswith(f"{scratch_root()}/mlfs.")
    assert closed == {"exchange_after_close": False}
    assert not os.path.exists(os.path.dirname(started["exchange"]))  # the process's scratch folder too
    assert not any(line in proc.stderr for line in CHATTER)


IDLE_SESSION = """
import time
from pipeline.engines.octave import OctaveSession
session = OctaveSession(timeout=60)
session.start()
print(session.pid, flush=True)
time.sleep(600)
"""


def test_octave_dies_with_the_process_that_started_it_and_dumps_nothing(tmp_path):
    owner = subprocess.Popen([sys.executable, "-c", IDLE_SESSION], cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    octave = psutil.Process(int(owner.stdout.readline()))
    owner.kill()  # no clean-up runs: the kernel hangs up Octave's terminal
    owner.wait()
    octave.wait(timeout=60)
    assert not octave.is_running()
    assert list(tmp_path.iterdir()) == []  # no octave-workspace dump in the working folder
    # SIGKILL: nobody could remove the owner's scratch folder; the next start of any run does. With
    # parallel test workers that start may already have happened, so the folder may be gone already.
    left = list(scratch_root().glob(f"mlfs.{owner.pid}-*"))
    assert len(left) <= 1
    removed = remove_abandoned_scratch_dirs()
    assert all(path in removed and not path.exists() for path in left)


STARTING_SESSION = """
import time
from pipeline.engines.octave import OctaveSession
OctaveSession(timeout=60).start()
time.sleep(600)
"""


def _octave_repl_started(owner: psutil.Process) -> psutil.Process | None:
    for child in owner.children():
        with contextlib.suppress(psutil.Error):
            if "--interactive" in child.cmdline():
                return child
    return None


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.07, 0.08, 0.1, 0.15, 0.3])
def test_octave_hung_up_while_it_starts_dumps_nothing(tmp_path, delay):
    """The dump settings hold from Octave's first instruction on: before the fix, Octave hung up
    between 0.07 s and 0.4 s after its start (its start-up files, oct2py's first commands) wrote
    octave-workspace into the working folder."""
    owner = subprocess.Popen([sys.executable, "-c", STARTING_SESSION], cwd=tmp_path)
    octave = None
    while octave is None and owner.poll() is None:
        octave = _octave_repl_started(psutil.Process(owner.pid))
    time.sleep(delay)
    owner.kill()
    owner.wait()
    octave.wait(timeout=60)
    assert list(tmp_path.iterdir()) == []
    remove_abandoned_scratch_dirs()


def test_octave_reads_the_users_site_file_after_turning_the_dumps_off(tmp_path, monkeypatch):
    site_file = tmp_path / "site_octaverc"
    site_file.write_text('setenv("MLFS_TEST_SITE_FILE_READ", "yes");\n')
    monkeypatch.setenv("OCTAVE_SITE_INITFILE", str(site_file))
    session = OctaveSession(timeout=60)
    try:
        octave = session.start()
        assert octave.feval("getenv", "MLFS_TEST_SITE_FILE_READ") == "yes"
        assert not any(octave.feval(f"{cause}_dumps_octave_core") for cause in ("sighup", "sigterm", "crash"))
        assert octave.feval("pwd") == os.getcwd()  # started in the scratch folder, then moved here
    finally:
        session.close()
    assert os.environ["OCTAVE_SITE_INITFILE"] == str(site_file)


def _fresh_shared_session_in_child(parent_id: int) -> None:
    os._exit(0 if id(shared_session(600.0)) != parent_id else 1)


def test_a_forked_worker_never_reuses_the_parents_session():
    """The parent's Octave and exchange folder are not the worker's: it starts its own."""
    parent = shared_session(600.0)
    child = multiprocessing.get_context("fork").Process(target=_fresh_shared_session_in_child, args=(id(parent),))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert shared_session(600.0) is parent


def _send_sigint_later(delay: float) -> threading.Timer:
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_sigint_during_a_call_kills_octave_and_raises_keyboard_interrupt():
    session = OctaveSession(timeout=600, extra_paths=[FIXTURES])
    engine = OctaveEngine(session=session)
    X, Y = np.random.default_rng(0).random((20, 5)), np.ones((20, 2))
    try:
        ranking, _ = engine.rank(get_method("VARIANCE"), X, Y, {}, None)  # a first call leaves its outputs
        octave = psutil.Process(session.pid)
        _send_sigint_later(2.0)
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            engine.rank(HANG, X, Y, {}, None)  # never returns by itself
        assert time.monotonic() - start < 60
        assert not session.running and not octave.is_running()
        again, _ = engine.rank(get_method("VARIANCE"), X, Y, {}, None)
        np.testing.assert_array_equal(again, ranking)
        assert session.starts == 2
    finally:
        engine.close()


def test_timeout_kills_octave_at_once():
    session = OctaveSession(timeout=2, extra_paths=[FIXTURES])
    engine = OctaveEngine(session=session)
    try:
        session.start()
        octave = psutil.Process(session.pid)
        with pytest.raises(Exception, match="MLFS_TEST_HANG timed out in Octave after 2 s"):
            engine.rank(HANG, np.ones((4, 3)), np.ones((4, 1)), {}, None)
        assert not octave.is_running() and not session.running
    finally:
        engine.close()


ASKS = """
import sys, time
from pipeline.engines.octave import OctaveSession
session = OctaveSession(timeout=600)
started = time.monotonic()
try:
    session.call("input", "how many? ", nout=1)
except Exception as exc:
    print(type(exc).__name__, exc)
print(f"after {time.monotonic() - started:.1f} s")
session.close()
"""


def test_a_call_asking_for_keyboard_input_fails_at_once_instead_of_reading_our_stdin():
    # oct2py would relay the prompt to this process's standard input, which nobody answers in a run,
    # and wait there whatever the timeout (until the pipe closes)
    process = subprocess.Popen([sys.executable, "-c", ASKS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)  # its stdin stays open, unanswered
    killer = threading.Timer(120, process.kill)
    killer.start()
    try:
        out = process.stdout.read()
    finally:
        killer.cancel()
        process.stdin.close()
        process.wait()
    assert "EngineError" in out and "the code asked for keyboard input ('how many?')" in out, out
    assert float(out.split("after ")[1].split(" s")[0]) < 60


def test_start_up_chatter_goes_to_the_log_not_the_terminal(tmp_path, monkeypatch, capfd, caplog):
    noisy = tmp_path / "noisy-octave"
    noisy.write_text("#!/bin/sh\n" + "".join(f"echo '{line}' >&2\n" for line in CHATTER)
                     + 'exec octave-cli "$@"\n')
    noisy.chmod(0o755)
    monkeypatch.setenv("OCTAVE_EXECUTABLE", str(noisy))
    session = OctaveSession(timeout=60)
    with caplog.at_level(logging.INFO, logger="pipeline.engines.octave"):
        session.start()
        session.close()
    assert not any(line in capfd.readouterr().err for line in CHATTER)
    assert all(line in caplog.text for line in CHATTER)
