"""A suite may read existing folds anywhere (issue 32): an absolute ``folds.dir`` outside ``--root``
(folds kept on a shared disk) is used when every fold file is there, and nothing is written to it;
a run that would export folds there is refused with the way out, before anything is written.

``pipeline.paper run`` runs in this process, through the entry point ``python -m`` calls (the
command as a process: tests/paper/test_paper_suite.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline.cli import run_main
from pipeline.paper.__main__ import main as paper_main

REPO = Path(__file__).resolve().parents[2]
SUITE = """
name: shared
datasets: [demo]
folds: {{mode: {mode}, dir: {folds}{export}}}
methods: {{VARIANCE: {{}}}}
engine: python
grids: {{kgrid: {{k_min: 5, k_max: 10, k_step: 5}}}}
run: {{executor: serial}}
tables: null
"""


def _paper(tmp_path: Path, capsys, mode: str, folds: Path, export: str = "") -> tuple[int, str]:
    """(exit code, stderr) of ``pipeline.paper run`` of the suite on ``folds``."""
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE.format(mode=mode, folds=folds, export=export))
    capsys.readouterr()
    code = run_main(paper_main, ["run", str(suite), "--root", str(tmp_path / "root"), "--no-progress"])
    return code, capsys.readouterr().err


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_existing_folds_outside_the_root_are_read_and_left_alone(tmp_path, capsys):
    shared = tmp_path / "shared_disk" / "folds"
    (shared / "demo").mkdir(parents=True)
    for i in (0, 1):
        shutil.copy(REPO / "data" / "paper_matlab_minmax" / "demo" / f"fold{i}.mat", shared / "demo")
    before = _snapshot(shared)
    code, err = _paper(tmp_path, capsys, "files", shared)
    assert code == 0, err
    assert len(list((tmp_path / "root").rglob("VARIANCE/demo_fold*_kgrid_metrics.json"))) == 2
    assert _snapshot(shared) == before


def test_exporting_into_folds_outside_the_root_is_refused_with_the_way_out(tmp_path, capsys):
    shared = tmp_path / "shared_disk" / "folds"
    shared.mkdir(parents=True)
    code, err = _paper(tmp_path, capsys, "holdout", shared, ", count: 2, seed: 1, test_size: 0.2")
    assert code == 2, err
    assert err == (f"error: {shared / 'demo'}, field 'folds.dir': the folds of this dataset are missing or "
                           "incomplete, and a run writes only under --root: export them there first (python -m "
                           "pipeline.export_splits), or give folds.dir relative to --root to have the run export "
                           f"them (expected every fold file present in {shared})\n")
    assert not any(shared.iterdir()) and not (tmp_path / "root").exists()
