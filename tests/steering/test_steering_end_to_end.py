"""End to end through the CLI: synthetic data -> split -> train -> predictions -> stats -> tables."""

import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
import torch

from pipeline.cli import run_main
from pipeline.protocols.steering.__main__ import main
from pipeline.protocols.steering.data import make_driving_sequences
from pipeline.protocols.steering.experiment import TrainingPlan, train_and_predict
from pipeline.protocols.steering.predictions import PREDICTION_COLUMNS

STATS = ["--permutations", "300", "--bootstrap", "100", "--effect-bootstrap", "200"]


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory):
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("steering_demo")
    code = run_main(main, ["demo", "--out", str(out), "--sequences", "30", "--length", "60",
                           "--models", "M1", "M3", "M4", "--seeds", "42", "94", "--epochs", "1",
                           "--latency-calls", "20", *STATS])
    assert code == 0
    return out / "results"


def test_demo_writes_split_predictions_and_tables(demo_dir):
    split = json.loads((demo_dir / "synthetic" / "splits" / "split_0.json").read_text())
    assert split["n_sequences"] == {"train": 21, "val": 6, "test": 3}
    predictions = pd.read_csv(demo_dir / "synthetic" / "M3" / "seed_94" / "M3_predictions.csv",
                              dtype={"sequence_id": str})
    assert tuple(predictions.columns) == PREDICTION_COLUMNS
    assert set(predictions["sequence_id"]) == set(split["test_seq_ids"])
    metrics = json.loads((demo_dir / "synthetic" / "M3" / "seed_94" / "M3_metrics.json").read_text())
    assert metrics["n_params"] == 84_801 and metrics["latency"]["p95_ms"] > 0
    results = json.loads((demo_dir / "bootstrap" / "sequence_level_results.json").read_text())
    assert set(results["comparisons"]) == {"M1_vs_M3", "M3_vs_M4"}
    entry = results["comparisons"]["M3_vs_M4"]
    assert set(entry["per_seed"]) == {"42", "94"}
    assert entry["option_a"]["rmse"]["n_seeds"] == 2
    assert "p_holm" in entry["per_seed"]["42"]["permutation"]["rmse"]
    table = (demo_dir / "bootstrap" / "sequence_level_table.tex").read_text()
    assert "\\toprule" in table and "M1 vs M3" in table
    markdown = (demo_dir / "bootstrap" / "sequence_level_table.md").read_text()
    assert "| M3 vs M4 |" in markdown and "MAE" in markdown


def test_analyze_is_byte_reproducible_and_escapes_names(demo_dir, tmp_path):
    results = tmp_path / "results"
    shutil.copytree(demo_dir / "synthetic", results / "synthetic")
    for seed in ("42", "94"):   # a model name with a LaTeX special character
        source = results / "synthetic" / "M1" / f"seed_{seed}" / "M1_predictions.csv"
        target = results / "synthetic" / "M_1" / f"seed_{seed}" / "M_1_predictions.csv"
        target.parent.mkdir(parents=True)
        shutil.copy(source, target)
    args = ["analyze", "--results", str(results), "--variant", "synthetic", "--seeds", "42", "94",
            "--comparisons", "M_1:M3", "M3:M4", *STATS]
    assert run_main(main, args + ["--out", str(tmp_path / "first")]) == 0
    assert run_main(main, args + ["--out", str(tmp_path / "second")]) == 0
    for name in ("sequence_level_results.json", "sequence_level_table.tex", "sequence_level_table_mae.tex",
                 "sequence_level_table_delta.tex", "sequence_level_table.md"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes()
    tex = (tmp_path / "first" / "sequence_level_table.tex").read_text()
    assert "M\\_1 vs M3" in tex
    assert tex.index("M\\_1 vs M3") < tex.index("M3 vs M4")   # the order asked for, not sorted
    document = tmp_path / "first" / "doc.tex"
    document.write_text("\\documentclass{article}\\usepackage{booktabs}\\begin{document}\n"
                        "\\input{sequence_level_table}\\input{sequence_level_table_mae}"
                        "\\input{sequence_level_table_delta}\\input{sequence_level_table_models}\n\\end{document}\n")
    compiled = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                              cwd=document.parent, capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stdout[-2000:]


def test_analyze_defaults_work_on_the_demo_output(demo_dir, tmp_path):
    assert run_main(main, ["analyze", "--results", str(demo_dir), "--out", str(tmp_path), *STATS]) == 0
    results = json.loads((tmp_path / "sequence_level_results.json").read_text())
    assert results["variant"] == "synthetic" and results["seeds"] == [42, 94]
    assert results["comparison_order"] == ["M1_vs_M3", "M3_vs_M4"]


def test_analyze_reports_bad_prediction_file_in_one_line(demo_dir, tmp_path, capsys):
    results = tmp_path / "results"
    shutil.copytree(demo_dir / "synthetic", results / "synthetic")
    bad = results / "synthetic" / "M4" / "seed_42" / "M4_predictions.csv"
    pd.read_csv(bad).drop(columns=["abs_error"]).to_csv(bad, index=False)
    code = run_main(main, ["analyze", "--results", str(results), "--variant", "synthetic",
                           "--seeds", "42", "--comparisons", "M3:M4", *STATS])
    err = capsys.readouterr().err
    assert code == 2 and str(bad) in err and "abs_error" in err and len(err.strip().splitlines()) == 1
    code = run_main(main, ["analyze", "--results", str(results), "--variant", "synthetic",
                           "--seeds", "7", "--comparisons", "M3:M4", *STATS])
    assert code == 2 and "M3_predictions.csv" in capsys.readouterr().err


def test_training_and_predictions_are_reproducible(tmp_path):
    torch.set_num_threads(1)
    samples = make_driving_sequences(12, 40, seed=5)
    plan = TrainingPlan(model_ids=("M1",), seeds=(3,), epochs=2, latency_calls=5)
    first = train_and_predict(samples, tmp_path / "a", "synthetic", plan).prediction_files[0]
    second = train_and_predict(samples, tmp_path / "b", "synthetic", plan).prediction_files[0]
    assert first.read_bytes() == second.read_bytes()
    frame = pd.read_csv(first)
    assert np.allclose(frame["abs_error"], (frame["y_true"] - frame["y_pred"]).abs())


def test_split_and_models_commands(tmp_path, capsys):
    samples = tmp_path / "samples.csv"

    def sample_table(ids):  # split reads the samples in full, as train does: a table of valid samples
        return pd.DataFrame({"sequence_id": ids, "target": 0.0, **{f"f{i}": 0.0 for i in range(5)}})
    sample_table(np.repeat([f"d{i}" for i in range(10)], 3)).to_csv(samples, index=False)
    assert run_main(main, ["split", "--samples", str(samples), "--out", str(tmp_path)]) == 0
    assert "train 7, val 2, test 1" in capsys.readouterr().out
    assert run_main(main, ["models"]) == 0
    assert "630,786" in capsys.readouterr().out
    sample_table(["x"] * 3).to_csv(samples, index=False)
    assert run_main(main, ["split", "--samples", str(samples), "--out", str(tmp_path / "o")]) == 2
    assert "cannot fill three non-empty splits" in capsys.readouterr().err
