"""Run the hostile-input corpus (tests/shared/hostile_documents.py) as real processes and count defects.

    python scripts/hostile_documents_campaign.py                       # this checkout
    python scripts/hostile_documents_campaign.py --code /tmp/main/python --out before.json   # another checkout

Every case runs in a fresh copy of a small workspace (toy folds and k-grid results) inside a worker
process whose address space is limited (``--memory-gib``): the worker calls the command's ``main``
as ``python -m <module>`` would (the interpreter starts once, not once per case), and a case that
kills its worker or outlives ``--timeout`` counts as a memory defect and the next case gets a new
worker. A case that
does not end as it should is counted in one class:

* ``silent wrong result``: accepted (exit 0) although it must be refused, or a damaged result file
  left in place by a run that says it is done;
* ``traceback``: a Python traceback instead of one line;
* ``memory``: MemoryError, killed at the address-space limit, or still running at the time limit;
* ``injection/flood``: a message longer than 4 KB, with control or line-separator characters, or of
  several lines;
* ``wrong exit code``: any other exit code than the correct one (2 for bad input, 0 for good).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "shared"))

from hostile_documents import all_cases, call_in_process, fill, verdict, write_case_files  # noqa: E402

CLASSES = ("silent wrong result", "traceback", "wrong exit code", "memory", "injection/flood")


def _limit_memory(gib: float):
    def apply() -> None:
        limit = int(gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def worker(template: Path, scratch: Path) -> None:
    """Read case ids on stdin; run each in a fresh copy of ``template``; print one JSON line each."""
    cases = {case.id: case for case in all_cases()}
    for line in sys.stdin:
        case = cases[line.strip()]
        work = scratch / case.id
        shutil.copytree(template, work, symlinks=True)
        places = {"work": str(work), "folds": str(work / "folds"), "results": str(work / "results")}
        write_case_files(case, places)
        started = time.monotonic()
        code, err = call_in_process(case.command[0], [fill(arg, places) for arg in case.command[1:]])
        defect = verdict(case, code, err, places)
        shutil.rmtree(work, ignore_errors=True)
        print(json.dumps({"id": case.id, "expect": case.expect, "code": code, "defect": defect,
                          "seconds": round(time.monotonic() - started, 2), "stderr": err[-600:]}), flush=True)


def run_cases(cases, template: Path, scratch: Path, env: dict, timeout: float, gib: float) -> list[dict]:
    """Run ``cases`` in worker processes (one at a time; a new worker after a case that crashed,
    killed its worker or outlived ``timeout``, the last two counted as memory defects)."""
    outcomes, pending = [], [case.id for case in cases]
    while pending:
        process = subprocess.Popen([sys.executable, __file__, "--worker", str(template), str(scratch)],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=env, text=True, preexec_fn=_limit_memory(gib))
        while pending:
            case_id = pending[0]
            process.stdin.write(case_id + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], timeout)
            line = process.stdout.readline() if ready else ""
            pending.pop(0)
            if not line:
                process.kill()
                outcomes.append({"id": case_id, "code": None, "defect": "memory", "seconds": timeout,
                                 "stderr": "worker killed or timed out"})
                shutil.rmtree(scratch / case_id, ignore_errors=True)
                break
            outcomes.append(json.loads(line))
            if outcomes[-1]["defect"] in ("traceback", "memory"):
                break  # what crashed may have left state behind (handlers, signal settings): a new worker
        process.kill()
        process.wait()
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=REPO / "python", help="the python/ folder to test")
    parser.add_argument("--out", type=Path, default=None, help="write every case's outcome to this JSON file")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at the same time")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a case may take")
    parser.add_argument("--memory-gib", type=float, default=3.0, help="address-space limit of a case")
    parser.add_argument("--only", default=None, help="run the cases whose id contains this text")
    parser.add_argument("--worker", nargs=2, type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0
    env = {**os.environ, "PYTHONPATH": str(args.code.resolve()), "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1"}
    cases = [c for c in all_cases() if args.only is None or args.only in c.id]
    with tempfile.TemporaryDirectory(prefix="hostile.") as scratch_name:
        scratch = Path(scratch_name)
        template = scratch / "template"
        template.mkdir()
        setup = ("import sys; sys.path.insert(0, %r); import subprocess; from pathlib import Path; "
                 "from hostile_documents import prepare_workspace; "
                 "prepare_workspace(Path(%r), lambda m, a: subprocess.run([sys.executable, '-m', m, *a]).returncode)"
                 % (str(REPO / "tests" / "shared"), str(template)))
        subprocess.run([sys.executable, "-c", setup], env=env, check=True)
        shares = [cases[i::args.jobs] for i in range(args.jobs)]
        with ThreadPoolExecutor(args.jobs) as pool:
            parts = pool.map(lambda share: run_cases(share, template, scratch, env, args.timeout, args.memory_gib),
                             shares)
        outcomes = [outcome for part in parts for outcome in part]
    counts = {cls: sum(o["defect"] == cls for o in outcomes) for cls in CLASSES}
    print(f"{len(outcomes)} cases, {sum(counts.values())} defects: "
          + ", ".join(f"{n} {cls}" for cls, n in counts.items()))
    for outcome in outcomes:
        if outcome["defect"]:
            last = outcome["stderr"].strip().splitlines()[-1:] or [""]
            print(f"  {outcome['defect']:<20} {outcome['id']}: exit {outcome['code']}; {last[0][:160]}")
    if args.out:
        args.out.write_text(json.dumps({"counts": counts, "cases": outcomes}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
