"""Done-when test of plug-in methods (docs/plugins.md): from a non-editable install in a fresh
virtual environment and a plug-in folder outside the repository, a small suite (a real dataset x 2
folds; a Python plug-in in the minimal form, a MATLAB plug-in, an external ranking, two baselines;
both grids; tables) runs on the Octave engine from another working folder; a second run does
nothing; a comment added to each plug-in file leaves everything fresh, and a one-token edit of each
makes exactly its tasks stale, in both front doors."""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from session_cache import made_once

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "plugin_example"
FOLDS = 2


def run(command: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "MLFS_MATLAB_DIR")}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel built from this checkout (not editable); the
    dependencies come from the test environment through a path file (nothing is downloaded). Made
    once per session (about 15 s), whichever xdist worker runs a test of this module first."""
    return made_once(tmp_path_factory, "installed_package", _install_the_wheel) / "venv" / "bin" / "python"


def _install_the_wheel(tmp: Path) -> None:
    source = tmp / "source"
    for name in ("python", "matlab"):
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(REPO / name, source / name)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(source),
         "-w", str(tmp / "wheel")], cwd=tmp)
    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp)
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
         *map(str, (tmp / "wheel").glob("*.whl"))], cwd=tmp)
    own = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=tmp).stdout.strip())
    (own / "test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    where = run([str(python), "-c", "import pipeline; print(pipeline.__file__)"], cwd=tmp).stdout.strip()
    assert where.startswith(str(own)), where  # the installed copy, not the checkout


@pytest.mark.slow
@pytest.mark.octave
def test_an_installed_package_runs_plugins_and_reruns_exactly_what_changed(installed, tmp_path, mlc_dir):
    plugins = tmp_path / "my_methods"
    plugins.mkdir()
    shutil.copy(EXAMPLE / "fisher.py", plugins / "fisher.py")
    shutil.copy(EXAMPLE / "MADEV.m", plugins / "MADEV.m")
    work = tmp_path / "work"
    given = work / "results" / "GIVEN"
    given.mkdir(parents=True)
    for fold in range(FOLDS):  # the demo dataset's run is docs/plugins.md's (test_paper_plugins_doc.py)
        (given / f"emotions_fold{fold}_ranking.csv").write_text("\n".join(map(str, range(72, 0, -1))) + "\n")
    suite = work / "suite.yaml"
    suite.write_text(textwrap.dedent(f"""\
        name: mine
        datasets: [emotions]
        folds: {{dir: folds, mode: holdout, count: {FOLDS}, seed: 0}}
        plugins: [../my_methods]
        engine: octave
        evaluator: octave
        methods:
          FISHER: {{}}
          MADEV: {{params: {{power: 2}}}}
          GIVEN: {{external: true}}
          SRFS: {{}}
          VARIANCE: {{}}
        grids:
          kgrid: {{k_min: 10, k_max: 40, k_step: 10}}
          pgrid: {{p_min: 0.1, p_max: 0.3, p_step: 0.1, p_target: 0.2}}
        run: {{results_dir: results, executor: serial}}
        tables: {{out_dir: tables, ref_method: FISHER, figures: false}}
        """))
    paper = [str(installed), "-m", "pipeline.paper"]
    first = run([*paper, "run", "suite.yaml", "--data-root", str(mlc_dir), "--no-progress"], cwd=work)
    assert "12 done, 0 skipped" in first.stderr, first.stderr  # 10 method tasks + 2 all-features references
    for grid in ("kgrid", "pgrid"):
        table = (work / "tables" / grid / "table_microf1.tex").read_text()
        assert all(name in table for name in ("FISHER", "MADEV", "GIVEN", "SRFS", "VARIANCE")), table
    again = run([*paper, "run", "suite.yaml", "--no-progress"], cwd=work)
    assert "0 done, 12 skipped" in again.stderr and "up to date" in again.stderr, again.stderr

    for name, comment in (("fisher.py", "\n# edited\n"), ("MADEV.m", "\n% edited\n")):
        with open(plugins / name, "a") as handle:
            handle.write(comment)
    status = run([*paper, "status", "suite.yaml"], cwd=work).stdout
    assert not [line for line in status.splitlines() if line.startswith(("stale", "missing", "failed"))], status
    for name, old, new in (("fisher.py", "negative.var(axis=0)", "negative.std(axis=0)"),
                           ("MADEV.m", "mean(abs(centred), 1)", "median(abs(centred), 1)")):  # one token each
        (plugins / name).write_text((plugins / name).read_text().replace(old, new))
    status = run([*paper, "status", "suite.yaml"], cwd=work).stdout
    lines = [line for line in status.splitlines() if line.startswith(("stale", "missing", "failed"))]
    assert len(lines) == 2 * FOLDS, status
    for method, file in (("FISHER", "plugin/fisher.py"), ("MADEV", "plugin/MADEV.m")):
        mine = [line for line in lines if line.startswith(f"stale    {method}/")]
        assert len(mine) == FOLDS and all(file in line for line in mine), status

    # The same edit through run_suite, with the MATLAB/Octave code of the installed package.
    matlab = next(installed.parents[1].glob("lib/python*/site-packages/pipeline/matlab"))
    script = (f"addpath(genpath('{matlab}')); s = run_suite('results', 'folds', {{'emotions'}}, "
              f"{{'MADEV', 'SRFS'}}, 'folds', {FOLDS}, 'k_min', 10, 'k_max', 40, 'k_step', 10, "
              f"'params', struct('MADEV', struct('power', 2)), 'skip_existing', true, 'verbose', false, "
              f"'plugins', {{'{plugins}'}}); printf('%d done, %d skipped, %d failed\\n', s.done, s.skipped, s.failed);")
    octave = run(["octave-cli", "--no-gui", "--quiet", "--eval", script], cwd=work)
    assert "2 done, 2 skipped, 0 failed" in octave.stdout, octave.stdout + octave.stderr


@pytest.mark.slow
def test_the_demo_runs_from_the_installed_package_in_an_empty_folder(installed, tmp_path):
    """Issue 35, item 6: the demo's folds are generated where none are; the run record says which
    code ran without git; the contract checker has its demo fold and a fold of fewer rows than features."""
    empty = tmp_path / "empty"
    empty.mkdir()
    demo = run([str(installed), "-m", "pipeline.kgrid", "--engine", "python", "--datasets", "demo", "--methods",
                "VARIANCE", "LABELCORR", "--results-dir", "results/demo", "--k-max", "20", "--no-progress"], cwd=empty)
    assert "demo: generated its 5 folds in data/paper_matlab_minmax/demo" in demo.stderr
    for fold in range(5):  # byte for byte the checkout's demo folds
        generated = empty / "data" / "paper_matlab_minmax" / "demo" / f"fold{fold}.mat"
        assert generated.read_bytes() == (REPO / "data" / "paper_matlab_minmax" / "demo" / f"fold{fold}.mat").read_bytes()
    assert len(list((empty / "results" / "demo" / "VARIANCE").glob("demo_fold*_kgrid_metrics.json"))) == 5
    (record,) = [json.loads(p.read_text()) for p in (empty / "results" / "demo" / "runs").glob("*.json")]
    assert record["git"]["commit"] is None and record["versions"]["mlfs-bench"]
    assert re.fullmatch("[0-9a-f]{64}", record["package"]["sha256"]) and record["package"]["files"] > 100
    check = run([str(installed), "-m", "pipeline.methods", "check", "VARIANCE", "--engine", "python"], cwd=empty)
    assert "synthetic 20x50x4" in check.stdout and "demo fold0" in check.stdout and "FAIL" not in check.stdout
