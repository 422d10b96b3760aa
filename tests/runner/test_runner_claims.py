"""Task claims: one holder at a time, stale claims of dead processes broken, live ones respected."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import psutil
import pytest

from pipeline.fileio import Writer
from pipeline.runner.claims import TaskClaim


def test_exclusive_and_released(tmp_path):
    path = tmp_path / "m" / ".d_fold0.claim"
    with TaskClaim(path) as first:
        assert first.acquired and path.is_file()
        assert json.loads(path.read_text())["pid"] == os.getpid()
        with TaskClaim(path) as second:
            assert not second.acquired  # this process is alive: not stale
        assert path.is_file()  # the loser did not remove the winner's claim
    assert not path.exists()


def test_claim_of_a_dead_process_is_broken(tmp_path):
    path = tmp_path / ".x.claim"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    path.write_text(json.dumps({"host": socket.gethostname(), "pid": int(dead.stdout), "started": time.time()}))
    with TaskClaim(path) as claim:
        assert claim.acquired
        assert json.loads(path.read_text())["pid"] == os.getpid()


def test_claim_from_another_host_expires_after_stale_after(tmp_path):
    path = tmp_path / ".x.claim"
    path.write_text(json.dumps({"host": "elsewhere", "pid": 1, "started": time.time()}))
    assert not TaskClaim(path, stale_after=3600).acquire()
    old = time.time() - 7200
    os.utime(path, (old, old))
    assert TaskClaim(path, stale_after=3600).acquire()


@pytest.mark.parametrize("content", ["", "{", "[]", '{"host": "h"}', '{"pid": "12", "host": "h", "started": 1}'])
def test_empty_or_corrupt_claim_is_abandoned_at_once(tmp_path, content):
    """A complete claim is written before it is linked: no live holder ever shows one like these."""
    path = tmp_path / ".x.claim"
    path.write_text(content)
    claim = TaskClaim(path, stale_after=3600)
    assert claim.is_free()
    assert claim.acquire()
    assert json.loads(path.read_text())["pid"] == os.getpid()


def test_claim_of_a_zombie_or_a_reused_pid_is_broken(tmp_path):
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.time() + 10
    while time.time() < deadline and psutil.Process(zombie.pid).status() != psutil.STATUS_ZOMBIE:
        time.sleep(0.05)  # exited but not yet reaped by us: a zombie
    path = tmp_path / ".z.claim"
    path.write_text(json.dumps({"host": socket.gethostname(), "pid": zombie.pid, "started": time.time()}))
    assert TaskClaim(path).acquire()
    zombie.wait()
    reused = tmp_path / ".r.claim"  # our own pid, but a claim older than this process
    reused.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "started": 1.0}))
    assert TaskClaim(reused).acquire()


def test_claim_temporaries_of_dead_writers_only_are_cleaned_by_the_next_holder(tmp_path):
    path = tmp_path / ".x.claim"
    dead = _dead_writer()
    abandoned = tmp_path / f"..x.claim.{dead}.k1.tmp"
    live = tmp_path / f"..x.claim.{Writer.current()}.k2.tmp"  # a racing claimant, about to link
    old_unnamed = tmp_path / "..x.claim.k3.tmp"  # written by an older version: only removed when old
    fresh_unnamed = tmp_path / "..x.claim.k4.tmp"
    for temporary in (abandoned, live, old_unnamed, fresh_unnamed):
        temporary.write_text("{}")
    os.utime(old_unnamed, (time.time() - 7200, time.time() - 7200))
    with TaskClaim(path, stale_after=3600) as claim:
        assert claim.acquired
    assert not abandoned.exists() and not old_unnamed.exists()
    assert live.exists() and fresh_unnamed.exists()


def _dead_writer() -> Writer:
    """The writer tag of a process that has exited."""
    proc = subprocess.run([sys.executable, "-c", "from pipeline.fileio import Writer; print(Writer.current())"],
                          capture_output=True, text=True, check=True)
    return Writer.parse(proc.stdout.strip())


def test_holder_is_free_once_it_ends(tmp_path):
    """is_free() follows a real holder process: held while it runs, free once it is gone."""
    path = tmp_path / ".x.claim"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_CLAIM, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert not TaskClaim(path).is_free()
        assert not TaskClaim(path).acquire()
    finally:
        holder.kill()
        holder.wait()
    assert TaskClaim(path).is_free()
    assert TaskClaim(path).acquire()


HOLD_CLAIM = """
import sys, time
from pipeline.runner.claims import TaskClaim
claim = TaskClaim(sys.argv[1])
assert claim.acquire()
print("held", flush=True)
time.sleep(600)
"""


def test_a_stop_between_the_link_and_the_task_leaves_no_claim(tmp_path, monkeypatch):
    """CI once found a claim left by a worker stopped while it acquired one: the stop came after the
    link, inside ``__enter__``, where ``with`` does not call ``__exit__``."""
    import pipeline.runner.claims as claims
    from pipeline.processes import WorkerStopped

    def stopped(*_args):
        raise WorkerStopped
    monkeypatch.setattr(claims, "remove_abandoned_temporaries", stopped)
    path = tmp_path / ".x.claim"
    with pytest.raises(WorkerStopped):
        with TaskClaim(path):
            pass
    assert not path.exists()


def test_the_way_out_of_a_stopped_worker_releases_its_claims_only(tmp_path):
    """A stop inside the release (or a watchdog ending the worker) leaves the claim listed; the
    worker's way out removes it, but never a claim another process holds now."""
    from pipeline.runner.claims import release_claims_of_this_process
    ours, taken = tmp_path / ".ours.claim", tmp_path / ".taken.claim"
    assert TaskClaim(ours).acquire() and TaskClaim(taken).acquire()
    other = {"host": socket.gethostname(), "pid": os.getppid(), "started": time.time()}
    taken.write_text(json.dumps(other))  # broken as abandoned and taken by another run meanwhile
    release_claims_of_this_process()
    assert not ours.exists()
    assert json.loads(taken.read_text()) == other
