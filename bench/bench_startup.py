"""Start-up time of the command lines against the start of ``python -c "import numpy"``.

Every test that spawns a command line, and every user who asks for ``--help``, pays the time the
command takes to import its modules before it does anything. This script times, in fresh
processes and alternating so that a change of the machine's load hits every command alike:

- ``python -c "import numpy"`` (the reference: the interpreter and NumPy, which every command needs);
- ``python -m pipeline.kgrid --help``, ``python -m pipeline.paper --help`` and
  ``python -m pipeline.methods list``.

Each repetition runs the four processes one after the other (after one untimed round, which fills
the byte-code and disk caches); the commands import this checkout's ``python/`` package. It records,
per command, its wall seconds with the NumPy start as the peer, and the ratio of the two per
repetition (the command's start in multiples of the NumPy start; the goal is at most
:data:`RATIO_GOAL`). The figures go to bench/results.json.

    python bench/bench_startup.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from pipeline.cli import run_main
from record import BenchRun, Measurement, format_number

REPO = Path(__file__).resolve().parents[1]
REFERENCE = ("-c", "import numpy")
COMMANDS = {
    "python -m pipeline.kgrid --help": ("-m", "pipeline.kgrid", "--help"),
    "python -m pipeline.paper --help": ("-m", "pipeline.paper", "--help"),
    "python -m pipeline.methods list": ("-m", "pipeline.methods", "list"),
}
#: Largest accepted start of a command, in multiples of the NumPy start (issue 31, "Fast start").
RATIO_GOAL = 4.0


def checkout_environment() -> dict[str, str]:
    """This process's environment with the checkout's ``python/`` first on the module path, so the
    commands time this checkout's code whichever copy of the package is installed."""
    path = os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def start_seconds(arguments: tuple[str, ...], environment: dict[str, str]) -> float:
    """Wall seconds of one fresh ``python <arguments>`` process, which must succeed."""
    started = time.perf_counter()
    subprocess.run([sys.executable, *arguments], env=environment, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def alternated_runs(repeats: int) -> tuple[list[float], dict[str, list[float]]]:
    """Seconds of the reference and of each command, ``repeats`` rounds of all four in turn."""
    environment = checkout_environment()
    for arguments in (REFERENCE, *COMMANDS.values()):
        start_seconds(arguments, environment)
    reference, commands = [], {name: [] for name in COMMANDS}
    for _ in range(repeats):
        reference.append(start_seconds(REFERENCE, environment))
        for name, arguments in COMMANDS.items():
            commands[name].append(start_seconds(arguments, environment))
    return reference, commands


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="rounds of the four processes (default 7)")
    args = parser.parse_args(argv)
    with BenchRun(__file__) as run:
        reference, commands = alternated_runs(args.repeats)
        numpy_start = Measurement(tuple(reference))
        for name, seconds in commands.items():
            ratios = Measurement(tuple(s / r for s, r in zip(seconds, reference)))
            run.figure(f"{name}, fresh process", seconds, "s",
                       peers={'python -c "import numpy", alternated with it': numpy_start})
            run.figure(f"{name} / the NumPy start, per round", ratios, "×")
            verdict = "within" if ratios.value <= RATIO_GOAL else "ABOVE"
            print(f"{name}: {format_number(ratios.value)} × the NumPy start ({verdict} the goal of "
                  f"{format_number(RATIO_GOAL)})")


if __name__ == "__main__":
    sys.exit(run_main(main))
