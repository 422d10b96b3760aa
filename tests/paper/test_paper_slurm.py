"""``paper sbatch`` on a real single-node SLURM (issue 36, item 3): a job array's results equal a
serial run's, file for file (timings and digests of timings aside); an element cancelled while it
computes a task leaves no partial file and no claim, and the same script submitted again finishes
the suite with the same results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from session_cache import made_once
from single_node_slurm import single_node_slurm

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
SUITE = """
name: {name}
datasets: [demo]
folds: {{mode: files, dir: {folds}}}
methods: {{VARIANCE: {{}}, LABELCORR: {{}}, {extra}: {{}}}}
plugins: [{plugins}]
engine: python
grids: {{kgrid: {{k_min: 5, k_max: 10, k_step: 5}}}}
run: {{executor: serial}}
tables: null
"""
#: A plug-in that takes a few seconds per task: long enough to be cancelled in the middle of one.
SLOW_PLUGIN = """
import time
from pipeline.methods.base import MethodSpec

def scores(X, Y, params):
    time.sleep(2)
    return X.var(axis=0)

SLOW = MethodSpec(name="SLOW", scores=scores)
"""


@pytest.fixture(scope="module")
def slurm(tmp_path_factory) -> dict[str, str]:
    with single_node_slurm(tmp_path_factory.mktemp("slurm")) as env:
        yield env


#: The suite (RANDOM and two baselines) whose serial run the job array and the Dask cluster of
#: SLURM jobs must each reproduce.
COMPARED = "compared"


@pytest.fixture(scope="module")
def serial_root(tmp_path_factory) -> Path:
    """The root of a serial run of the suite COMPARED, made once per session (the tests of this
    module may run on both xdist workers)."""
    def run_serially(folder: Path) -> None:
        serial = _paper(dict(os.environ), "run", _suite(folder, COMPARED), "--root", folder / "serial", "--no-progress")
        assert serial.returncode == 0, serial.stderr
    return made_once(tmp_path_factory, "slurm_serial_run", run_serially) / "serial"


def _suite(tmp_path: Path, name: str, extra: str = "RANDOM", plugins: Path | str = "") -> Path:
    suite = tmp_path / f"{name}.yaml"
    suite.write_text(SUITE.format(name=name, folds=REPO / "data" / "paper_matlab_minmax", extra=extra, plugins=plugins))
    return suite


def _paper(env: dict, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.paper", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=900)


def _results(root: Path, name: str) -> dict[str, object]:
    """Every result file without what differs between two runs of the same tasks: timings and the
    digests that cover them; the run history describes runs, not results."""
    contents = {}
    for path in sorted((root / "results" / name).rglob("*")):
        relative = path.relative_to(root / "results" / name)
        if not path.is_file() or relative.parts[0] == "runs" or path.name.endswith("_time.txt"):
            continue
        if path.suffix == ".json":
            record = json.loads(path.read_text())
            contents[str(relative)] = {k: v for k, v in record.items() if not k.startswith("time_")
                                       and k != "content_sha256"}
        else:
            contents[str(relative)] = path.read_text()
    return contents


def test_a_job_array_gives_the_results_of_a_serial_run(slurm, serial_root, tmp_path):
    suite = _suite(tmp_path, COMPARED)
    array = _paper(slurm, "sbatch", suite, "--root", tmp_path / "cluster", "--array", 3, "--walltime", "10:00",
                   "--grace", 30, "--submit", "--wait")
    assert array.returncode == 0, array.stderr
    assert "scancel" in array.stdout  # how to stop the jobs is said when they are submitted
    logs = sorted((tmp_path / "cluster" / "slurm" / "logs").glob("*.out"))
    assert len(logs) == 4, logs  # three elements and the tables job
    assert _results(tmp_path / "cluster", COMPARED) == _results(serial_root, COMPARED)


def test_a_cancelled_element_loses_nothing_and_a_resubmission_finishes(slurm, tmp_path):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "slow.py").write_text(SLOW_PLUGIN)
    suite = _suite(tmp_path, "cancel", extra="SLOW", plugins=plugins)
    root = tmp_path / "cluster"
    waiting = subprocess.Popen([sys.executable, "-m", "pipeline.paper", "sbatch", str(suite), "--root", str(root),
                                "--array", "2", "--walltime", "10:00", "--grace", "30", "--folds", "2", "--submit",
                                "--wait"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=slurm)
    results = root / "results" / "cancel"
    deadline = time.monotonic() + 300
    while not list(results.glob("SLOW/.*.claim")):  # an element is inside a SLOW task
        assert time.monotonic() < deadline and waiting.poll() is None, "no element started a SLOW task"
        time.sleep(0.2)
    waiting.send_signal(signal.SIGINT)  # Ctrl-C while waiting: the jobs go on, and the way to stop them is said
    out, err = waiting.communicate(timeout=60)
    array_id, tables_id = out.split("job array ")[1].split()[0], out.split("tables job ")[1].split(";")[0]
    assert waiting.returncode == 130 and f"scancel {array_id} {tables_id}" in err
    subprocess.run(["scancel", array_id, tables_id], check=True, env=slurm)
    while subprocess.run(["squeue", "--noheader", "--jobs", array_id], capture_output=True, text=True,
                         env=slurm).stdout.strip():
        assert time.monotonic() < deadline, "the cancelled array did not end"
        time.sleep(0.5)
    assert not list(results.rglob(".*.claim")) and not list(results.rglob("*.tmp"))
    for ranking in results.glob("SLOW/*_ranking.csv"):  # what was written is whole: a metrics file per ranking
        assert ranking.with_name(ranking.name.replace("_ranking.csv", "_kgrid_metrics.json")).is_file()

    again = _paper(slurm, "sbatch", suite, "--root", root, "--array", 2, "--walltime", "10:00", "--grace", 30,
                   "--folds", 2, "--submit", "--wait")
    assert again.returncode == 0, again.stderr
    serial = _paper(slurm, "run", suite, "--root", tmp_path / "serial", "--no-progress", "--folds", 2)
    assert serial.returncode == 0, serial.stderr
    assert _results(root, "cancel") == _results(tmp_path / "serial", "cancel")
    assert len(list(results.glob("SLOW/*_kgrid_metrics.json"))) == 2  # --folds 2 reached every job


def test_a_dask_cluster_of_slurm_jobs_gives_the_results_of_a_serial_run(slurm, serial_root, tmp_path):
    suite = _suite(tmp_path, COMPARED)
    text = suite.read_text().replace("run: {executor: serial}", "run: {executor: dask, jobs: 2, cluster: {slurm: "
                                     "{cores: 1, memory: 1GB, walltime: '00:10:00'}}}")
    suite.write_text(text)
    on_slurm = _paper(slurm, "run", suite, "--root", tmp_path / "cluster", "--no-progress")
    assert on_slurm.returncode == 0, on_slurm.stderr
    assert _results(tmp_path / "cluster", COMPARED) == _results(serial_root, COMPARED)
    left = subprocess.run(["squeue", "--noheader"], capture_output=True, text=True, env=slurm).stdout
    assert "dask" not in left  # the run ended its worker jobs
    assert list((tmp_path / "cluster" / "results" / COMPARED / "runs" / "slurm").glob("*.out"))  # their output
