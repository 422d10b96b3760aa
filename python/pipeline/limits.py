"""Size limits a user may raise through environment variables (e.g. ``MLFS_MAX_FOLD_BYTES``)."""

from __future__ import annotations

import os
import sys

from .errors import ConfigError


def env_limit(variable: str, default: int) -> int:
    """The positive integer in environment ``variable``, or ``default`` when it is unset.

    Raises
    ------
    ConfigError
        If the variable is set to anything but a positive integer.
    """
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        limit = int(text)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise ConfigError("must be a positive integer", field=variable, found=repr(text))
    return limit


#: Bounds shared by a suite file (pipeline.paper) and the command lines (pipeline.kgrid, ...): the
#: largest ML-kNN neighbour count and smoothing, the longest task timeout (a week) and claim
#: age (30 days), the largest --max-tasks.
MAX_MLKNN_K = 1000
MAX_MLKNN_SMOOTH = 1e6
MAX_TASK_TIMEOUT = 7 * 24 * 3600.0
MAX_CLAIM_STALE_AFTER = 30 * 24 * 3600.0
MAX_TASKS_LIMIT = 10_000_000


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def worker_count(requested: int, n_items: int, option: str = "--jobs") -> int:
    """How many worker processes to start for ``n_items`` pieces of work: ``requested``, capped by
    the work (an idle worker only costs memory and start-up) and by the usable cores (CPU-bound
    workers beyond them only compete). Above the cores, says so once on stderr."""
    cores = usable_cores()
    count = max(1, min(requested, n_items, cores))
    if requested > cores:
        print(f"note: {option} {requested} is more than the {cores} usable cores; starting {count} "
              f"worker process(es) for {n_items} task(s)", file=sys.stderr)
    return count


def available_memory() -> tuple[int, str]:
    """(bytes this process can still allocate, which bound that is), from what Linux tells:
    the room left under its address-space limit (``ulimit -v``) and the machine's available
    memory plus free swap. Elsewhere (no ``/proc``) there is no bound: (a huge number, "")."""
    bounds = []
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as handle:
                used = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            bounds.append((max(0, soft - used), f"left under the address-space limit of {soft} bytes"))
        with open("/proc/meminfo") as handle:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in handle if line.split()[1:]}
        if "MemAvailable" in info:
            bounds.append((info["MemAvailable"] + info.get("SwapFree", 0), "memory available plus free swap"))
    except (ImportError, OSError, ValueError, IndexError):
        pass
    return min(bounds) if bounds else (1 << 62, "")
