"""``paper run`` and ``status`` after the folds were exported again with another seed: every result of
the old folds is stale, with its reason (docs/results-schema.md), not kept. A fold file is never left
without its sidecar by a stopped export, and one found so beside folds that have one is refused. A run
of the first folds (``--folds N``) exports only those, and they are the files a whole export writes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_paper_suite import DEMO_SUITE  # the demo suite the suite tests export

REPO = Path(__file__).resolve().parents[2]

SUITE = """
name: fresh
datasets: [emotions]
folds: {{mode: holdout, count: 1, seed: {seed}, test_size: reference}}
methods: {{VARIANCE: {{}}, LABELCORR: {{}}}}
engine: python
grids: {{kgrid: {{k_min: 10, k_max: 30, k_step: 10}}}}
run: {{executor: serial}}
tables: {{ref_method: VARIANCE, figures: false}}
"""


def paper(home: Path, shared_data: Path, command: str, *options) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "MLFS_SHARED_DATA": str(shared_data)}
    done = subprocess.run([sys.executable, "-m", "pipeline.paper", command, str(home / "suite.yaml"), "--root",
                           str(home / "root"), *options] + (["--no-progress"] if command == "run" else []),
                          capture_output=True, text=True, env=env, cwd=home, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow  # two full exports and runs (~35 s); tests/runner/test_runner_fold_freshness.py covers changed folds in the fast lane
def test_results_of_folds_exported_again_are_stale(tmp_path, shared_data):
    (tmp_path / "suite.yaml").write_text(SUITE.format(seed=42))
    assert "3 done, 0 skipped" in paper(tmp_path, shared_data, "run").stderr
    # another seed: the suite refuses the old folds and says to delete them; deleted, they are exported again
    (tmp_path / "suite.yaml").write_text(SUITE.format(seed=7))
    shutil.rmtree(tmp_path / "root" / "data" / "paper_matlab_minmax" / "emotions")
    rerun = paper(tmp_path, shared_data, "run", "--methods", "VARIANCE")
    assert "recomputed 1 stale task(s): the fold's training part changed" in rerun.stderr     # VARIANCE
    assert "recomputed 1 stale task(s): the fold file changed" in rerun.stderr                # the reference
    status = paper(tmp_path, shared_data, "status").stdout
    assert "2 done, 0 missing, 1 stale, 0 failed of 3 tasks" in status
    assert "stale    LABELCORR/emotions/fold0: the fold's training part changed" in status
    assert "recomputed 1 stale task(s): the fold's training part changed" in \
        paper(tmp_path, shared_data, "run").stderr
    assert "remaining: nothing" in paper(tmp_path, shared_data, "status").stdout


def test_a_fold_is_never_left_without_its_sidecar_and_one_found_so_is_refused(tmp_path, capsys, monkeypatch):
    from pipeline.cli import run_main
    from pipeline.data import export
    from pipeline.paper.__main__ import main

    suite, folds = tmp_path / "suite.yaml", tmp_path / "data" / "paper_matlab_minmax" / "demo"
    suite.write_text(DEMO_SUITE)
    write_bytes = export.atomic_write_bytes

    def stopped_at_fold1(path, content):
        if path.name == "fold1.mat":
            raise OSError("the export stops here")
        return write_bytes(path, content)

    monkeypatch.setattr(export, "atomic_write_bytes", stopped_at_fold1)
    with pytest.raises(OSError, match="the export stops here"):
        run_main(main, ["run", str(suite), "--root", str(tmp_path), "--no-progress"])
    assert sorted(p.name for p in folds.iterdir()) == ["fold0.json", "fold0.mat", "fold1.json"]
    monkeypatch.undo()
    assert run_main(main, ["run", str(suite), "--root", str(tmp_path), "--no-progress"]) == 0   # exported again
    assert "demo: exported 2 folds" in capsys.readouterr().err
    assert sorted(p.name for p in folds.iterdir()) == ["fold0.json", "fold0.mat", "fold1.json", "fold1.mat"]

    # a fold file without its sidecar beside one with it (an older export stopped, a file copied in)
    (folds / "fold1.json").unlink()
    for command in ("status", "run"):
        assert run_main(main, [command, str(suite), "--root", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "fold1.mat: fold file has no sidecar" in err, err
        assert "delete the dataset's folder to export it again" in err

    # no sidecar at all (folds made elsewhere, or by an export older than sidecars): the suite's settings
    # cannot be checked, so they are refused with both ways out; declared as files, they are used as given
    (folds / "fold0.json").unlink()
    for command in ("status", "run"):
        assert run_main(main, [command, str(suite), "--root", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "demo: fold files have no sidecar" in err, err
        assert "declare folds: {mode: files}" in err
    suite.write_text(DEMO_SUITE.replace("mode: holdout, count: 2, seed: 1, test_size: 0.2", "mode: files, count: 2"))
    assert run_main(main, ["status", str(suite), "--root", str(tmp_path)]) == 0, capsys.readouterr().err


def test_a_run_of_the_first_folds_exports_only_those_and_a_whole_run_the_same_files(tmp_path, capsys):
    from pipeline.cli import run_main
    from pipeline.paper.__main__ import main

    suite, folds = tmp_path / "suite.yaml", tmp_path / "data" / "paper_matlab_minmax" / "demo"
    suite.write_text(DEMO_SUITE.replace("count: 2", "count: 3"))
    assert run_main(main, ["run", str(suite), "--root", str(tmp_path), "--folds", "1", "--no-progress"]) == 0
    assert "demo: exported 1 of 3 folds" in capsys.readouterr().err
    assert sorted(p.name for p in folds.iterdir()) == ["fold0.json", "fold0.mat"]
    first = {name: (folds / name).read_bytes() for name in ("fold0.json", "fold0.mat")}

    assert run_main(main, ["run", str(suite), "--root", str(tmp_path), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "demo: exported 3 folds" in err, err
    assert "4 done, 2 skipped" in err, err  # fold 0's results stay fresh: its file was written again unchanged
    assert sorted(p.name for p in folds.iterdir()) == [f"fold{i}.{ext}" for i in range(3) for ext in ("json", "mat")]
    assert all((folds / name).read_bytes() == content for name, content in first.items())  # the very same files
