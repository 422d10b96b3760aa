"""A results folder written by the code of commit f55393a (before the one-definition refactor of
issue 31) must give the same tables with today's code, byte for byte.

The fixture ``tests/fixtures/results_before_issue31`` was made by ``python -m pipeline.paper run
suite.yaml`` at that commit (Python engine, three folds of the demo data set: a tuned method with
candidate folders and tuning records, two seeds of RANDOM, a method with its own parameters, the
all-features reference), and its ``expected_tables`` by the commands this test runs, at that commit.
Any change to how result files are named, read or tabled shows up here as a difference. The
per-dataset marks of then were the plain paired t-test, now asked for with ``--fold-test paired``
(the default became the corrected resampled t-test; tests/stats/test_stats_fold_tests.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "results_before_issue31"
METHODS = ["DAGFS", "VARIANCE", "LABELCORR", "RANDOM", "LRMFS"]


@pytest.fixture(scope="module")
def copied_fixture(tmp_path_factory) -> Path:
    """A copy, so that nothing the code writes lands in the repository."""
    root = tmp_path_factory.mktemp("before_issue31")
    for part in ("results", "folds"):
        shutil.copytree(FIXTURE / part, root / part)
    return root


def _files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.name.startswith(".")}


@pytest.mark.parametrize("grid", ["kgrid", "pgrid"])
def test_tables_of_a_results_folder_written_before_the_refactor_are_unchanged(copied_fixture, grid):
    out = copied_fixture / "tables" / grid
    subprocess.run([sys.executable, "-m", "pipeline.tables", "--results-dir", "results", "--methods", *METHODS,
                    "--datasets", "demo", "--ref-method", "DAGFS", "--out-dir", str(out), "--grid", grid,
                    "--folds", "3", "--folds-dir", "folds", "--no-figures", "--seed-spread", "--fold-test", "paired"],
                   cwd=copied_fixture, check=True, capture_output=True, text=True)
    expected = _files(FIXTURE / "expected_tables" / grid)
    made = _files(out)
    # Issue 35: the tuning cost of the tuned method, a table the earlier code did not make, and its place in main.tex
    assert sorted(made) == sorted([*expected, "table_tuning_time.tex"])
    made["main.tex"] = made["main.tex"].replace(b"\\input{table_tuning_time.tex}\n\\clearpage\n", b"")
    start = made["report.md"].index(b"### Tuning time (s)")  # and its section in report.md
    made["report.md"] = made["report.md"][:start] + made["report.md"][made["report.md"].index(b"### ", start + 4):]
    changed = [name for name in expected if made[name] != expected[name]]
    assert not changed, f"tables differ from those the earlier code made: {changed}"


def test_parameter_report_of_a_results_folder_written_before_the_refactor_is_unchanged(copied_fixture):
    from pipeline.paper.parameters import write_parameter_report

    out = copied_fixture / "tables" / "parameters"
    folders = ["DAGFS", "VARIANCE", "LABELCORR", "RANDOM__seed_0", "RANDOM__seed_1", "LRMFS"]
    write_parameter_report(copied_fixture / "results", folders, ["demo"], 3, out, figures=False)
    assert _files(out) == _files(FIXTURE / "expected_tables" / "parameters")
