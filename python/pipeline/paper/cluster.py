"""``paper sbatch``: a suite's tasks spread over a SLURM job array, for clusters whose compute nodes
cannot reach back to a scheduler on the login node (docs/cluster.md).

Each array element runs ``paper run SUITE --no-tables``: it claims free tasks one by one (the
claim files every concurrent run already respects), computes them, and ends when none is left.
``--signal=B:TERM@GRACE`` has SLURM send SIGTERM ``GRACE`` seconds before the walltime; the
element's Python replaced the batch shell (``exec``), so it gets the signal, stops claiming,
interrupts the task it runs, releases its claims and exits 143, leaving no partial file (every
file is written to a temporary name and renamed). One more job, started when the whole array has
ended (``--dependency=afterany``), runs ``paper run SUITE``: it computes what is left (tasks of
elements cancelled or out of time) and makes the tables. Submitting the same script again resumes.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..fileio import atomic_write_text

#: SLURM's time formats for --time that this tool reads: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
_WALLTIME = re.compile(r"(?:(?P<days>\d+)-)?(?P<parts>\d+(?::\d+){0,2})")
#: Seconds between two looks at the queue while ``--wait`` waits for the jobs.
_QUEUE_POLL = 2.0


def walltime_seconds(walltime: str) -> int:
    """The seconds of a SLURM ``--time`` value; ConfigError naming the option for anything else."""
    match = _WALLTIME.fullmatch(walltime.strip())
    if match is None:
        raise ConfigError("not a SLURM time", field="--walltime", expected="MM, HH:MM:SS or D-HH:MM:SS", found=walltime)
    parts = [int(p) for p in match["parts"].split(":")]
    if match["days"] is not None:  # D-HH[:MM[:SS]]
        hours, minutes, seconds = (parts + [0, 0])[:3]
        total = ((int(match["days"]) * 24 + hours) * 60 + minutes) * 60 + seconds
    else:  # MM, MM:SS, HH:MM:SS
        total = {1: lambda m: m * 60, 2: lambda m, s: m * 60 + s,
                 3: lambda h, m, s: (h * 60 + m) * 60 + s}[len(parts)](*parts)
    if total <= 0:
        raise ConfigError("the walltime must be positive", field="--walltime", found=walltime)
    return total


@dataclass(frozen=True)
class JobArray:
    """What ``paper sbatch`` writes: the suite to run, where, and the SLURM request of each element."""

    suite_file: Path
    root: Path
    elements: int
    walltime: str
    grace: int
    cpus_per_task: int = 1
    partition: str | None = None
    memory: str | None = None
    sbatch_options: tuple[str, ...] = ()
    #: the options of ``paper sbatch`` that every job's ``paper run`` takes too (--datasets, --plugins, ...)
    run_options: tuple[str, ...] = ()
    python: str = sys.executable

    def __post_init__(self) -> None:
        if not 1 <= self.elements <= 10_000:
            raise ConfigError("an array needs between 1 and 10000 elements", field="--array", found=self.elements)
        if not 0 < self.grace < walltime_seconds(self.walltime):
            raise ConfigError("the grace must be positive and shorter than the walltime", field="--grace",
                              expected=f"0 < grace < {walltime_seconds(self.walltime)} s", found=self.grace)

    def run_command(self, *extra: str) -> str:
        """``paper run`` of this suite and root (absolute paths: a job starts in the submit folder)."""
        words = [self.python, "-m", "pipeline.paper", "run", str(self.suite_file.resolve()), "--root",
                 str(self.root.resolve()), "--no-progress", "--jobs", str(self.cpus_per_task), *self.run_options,
                 *extra]
        return shlex.join(words)

    def script(self, log_dir: Path) -> str:
        """The job-array script: one element per array index, each claiming tasks until none is left."""
        header = [f"--array=0-{self.elements - 1}", f"--time={self.walltime}", f"--signal=B:TERM@{self.grace}",
                  f"--cpus-per-task={self.cpus_per_task}", f"--output={log_dir.resolve()}/%A_%a.out",
                  "--job-name=mlfs-tasks"]
        header += [f"--partition={self.partition}"] * (self.partition is not None)
        header += [f"--mem={self.memory}"] * (self.memory is not None)
        header += list(self.sbatch_options)
        return "\n".join([
            "#!/bin/bash",
            *(f"#SBATCH {shlex.quote(option)}" for option in header),
            "# Written by python -m pipeline.paper sbatch (docs/cluster.md). Each element claims free tasks",
            "# until none is left; SIGTERM (GRACE s before the walltime, or scancel) stops it cleanly.",
            "set -euo pipefail",
            f"exec {self.run_command('--no-tables')}",
            ""])

    def tables_command(self, log_dir: Path, after: str) -> list[str]:
        """The ``sbatch`` command of the job that, once the array has ended, finishes what is left and
        makes the tables."""
        options = [f"--dependency=afterany:{after}", f"--time={self.walltime}", f"--cpus-per-task={self.cpus_per_task}",
                   f"--output={log_dir.resolve()}/%j_tables.out", "--job-name=mlfs-tables", "--parsable"]
        options += [f"--partition={self.partition}"] * (self.partition is not None)
        options += [f"--mem={self.memory}"] * (self.memory is not None)
        return ["sbatch", *options, *self.sbatch_options, f"--wrap=exec {self.run_command()}"]


def write_job_array(array: JobArray, script_path: Path) -> Path:
    log_dir = script_path.parent / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(script_path, array.script(log_dir))
    script_path.chmod(0o755)
    return log_dir


def submit(array: JobArray, script_path: Path, log_dir: Path, wait: bool) -> int:
    """Submit the array and the tables job after it; with ``wait``, wait until both have ended."""
    array_id = _sbatch(["sbatch", "--parsable", str(script_path)])
    tables_id = _sbatch(array.tables_command(log_dir, array_id))
    print(f"submitted job array {array_id} ({array.elements} elements) and tables job {tables_id}; "
          f"logs in {log_dir}; stop them with: scancel {array_id} {tables_id}")
    if not wait:
        return 0
    try:
        while _queued(array_id, tables_id):
            time.sleep(_QUEUE_POLL)
    except KeyboardInterrupt:
        print(f"stopped waiting; the jobs keep running: scancel {array_id} {tables_id} to stop them",
              file=sys.stderr)
        raise
    print(f"jobs {array_id} and {tables_id} have ended; python -m pipeline.paper status tells what is done")
    return 0


def _sbatch(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise ConfigError("sbatch not found: submit from a machine with SLURM's commands, or pass the "
                          "script to sbatch yourself (without --submit)") from None
    if done.returncode != 0:
        raise ConfigError(f"sbatch refused the job: {' '.join(done.stderr.split())}", field="--submit")
    return done.stdout.strip().split(";")[0]


def _queued(*job_ids: str) -> bool:
    done = subprocess.run(["squeue", "--noheader", "--format=%i", "--jobs", ",".join(job_ids)],
                          capture_output=True, text=True, timeout=120)
    return done.returncode == 0 and bool(done.stdout.strip())
