"""What a forecast run writes for its reader: fev's bootstrap CIs in summary.json, report.md and
compare_models, a report that reads right (plural, no <NA>) and reruns as printed, the original
framework's config names, and the banner's device being the one used."""

from __future__ import annotations

import json
import re
import shlex

import numpy as np
import pandas as pd
import pytest
import yaml

from pipeline.cli import run_main
from pipeline.protocols.forecast.__main__ import _device_text, main, rerun_command
from pipeline.protocols.forecast.aggregate import baseline_skill, geometric_mean
from pipeline.protocols.forecast.benchmarks import CONFIG_DIR, config_path, load_benchmark
from pipeline.protocols.forecast.compare import format_value
from pipeline.protocols.forecast.models import ModelFactory


def cli(*args) -> int:
    return run_main(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def one_dataset_run(arrow_root, tmp_path_factory):
    """exchange_rate scored and m4_monthly missing (dropped): one dataset in the summary."""
    folder = tmp_path_factory.mktemp("runs")
    tasks = folder / "two.yaml"
    entries = [e for e in yaml.safe_load((CONFIG_DIR / "lite.yaml").read_text())
               if e["name"] in ("exchange_rate", "m4_monthly")]
    tasks.write_text(yaml.safe_dump(entries))
    args = ["run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"lite={tasks}",
            "--datasets-root", arrow_root, "--output-dir", folder, "--experiment-name", "one",
            "--on-missing", "drop", "--no-progress"]
    assert cli(*args) == 0
    return folder / "one", args


def test_skill_scores_with_bootstrap_cis_reach_summary_and_report(one_dataset_run):
    folder, _ = one_dataset_run
    table = pd.read_csv(folder / "chronos_lite.csv").set_index("dataset")
    summary = json.loads((folder / "summary.json").read_text())["benchmarks"]["lite"]["skill_scores"]
    assert summary == json.loads((folder / "chronos_lite_summary.json").read_text())["skill_scores"]
    assert summary["baseline"] == "seasonal_naive_point" and summary["bootstrap"]["n_resamples"] == 1000
    relative = table.loc["exchange_rate", "relative_MASE"]
    mase = summary["MASE"]
    assert mase["skill_score"] == pytest.approx(1 - np.clip(relative, 0.01, 100), rel=1e-12)
    # one task: every resample draws it, so the interval is the point
    assert mase["skill_score_lower"] == mase["skill_score_upper"] == pytest.approx(mase["skill_score"])
    assert mase["n_tasks"] == 1
    report = (folder / "report.md").read_text()
    assert "**lite**: 1 dataset, mean MASE" in report and "1 datasets" not in report
    assert f"skill score (MASE) {mase['skill_score']:.4f} [{mase['skill_score_lower']:.4f}, " in report
    assert "<NA>" not in report and "| m4\\_monthly | missing | — | — |" in report


def test_baseline_skill_is_fevs_leaderboard_against_the_baseline():
    relative = pd.Series([0.5, 0.8, 1.25, 2.0, 0.9, 0.7], index=list("abcdef"))
    skill = baseline_skill(relative)
    assert skill["skill_score"] == pytest.approx(1 - geometric_mean(relative.to_numpy()), rel=1e-12)
    assert skill["win_rate"] == pytest.approx(4 / 6)
    assert skill["skill_score_lower"] < skill["skill_score"] < skill["skill_score_upper"]
    assert skill["win_rate_lower"] <= skill["win_rate"] <= skill["win_rate_upper"]


def test_the_reproduction_command_reruns_as_printed(one_dataset_run, capsys):
    folder, args = one_dataset_run
    report = (folder / "report.md").read_text()
    command = re.search(r"## Reproduction command\n\n.*\n\n```\n(.*)\n```", report).group(1)
    assert command.startswith("python -m pipeline.protocols.forecast run_benchmark ")
    assert "--experiment-name" not in command
    capsys.readouterr()
    assert run_main(main, shlex.split(command)[3:]) == 0  # a second run, into a new folder
    assert "experiment directory already exists" not in capsys.readouterr().err
    assert len([p for p in folder.parent.iterdir() if p.is_dir()]) == 2
    assert rerun_command(["run_benchmark", "--exp", "x", "--experiment-name=y", "--no-progress"]) == \
        "python -m pipeline.protocols.forecast run_benchmark --no-progress"


def test_compare_models_ends_with_the_leaderboard_and_its_cis(one_dataset_run, tmp_path, capsys):
    folder, _ = one_dataset_run
    assert cli("compare_models", "--results-dirs", folder, "chronos-bolt-base", "--model-names", "naive",
               "bolt") == 0
    out = capsys.readouterr().out
    assert "95 % percentile-bootstrap CIs over tasks" in out
    assert "| metric | model | skill\\_score | skill\\_score\\_lower | skill\\_score\\_upper |" in out
    assert re.search(r"\| MASE \| naive \| 0\.0000 \| 0\.0000 \| 0\.0000 \|", out)  # the baseline
    csv = tmp_path / "cmp.csv"
    assert cli("compare_models", "--results-dirs", folder, "chronos-bolt-base", "--model-names", "naive",
               "bolt", "--format", "csv", "--output", csv, "--baseline", "bolt") == 0
    board = pd.read_csv(tmp_path / "cmp_leaderboard.csv").set_index(["metric", "model"])
    assert board.loc[("WQL", "bolt"), "skill_score"] == 0.0
    assert board.loc[("MASE", "naive"), "skill_score_lower"] <= board.loc[("MASE", "naive"), "skill_score"]
    assert [format_value(v) for v in (-1e-9, float("nan"), pd.NA, None, 0.12345)] == \
        ["0.0000", "—", "—", "—", "0.1235"]
    assert cli("compare_models", "--results-dirs", folder, "--model-names", "a", "--baseline", "b") == 2
    assert "field '--baseline'" in capsys.readouterr().err


@pytest.mark.parametrize("alias, shipped", [("configs/lite-benchmark.yaml", "lite"), ("in-domain.yaml", "chronos_i"),
                                            ("zero-shot.yaml", "chronos_ii"),
                                            ("configs/extended-benchmark.yaml", "extended")])
def test_the_original_frameworks_config_names_are_aliases(alias, shipped):
    assert config_path(alias) == CONFIG_DIR / f"{shipped}.yaml"
    assert [t.name for t in load_benchmark(f"{shipped}={alias}").tasks] == \
        [t.name for t in load_benchmark(shipped).tasks]


def test_download_accepts_the_original_config_names(arrow_root, capsys):
    assert cli("download_eval_datasets", "--config", "configs/lite-benchmark.yaml", "--output-dir", arrow_root,
               "--dry-run") == 0
    assert capsys.readouterr().out.startswith("DRY RUN — 5 unique dataset(s)")


def test_the_banner_names_the_device_used(tiny_models, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    args = type("Args", (), {"device": "cuda", "torch_dtype": "bfloat16"})
    with pytest.warns(UserWarning, match="falling back to CPU"):
        factory = ModelFactory(tiny_models["bolt"], device="cuda", torch_dtype="bfloat16")
    assert _device_text(factory, args) == "cpu (bfloat16); --device cuda requested, CUDA is not available"
    assert factory.describe()["device"] == "cpu" and factory.describe()["device_requested"] == "cuda"
    args.device = "cpu"
    assert _device_text(ModelFactory(tiny_models["bolt"], device="cpu", torch_dtype="bfloat16"), args) == \
        "cpu (bfloat16)"
    assert _device_text(ModelFactory("seasonal_naive", device="cpu"), args) == "cpu (built-in model in NumPy)"
