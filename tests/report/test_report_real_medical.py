"""Real data: LRDG on a medical hold-out fold ranks mostly training-constant features; the tables
must mark it, report.md must list it, and the running-time table must show the runner's times."""

import json

import pytest
from report_helpers import compile_tables

from pipeline import kgrid, tables
from pipeline.cli import run_main

METHODS = ["LRDG", "VARIANCE", "RANDOM"]


@pytest.fixture(scope="module")
def medical_results(tmp_path_factory, real_folds):
    root = tmp_path_factory.mktemp("medical")
    assert run_main(kgrid.main, ["--engine", "python", "--methods", *METHODS, "--data-dir", str(real_folds("medical", seed=42)),
                                 "--results-dir", str(root / "results"), "--no-progress"]) == 0
    return root / "results"


def test_lrdg_on_medical_is_marked_listed_and_timed(medical_results, tmp_path):
    out = tmp_path / "tables"
    assert run_main(tables.main, ["--results-dir", str(medical_results), "--ref-method", "VARIANCE",
                                  "--out-dir", str(out), "--no-figures"]) == 0
    record = json.loads((medical_results / "LRDG" / "medical_fold0_kgrid_metrics.json").read_text())
    # The authors' LRDG ranks constant columns first on this fold: every k of the grid is degenerate.
    assert all(record["degenerate"]) and len(record["k_values"]) == 30

    header, row = [line.removesuffix(" \\\\").split(" & ") for line in
                   (out / "table_microf1.tex").read_text().splitlines() if line.startswith(("Dataset & ", "medical & "))]
    cells = dict(zip(header[1:], row[1:]))
    assert list(cells) == ["All features", "LRDG", "RANDOM", "VARIANCE"]  # the reference, then A-Z
    assert cells["LRDG"].endswith("\\,$\\ddagger$") and "ddagger" not in cells["VARIANCE"] + cells["RANDOM"]

    report = (out / "report.md").read_text()
    (listing,) = [line for line in report.splitlines() if line.startswith("| LRDG | medical | 0 |")]
    k, constant = record["k_values"], record["n_constant_selected"]
    assert listing == (f"| LRDG | medical | 0 | k = {k[0]}–{k[-1]}: 30 points, {min(constant)}–{max(constant)} "
                       f"constant | {record['n_constant_features']} | yes |")

    time_row = [line for line in (out / "table_time.tex").read_text().splitlines() if line.startswith("medical & ")]
    times = {m: json.loads((medical_results / m / "medical_fold0_kgrid_metrics.json").read_text())
             ["time_rank_seconds"] for m in METHODS}
    shown = dict(zip(["LRDG", "RANDOM", "VARIANCE"], time_row[0].removesuffix(" \\\\").split(" & ")[1:]))
    for method, seconds in times.items():
        value = float(shown[method].split(" $\\pm$ ")[0].removeprefix("\\textbf{").removeprefix("\\underline{"))
        assert value == pytest.approx(seconds, rel=5e-3)  # three significant digits
    compile_tables(sorted(out.glob("table_*.tex")), tmp_path)
