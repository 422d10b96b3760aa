"""A worker's stop (SIGTERM -> WorkerStopped) reaches the task even when the signal arrives while Python
runs code that cannot raise (``__del__``, a weakref callback such as importlib's module-lock clean-up,
where a Ctrl-C of a process-pool run once left a traceback on the terminal)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

WORKER = textwrap.dedent("""\
    import os, signal, time
    from pipeline.processes import WorkerStopped
    from pipeline.runner.lifecycle import become_worker

    become_worker(os.getppid())

    class StoppedWhileCollected:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(200_000):  # the handler runs here, where its exception cannot propagate
                pass

    try:
        StoppedWhileCollected()
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            pass
        print("not stopped")
    except WorkerStopped:
        print("stopped in the task's own code")
    """)


def test_a_stop_raised_where_python_drops_exceptions_is_delivered_again():
    done = subprocess.run([sys.executable, "-c", WORKER], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "stopped in the task's own code", done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
