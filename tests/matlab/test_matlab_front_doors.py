"""The two front doors write the same files on real folds, for every baseline.

``run_suite`` (Octave, its own random starts, its own ML-kNN) and ``python -m pipeline.kgrid
--engine octave`` (harness starts, native ML-kNN) must give byte-identical rankings and score files
and metrics files equal in every field except timings and provenance (README, docs/octave.md);
the scores file, ranked by the project's rule, gives the ranking file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from matlab_test_paths import REPO
from pipeline.rankings import rank_scores, read_ranking_file

pytestmark = pytest.mark.octave

BASELINES = ["LRMFS", "GRRO", "SRFS", "SCNMF", "LSMFS", "LRDG", "RFSFS"]
# the digest of each file covers its timings and provenance too
TIMINGS_AND_PROVENANCE = ("time_eval_seconds", "time_rank_seconds", "time_rank_overhead_seconds", "provenance",
                          "content_sha256")


def comparable(path: Path) -> dict:
    record = json.loads(path.read_text())
    return {key: value for key, value in record.items() if key not in TIMINGS_AND_PROVENANCE}


def test_all_baselines_give_identical_files_through_both_doors(octave, real_folds, tmp_path):
    folds = real_folds("emotions", folds=2, seed=3)
    suite_dir, cli_dir = tmp_path / "run_suite", tmp_path / "cli"
    (summary,) = octave.call("run_suite", str(suite_dir), str(folds), ["emotions"], BASELINES,
                             "folds", 2.0, "verbose", False, nout=1)
    assert int(summary["done"]) == 14 and int(summary["failed"]) == 0
    done = subprocess.run([sys.executable, "-m", "pipeline.kgrid", "--engine", "octave", "--methods", *BASELINES,
                           "--data-dir", str(folds), "--results-dir", str(cli_dir), "--no-progress"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    for method in BASELINES:
        for fold in (0, 1):
            stem = f"{method}/emotions_fold{fold}"
            for kind in ("ranking.csv", "scores.csv"):
                assert (suite_dir / f"{stem}_{kind}").read_bytes() == (cli_dir / f"{stem}_{kind}").read_bytes(), \
                    f"{stem}_{kind}"
            # the scores file audits the ranking: re-ranking its scores gives the ranking file
            scores = np.loadtxt(suite_dir / f"{stem}_scores.csv", delimiter=",", skiprows=1)
            assert scores[:, 0].tolist() == list(range(1, 73))
            ranking = read_ranking_file(suite_dir / f"{stem}_ranking.csv", 72)
            np.testing.assert_array_equal(rank_scores(scores[:, 1], method), ranking, err_msg=stem)
            ours, theirs = (comparable(root / f"{stem}_kgrid_metrics.json") for root in (suite_dir, cli_dir))
            assert ours == theirs, stem
            assert ours["k_values"] == [10, 20, 30, 40, 50, 60, 70]
