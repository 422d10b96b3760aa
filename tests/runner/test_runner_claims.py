"""Task claims: one holder at a time, stale claims of dead processes broken, live ones respected."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import psutil

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


def test_unreadable_claim_counts_by_age(tmp_path):
    path = tmp_path / ".x.claim"
    path.write_text("")
    assert not TaskClaim(path, stale_after=60).acquire()
    old = time.time() - 120
    os.utime(path, (old, old))
    assert TaskClaim(path, stale_after=60).acquire()


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


def test_abandoned_claim_temporaries_are_cleaned_by_the_next_holder(tmp_path):
    path = tmp_path / ".x.claim"
    old = tmp_path / "..x.claim.k1.tmp"  # mkstemp names: ".<claim name>.<random>.tmp"
    fresh = tmp_path / "..x.claim.k2.tmp"
    old.write_text("{}")
    fresh.write_text("{}")
    os.utime(old, (time.time() - 600, time.time() - 600))
    with TaskClaim(path) as claim:
        assert claim.acquired
    assert not old.exists() and not fresh.exists()
