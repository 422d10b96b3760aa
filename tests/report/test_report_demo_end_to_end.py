"""The real pipeline on the shipped demo folds: k-grid and p-grid runs, then the paper tables."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from report_helpers import compile_tables

from pipeline import kgrid, pgrid, tables
from pipeline.cli import run_main
from pipeline.evaluation.metrics import METRICS

REPO = Path(__file__).resolve().parents[2]
DEMO_ARGS = ["--engine", "python", "--datasets", "demo", "--methods", "DAGFS", "VARIANCE", "RANDOM",
             "--data-dir", str(REPO / "data" / "paper_matlab_minmax"), "--no-progress"]


@pytest.mark.parametrize("grid, runner", [("kgrid", kgrid), ("pgrid", pgrid)])
def test_tables_from_a_real_demo_run(tmp_path, grid, runner):
    results = tmp_path / "results"
    assert run_main(runner.main, [*DEMO_ARGS, "--results-dir", str(results)]) == 0
    out = tmp_path / "tables"
    argv = ["--results-dir", str(results), "--methods", "DAGFS", "VARIANCE", "RANDOM", "--ref-method", "DAGFS",
            "--out-dir", str(out), "--grid", grid, "--display-map",
            str(REPO / "paper" / "tables" / "display_map_paper.json"), "--no-figures"]
    assert run_main(tables.main, argv) == 0
    means = pd.read_csv(out / f"benchmark_means_{grid}.csv")
    assert len(means) == 3 * len(METRICS) and (means["n_folds"] == 5).all()
    # The aggregate equals a hand reduction of the evaluator's own files.
    key = "micro_f1" if grid == "kgrid" else "micro_f1_at_p_target"
    values = [np.mean(json.loads(p.read_text())[key])
              for p in sorted((results / "DAGFS").glob(f"demo_fold*_{grid}_metrics.json"))]
    row = means[(means.method == "DAGFS") & (means.metric == "micro_f1")].iloc[0]
    assert row["mean"] == pytest.approx(np.mean(values), rel=1e-12)
    assert row["std"] == pytest.approx(np.std(values, ddof=1), rel=1e-9)
    assert "Demo" in (out / "table_microf1.tex").read_text()
    compile_tables(sorted(out.glob("table_*.tex")), tmp_path)
