"""A real single-node SLURM cluster for the tests: MUNGE, slurmctld and slurmd started as root from
a private configuration (``SLURM_CONF``) in a temporary folder, on free ports, and stopped after.

Debian's ``slurm-wlm`` and ``munge`` provide the daemons (``make test`` installs them: the Makefile's
``slurm`` target). Nothing of the machine's own configuration is read or changed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

CONFIG = """\
ClusterName=mlfstest
SlurmctldHost={host}
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
AuthInfo=socket={root}/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={root}/ctld
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
KillWait=10
NodeName={host} CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName=tests Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _memory_mb() -> int:
    total_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                    if line.startswith("MemTotal:"))
    return total_kb // 1024 // 2


@contextlib.contextmanager
def single_node_slurm(root: Path) -> Iterator[dict[str, str]]:
    """Start the cluster under ``root``; yield the environment that points SLURM's commands at it."""
    if os.geteuid() != 0:
        raise RuntimeError("a single-node SLURM is started as root (slurmd runs jobs as their users); "
                           "run make test as root, as CI does")
    root.mkdir(parents=True, exist_ok=True)
    for folder in ("ctld", "spool"):
        (root / folder).mkdir(exist_ok=True)
    key = root / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    host = socket.gethostname()
    (root / "slurm.conf").write_text(CONFIG.format(host=host, ctld_port=_free_port(), slurmd_port=_free_port(),
                                                   root=root, cpus=os.cpu_count(), memory=_memory_mb()))
    env = {**os.environ, "SLURM_CONF": str(root / "slurm.conf")}
    subprocess.run(["munged", "--force", f"--socket={root}/munge.sock", f"--key-file={key}",
                    f"--log-file={root}/munged.log", f"--pid-file={root}/munged.pid", f"--seed-file={root}/munged.seed"],
                   check=True, env=env)
    try:
        subprocess.run(["slurmctld", "-i"], check=True, env=env)
        subprocess.run(["slurmd"], check=True, env=env)
        _wait_for_idle_node(env, root)
        yield env
    finally:
        for pid_file in ("slurmd.pid", "slurmctld.pid", "munged.pid"):
            _stop(root / pid_file)


def _wait_for_idle_node(env: dict[str, str], root: Path, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        state = subprocess.run(["sinfo", "--noheader", "--format=%t"], capture_output=True, text=True, env=env)
        if state.stdout.strip() == "idle":
            return
        time.sleep(0.5)
    logs = "\n".join(path.read_text()[-2000:] for path in root.glob("*.log"))
    raise RuntimeError(f"the SLURM node did not become idle within {limit} s:\n{logs}")


def _stop(pid_file: Path, limit: float = 15.0) -> None:
    """SIGTERM the daemon of ``pid_file`` and wait until it has ended (then SIGKILL)."""
    try:
        pid = int(pid_file.read_text().split()[0])
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError, IndexError):
        return
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.1)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
