"""Benchmark ``python -m pipeline.tables`` on a full paper-sized synthetic result set.

15 datasets x 5 folds x 8 methods (600 k-grid metrics files, as docs/results-schema.md), generated
by tests/report/results_factory.py. The peer of the tables without figures is the I/O floor:
parsing the same 600 JSON files and nothing else; the peer of ``--jobs 2`` is the same command with
one job. Each command runs ``--repeats`` times (default 3); the figures go to bench/results.json.

    python3 bench/bench_tables.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from pipeline.cli import run_main
from record import BenchRun, measure

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "report"))

from results_factory import write_result_set  # noqa: E402

METHODS = ["DAGFS", "LRMFS", "MIFS", "SCLS", "RFNMIFS", "MDMR", "PMU", "MLACO"]
DATASETS = ["Arts", "Business", "Education", "Entertain", "Health", "Recreation", "Reference", "Science",
            "Social", "bibtex", "corel5k", "emotions", "genbase", "medical", "yeast"]
DIMS = [462, 438, 550, 640, 612, 606, 793, 743, 1047, 1836, 499, 72, 1186, 1449, 103]
WORKLOAD = f"{len(DATASETS)} datasets × 5 folds × {len(METHODS)} methods (600 files)"


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def parse_only(results: Path) -> None:
    for path in sorted(results.glob("*/*_kgrid_metrics.json")):
        json.loads(path.read_text())


def run_cli(results: Path, out: Path, *extra: str) -> None:
    cmd = [sys.executable, "-m", "pipeline.tables", "--results-dir", str(results), "--methods", *METHODS,
           "--ref-method", "DAGFS", "--out-dir", str(out), *extra]
    subprocess.run(cmd, check=True, capture_output=True)


def measure_cli(repeats: int, *args):
    """Wall-time runs of one ``pipeline.tables`` command, and its mean CPU seconds (load-independent)."""
    cpu = child_cpu()
    wall, _ = measure(run_cli, *args, repeats=repeats)
    return wall, (child_cpu() - cpu) / repeats


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each command (default 3)")
    args = parser.parse_args(argv)
    with BenchRun(__file__) as run, tempfile.TemporaryDirectory() as tmp:
        results = write_result_set(Path(tmp) / "results", METHODS, DATASETS, folds=5, n_features=DIMS)
        floor, _ = measure(parse_only, results, repeats=args.repeats)
        startup, _ = measure(subprocess.run, [sys.executable, "-c", "import pipeline.tables"], check=True,
                             repeats=args.repeats)
        tables, tables_cpu = measure_cli(args.repeats, results, Path(tmp) / "t", "--no-figures")
        full, full_cpu = measure_cli(args.repeats, results, Path(tmp) / "f")
        parallel, parallel_cpu = measure_cli(args.repeats, results, Path(tmp) / "p", "--jobs", "2")
        n_figures = len(list((Path(tmp) / "f" / "figures").glob("*.pdf")))
        print(f"CPU seconds per run: --no-figures {tables_cpu:.2f}, all outputs {full_cpu:.2f}, "
              f"all outputs --jobs 2 {parallel_cpu:.2f}")
        run.figure("Python interpreter + import pipeline.tables", startup, "s")
        run.figure(f"pipeline.tables --no-figures, {WORKLOAD}", tables, "s",
                   peers={"parsing the 600 JSON files only": floor})
        run.figure(f"pipeline.tables, all outputs (tables + {n_figures} figures × 2 formats), {WORKLOAD}", full, "s")
        run.figure("pipeline.tables --jobs 2, all outputs, same set", parallel, "s",
                   peers={"one job (previous figure's runs)": full})


if __name__ == "__main__":
    sys.exit(run_main(main))
