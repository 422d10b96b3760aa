"""analyze on crafted prediction files: a missing seed file under --allow-missing, per-seed table rows,
the pooled-difference table with R², Holm within the seeds analysed, one-line errors."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess

import numpy as np
import pytest

from pipeline.cli import run_main
from pipeline.protocols.steering.__main__ import main
from pipeline.protocols.steering.predictions import predictions_frame, predictions_path, write_predictions
from pipeline.protocols.steering.tables import format_number, format_p
from pipeline.stats.multiple import holm_adjust

STATS = ["--permutations", "300", "--bootstrap", "60", "--effect-bootstrap", "100"]
NOISE = {"M1": 0.3, "M3": 0.2, "M4": 0.25}


def _write_runs(results, seeds=(42, 94)):
    ids = np.repeat([f"s{i:02d}" for i in range(12)], 30)
    truth = np.sin(np.arange(ids.size) / 5.0)
    for seed in seeds:
        for model, noise in NOISE.items():
            rng = np.random.default_rng([seed, int(model[1:])])
            frame = predictions_frame(np.arange(ids.size), ids, truth, truth + rng.normal(0, noise, ids.size))
            write_predictions(frame, predictions_path(results, "paper", model, seed))
    return results


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return _write_runs(tmp_path_factory.mktemp("steering_runs") / "results")


def _analyze(results, out, *extra):
    return run_main(main, ["analyze", "--results", str(results), "--variant", "paper", "--seeds", "42", "94",
                           "--comparisons", "M1:M3", "M3:M4", "--out", str(out), *STATS, *extra])


@pytest.fixture(scope="module")
def skipped(runs, tmp_path_factory):
    """The runs without M4's seed-94 file, analysed with --allow-missing (stderr kept)."""
    results = tmp_path_factory.mktemp("skipped") / "results"
    shutil.copytree(runs, results)
    predictions_path(results, "paper", "M4", 94).unlink()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = _analyze(results, results / "out", "--allow-missing")
    return code, err.getvalue(), results / "out"


def test_missing_seed_file_is_skipped_with_warning_and_counted(skipped):
    code, err, out = skipped
    assert code == 0
    lines = err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("warning: ") for line in lines)
    assert "M4_predictions.csv: prediction file missing; seed 94 skipped for M3_vs_M4" in lines[0]
    assert lines[1] == "warning: 1 prediction file(s) missing; 1 comparison-seed pair(s) skipped"
    results = json.loads((out / "sequence_level_results.json").read_text())
    assert results["n_missing_runs"] == 1
    assert results["missing_runs"][0]["model"] == "M4" and results["missing_runs"][0]["seed"] == 94
    kept, cut = results["comparisons"]["M1_vs_M3"], results["comparisons"]["M3_vs_M4"]
    assert kept["skipped_seeds"] == [] and set(kept["per_seed"]) == {"42", "94"}
    assert cut["skipped_seeds"] == [94] and set(cut["per_seed"]) == {"42"}
    assert cut["option_a"]["rmse"]["n_seeds"] == 1 and kept["option_a"]["rmse"]["n_seeds"] == 2
    assert cut["delta_over_seeds"]["pooled"]["r2"]["n_seeds"] == 1
    assert set(results["models"]["M4"]) == {"42"}


def test_holm_family_is_the_comparisons_analysed_in_each_seed(skipped):
    comparisons = json.loads((skipped[2] / "sequence_level_results.json").read_text())["comparisons"]
    p42 = [comparisons[key]["per_seed"]["42"]["permutation"]["rmse"]["p_value"] for key in ("M1_vs_M3", "M3_vs_M4")]
    assert [comparisons[key]["per_seed"]["42"]["permutation"]["rmse"]["p_holm"]
            for key in ("M1_vs_M3", "M3_vs_M4")] == pytest.approx(holm_adjust(p42).tolist())
    seed94 = comparisons["M1_vs_M3"]["per_seed"]["94"]["permutation"]["rmse"]
    assert seed94["p_holm"] == seed94["p_value"]          # a family of one


def test_tables_show_each_seed_beside_the_aggregate(skipped):
    out = skipped[2]
    results = json.loads((out / "sequence_level_results.json").read_text())
    entry = results["comparisons"]["M1_vs_M3"]
    seed = entry["per_seed"]["94"]
    delta = seed["delta_bootstrap"]["per_sequence_mean"]["rmse"]
    cell = f"{format_number(delta['estimate'])} [{format_number(delta['ci_low'])}, {format_number(delta['ci_high'])}]"
    p = format_p(seed["permutation"]["rmse"]["p_value"], latex=False)
    markdown = (out / "sequence_level_table.md").read_text()
    assert f"|  | 94 | {cell} |" in markdown and f"| {p} | yes |" in markdown
    assert "| M1 vs M3 | mean of 2 |" in markdown and "| M3 vs M4 | mean of 1 |" in markdown
    assert "|  | 94 | prediction file missing: seed skipped |" in markdown
    tex = (out / "sequence_level_table.tex").read_text()
    assert f"\\quad seed 94 & {cell} &" in tex and "M1 vs M3 (mean of 2)" in tex
    assert "\\multicolumn{5}{l}{\\emph{prediction file missing: seed skipped}}" in tex
    # one aggregate row and two seed rows per comparison, in each effect table
    for name in ("sequence_level_table.tex", "sequence_level_table_mae.tex"):
        assert (out / name).read_text().count("\\quad seed") == 4


def test_pooled_difference_table_has_r2_and_accuracy(skipped):
    out = skipped[2]
    results = json.loads((out / "sequence_level_results.json").read_text())
    pooled = results["comparisons"]["M3_vs_M4"]["per_seed"]["42"]["delta_bootstrap"]["pooled"]
    cells = [f"{format_number(pooled[m]['estimate'])} [{format_number(pooled[m]['ci_low'])}, "
             f"{format_number(pooled[m]['ci_high'])}]" for m in ("mae", "rmse", "accuracy", "r2")]
    markdown = (out / "sequence_level_table.md").read_text()
    assert "| Comparison | Seed | ΔMAE [95% CI] | ΔRMSE [95% CI] | ΔAccuracy (pp) [95% CI] | ΔR² [95% CI] |" in markdown
    assert "|  | 42 | " + " | ".join(cells) + " |" in markdown
    tex = (out / "sequence_level_table_delta.tex").read_text()
    assert "\\quad seed 42 & " + " & ".join(cells) + " \\\\" in tex and "$\\Delta$$R^2$" in tex
    # M4 is the noisier model: positive error differences, R² and accuracy differences negative for M3 - M4
    assert pooled["r2"]["estimate"] > 0 and pooled["rmse"]["estimate"] < 0


def test_all_three_latex_tables_compile(skipped):
    out = skipped[2]
    (out / "doc.tex").write_text("\\documentclass[twocolumn]{article}\\usepackage{booktabs}\\begin{document}\n"
                                 "\\input{sequence_level_table}\\input{sequence_level_table_mae}"
                                 "\\input{sequence_level_table_delta}\n\\end{document}\n")
    compiled = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=out,
                              capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stdout[-2000:]


def test_without_allow_missing_a_missing_file_is_one_line_exit_2(runs, tmp_path, capsys):
    results = tmp_path / "results"
    shutil.copytree(runs, results)
    path = predictions_path(results, "paper", "M4", 94)
    path.unlink()
    assert _analyze(results, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "prediction file is missing" in err
    assert not (tmp_path / "out").exists()


def test_a_comparison_left_without_seeds_is_an_error(runs, tmp_path, capsys):
    results = tmp_path / "results"
    shutil.copytree(runs, results)
    for seed in (42, 94):
        predictions_path(results, "paper", "M4", seed).unlink()
    assert _analyze(results, tmp_path / "out", "--allow-missing") == 2
    err = capsys.readouterr().err
    assert "no seed has the prediction files of both models" in err and "M3_vs_M4" in err


@pytest.mark.parametrize("extra, fragment", [
    (["--comparisons", "M1:M1"], "cannot be compared with itself"),
    (["--comparisons", "M1:M3", "M1:M3"], "comparison is listed twice"),
    (["--seeds", "42", "42"], "seed is listed twice"),
    (["--alpha", "1.5"], "field 'alpha': out of range"),
    (["--permutations", "0"], "field '--permutations': out of range (expected a number in [1, 1000000]; found 0)"),
    (["--eps", "-1"], "field 'eps'"),
])
def test_bad_analysis_options_are_one_line(runs, tmp_path, capsys, extra, fragment):
    args = ["analyze", "--results", str(runs), "--variant", "paper", "--seeds", "42", "--comparisons", "M1:M3",
            "--out", str(tmp_path / "out"), *STATS]
    assert run_main(main, args + extra) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_output_paths_in_the_way_are_refused_before_work(runs, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for args in (["analyze", "--results", str(runs), "--variant", "paper", "--out", str(blocker)],
                 ["demo", "--out", str(blocker)], ["split", "--samples", str(blocker), "--out", str(blocker)]):
        assert run_main(main, args) == 2
        assert "field '--out': is not a folder" in capsys.readouterr().err
    assert run_main(main, ["calibrate", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert run_main(main, ["demo", "--out", str(tmp_path / "d"), "--threads", "0"]) == 2
    assert "--threads" in capsys.readouterr().err
    assert run_main(main, ["calibrate", "--phi", "1.0", "--repeats", "1"]) == 2
    assert "field 'phi': out of range" in capsys.readouterr().err
