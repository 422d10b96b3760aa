"""End-to-end CLI on the real staged data: run_benchmark (console, files, dry run, devices),
compare_models (rows per benchmark, published references), download_eval_datasets, policies."""

from __future__ import annotations

import json
import re
import shutil

import pandas as pd
import pytest
import yaml

from pipeline.cli import run_main
from pipeline.protocols.forecast.__main__ import main
from pipeline.protocols.forecast.benchmarks import CONFIG_DIR

REPORT_SECTIONS = ["## Executive summary", "## Per-benchmark results", "## Per-dataset results",
                   "## Environment", "## Timings", "## Reproduction command"]


def cli(*args) -> int:
    return run_main(main, [str(a) for a in args])


def _task_file(path, entries) -> str:
    path.write_text(yaml.safe_dump(entries))
    return str(path)


@pytest.fixture(scope="module")
def lite_run(arrow_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("experiments")
    code = cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite", "chronos_ii",
               "--datasets-root", arrow_root, "--output-dir", out, "--experiment-name", "naive",
               "--on-missing", "drop", "--no-progress")
    return code, out / "naive"


def test_run_benchmark_writes_the_documented_files(lite_run):
    code, folder = lite_run
    assert code == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "chronos_bench_zero_shot.csv", "chronos_bench_zero_shot_summary.json", "chronos_lite.csv",
        "chronos_lite_summary.json", "config.json", "report.md", "summary.json"]
    table = pd.read_csv(folder / "chronos_lite.csv")
    assert list(table["dataset"]) == sorted(table["dataset"])
    assert list(table.columns[:5]) == ["dataset", "model", "status", "MASE", "WQL"]
    ok = table[table["status"] == "ok"].set_index("dataset")
    assert sorted(ok.index) == ["exchange_rate", "m4_hourly", "nn5"]
    assert set(table.loc[table["status"] == "missing", "dataset"]) == {"m4_monthly", "monash_weather"}
    summary = json.loads((folder / "chronos_lite_summary.json").read_text())
    assert summary["n_datasets"] == 3 and summary["dropped_tasks"] == ["m4_monthly", "monash_weather"]
    assert summary["avg_mase"] == pytest.approx(ok["MASE"].mean())
    config = json.loads((folder / "config.json").read_text())
    assert config["model"]["model_type"] == "seasonal_naive" and config["benchmarks"] == ["lite", "chronos_ii"]
    assert config["result_files"] == {"lite": "chronos_lite", "chronos_ii": "chronos_bench_zero_shot"}
    assert config["model"]["device_requested"] == "cuda" and config["model"]["device"] == "cpu"
    assert config["environment"]["numpy"] and config["baseline"]["lite"] == "seasonal_naive_point"
    timings = json.loads((folder / "summary.json").read_text())
    assert timings["benchmarks"]["lite"]["status"] == "ok"
    assert set(timings["benchmarks"]["lite"]["timings"]) == {"exchange_rate", "m4_hourly", "nn5"}
    report = (folder / "report.md").read_text()
    positions = [report.index(section) for section in REPORT_SECTIONS]
    assert positions == sorted(positions)
    assert "run_benchmark --model-path seasonal_naive" in report


def test_console_shows_each_dataset_and_the_final_averages(arrow_root, tmp_path, capsys):
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite", "--datasets-root", arrow_root,
               "--output-dir", tmp_path, "--experiment-name", "console", "--on-missing", "drop") == 0
    out = capsys.readouterr().out
    table = pd.read_csv(tmp_path / "console" / "chronos_lite.csv").set_index("dataset")
    row = table.loc["m4_hourly"]
    # the name column is padded to the longest name (monash_weather), as the original framework prints it
    assert re.search(rf"^  \[1/5\] m4_hourly:      WQL={row.WQL:.4f}, MASE={row.MASE:.4f} \(\d+\.\ds\)$", out, re.M)
    assert "  [2/5] m4_monthly:     MISSING (dataset not available locally)" in out
    summary = json.loads((tmp_path / "console" / "chronos_lite_summary.json").read_text())
    assert f"    avg_mase: {summary['avg_mase']:.4f}" in out and "    n_datasets: 3" in out
    assert f"Results saved: {tmp_path / 'console' / 'chronos_lite.csv'}" in out
    assert "  EVALUATION COMPLETE\n  Benchmarks : 1 passed, 0 failed" in out
    assert "Device     : cpu (built-in model in NumPy; --device cuda not used)" in out


def test_same_inputs_give_byte_identical_tables(lite_run, arrow_root, tmp_path):
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite", "chronos_ii",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "again",
               "--on-missing", "drop", "--no-progress") == 0
    for name in ("chronos_lite.csv", "chronos_lite_summary.json", "chronos_bench_zero_shot.csv",
                 "chronos_bench_zero_shot_summary.json"):
        assert (tmp_path / "again" / name).read_bytes() == (lite_run[1] / name).read_bytes()


def test_missing_data_under_error_policy_stops_before_any_work(arrow_root, tmp_path, capsys):
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "chronos_i", "lite",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--no-progress") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "never downloaded" in err
    # every missing dataset is counted; the list itself is cut to the error class's readable length
    assert "16 dataset(s) not available locally" in err and "chronos_i/" in err
    assert not any(tmp_path.iterdir())


def test_dry_run_reports_files_sizes_and_environment(arrow_root, tiny_models, tmp_path, capsys):
    code = cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite",
               "--datasets-root", arrow_root, "--dry-run")
    out = capsys.readouterr().out
    assert code == 1
    assert "  DRY RUN — Checking data and model availability" in out
    assert "  Model path: seasonal_naive [BUILT-IN] (seasonal_naive, no weights)" in out
    assert re.search(r"^    nn5: \[FOUND\] 1 data file\(s\), \d+\.\d MB$", out, re.M)
    assert f"    m4_monthly: [NOT FOUND] checked: {arrow_root / 'm4_monthly'}" in out
    environment = re.search(r"--- Environment ---\n((?:    .*\n){6})", out).group(1).split("\n")
    assert [line.split(":")[0].strip() for line in environment[:6]] == [
        "Python", "PyTorch", "CUDA", "PyArrow", "Datasets", "GluonTS"]
    assert "No evaluation was performed (2 dataset(s) missing)" in out
    only_local = _task_file(tmp_path / "lite3.yaml",
                            [{"name": n, "prediction_length": 4} for n in ("nn5", "exchange_rate")])
    assert cli("run_benchmark", "--model-path", tiny_models["chronos2"], "--benchmarks", f"lite={only_local}",
               "--datasets-root", arrow_root, "--dry-run") == 0
    out = capsys.readouterr().out
    assert "[EXISTS] (chronos2, " in out and "Config files: ['config.json']" in out
    assert cli("run_benchmark", "--model-path", tmp_path / "no_model", "--benchmarks", f"lite={only_local}",
               "--datasets-root", arrow_root, "--dry-run") == 1
    assert "[NOT FOUND]" in capsys.readouterr().out


def test_chronos_model_on_cuda_0_falls_back_and_compares_with_runs_and_references(
        arrow_root, tiny_models, lite_run, tmp_path, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    tasks = _task_file(tmp_path / "fx.yaml", [{"name": "exchange_rate", "prediction_length": 30}])
    with pytest.warns(UserWarning, match="'cuda:0' requested but CUDA is not available; falling back to CPU"):
        code = cli("run_benchmark", "--model-path", tiny_models["bolt"], "--benchmarks", f"lite={tasks}",
                   "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "bolt",
                   "--device", "cuda:0", "--batch-size", "4", "--no-progress",
                   "--compare-with", lite_run[1], "chronos-bolt-base", "chronos-2")
    assert code == 0
    table = pd.read_csv(tmp_path / "bolt" / "chronos_lite.csv")
    assert table.loc[0, "status"] == "ok" and table.loc[0, "n_series"] == 8
    assert table.loc[0, "baseline_MASE"] == pytest.approx(1.7401824286954128, rel=1e-6)
    config = json.loads((tmp_path / "bolt" / "config.json").read_text())
    assert config["model"]["device"] == "cpu" and config["model"]["device_requested"] == "cuda:0"
    comparison = (tmp_path / "bolt" / "comparison.md").read_text()
    assert r"MASE\[chronos-2-lookalike\]" in comparison and r"MASE\[naive\]" in comparison
    # the published Chronos-Bolt (Base) exchange_rate scores, from the shipped reference CSV
    assert "| lite | exchange\\_rate |" in comparison and "| 1.7095 |" in comparison
    # and Chronos-2's, from the framework's lite reference
    assert r"MASE\[chronos-2\]" in comparison and "| 1.8509 |" in comparison
    assert "## Comparison with other runs" in (tmp_path / "bolt" / "report.md").read_text()
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"lite={tasks}",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "bolt") == 2
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"lite={tasks}",
               "--datasets-root", arrow_root, "--device", "gpu") == 2


@pytest.mark.parametrize("fmt, marker", [("markdown", "| benchmark | dataset |"), ("csv", "benchmark,dataset,"),
                                         ("latex", r"\begin{tabular}")])
def test_compare_models_formats(lite_run, tmp_path, fmt, marker):
    other = tmp_path / "copy"
    shutil.copytree(lite_run[1], other)
    out = tmp_path / f"table.{fmt}"
    assert cli("compare_models", "--results-dirs", lite_run[1], other, "--model-names", "naive_a", "naive_b",
               "--format", fmt, "--output", out) == 0
    text = out.read_text()
    assert marker in text
    if fmt == "csv":
        frame = pd.read_csv(out)
        nn5 = frame[(frame["benchmark"] == "lite") & (frame["dataset"] == "nn5")].iloc[0]
        assert nn5["MASE[naive_a]"] == nn5["MASE[naive_b]"] == pytest.approx(1.2917285866431214, rel=1e-6)
    if fmt == "latex":
        assert r"MASE{[}naive\_a{]}" in text  # brackets braced: safe at a row start
    assert cli("compare_models", "--results-dirs", lite_run[1], "--model-names", "a", "b") == 2


def test_compare_models_lists_each_benchmarks_own_datasets(arrow_root, tmp_path):
    """lite + chronos_i + chronos_ii used to give 3 x 42 = 126 rows (79 outside their benchmark)."""
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite", "chronos_i", "chronos_ii",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "three",
               "--on-missing", "drop", "--no-progress") == 0
    out = tmp_path / "three.csv"
    assert cli("compare_models", "--results-dirs", tmp_path / "three", "seasonal-naive",
               "--model-names", "ours", "published", "--format", "csv", "--output", out) == 0
    frame = pd.read_csv(out)
    own = {bench: {entry["name"] for entry in yaml.safe_load((CONFIG_DIR / f"{bench}.yaml").read_text())}
           for bench in ("lite", "chronos_i", "chronos_ii")}
    assert len(frame) == 5 + 15 + 27
    assert {(b, d) for b, d in zip(frame["benchmark"], frame["dataset"])} == {
        (bench, name) for bench, names in own.items() for name in names}
    published = frame.set_index(["benchmark", "dataset"])
    # the shipped seasonal-naive reference equals our point-quantile baseline, not the Gaussian one
    assert published.loc[("chronos_ii", "nn5"), "MASE[published]"] == pytest.approx(1.2917285866431214)
    assert published.loc[("chronos_ii", "nn5"), "MASE[ours]"] == pytest.approx(1.2917285866431214, rel=1e-6)
    assert published.loc[("lite", "m4_monthly"), "MASE[published]"] == pytest.approx(1.2597170386001693)
    assert pd.isna(published.loc[("lite", "m4_monthly"), "MASE[ours]"])


def test_compare_models_with_published_references_only(tmp_path):
    out = tmp_path / "refs.csv"
    assert cli("compare_models", "--results-dirs", "chronos-t5-large", "seasonal-naive",
               "--model-names", "t5_large", "naive", "--format", "csv", "--output", out) == 0
    frame = pd.read_csv(out)
    assert len(frame) == 15 + 27 and set(frame["benchmark"]) == {"chronos_i", "chronos_ii"}
    assert cli("compare_models", "--results-dirs", "no-such-model", "--model-names", "x") == 2


def test_download_eval_datasets_from_staged_files_and_mirror(forecast_dir, arrow_root, tmp_path):
    root = tmp_path / "root"
    assert cli("download_eval_datasets", "--benchmarks", "chronos_ii", "--datasets", "nn5", "exchange_rate",
               "--output-dir", root, "--staged-dir", forecast_dir) == 0
    assert sorted(p.name for p in root.iterdir()) == ["exchange_rate", "nn5"]
    import pyarrow as pa
    import pyarrow.parquet as pq

    mirror = tmp_path / "mirror" / "m4_hourly"
    mirror.mkdir(parents=True)
    with pa.memory_map(str(arrow_root / "m4_hourly" / "data-00000-of-00001.arrow")) as source:
        pq.write_table(pa.ipc.open_stream(source).read_all(), mirror / "train-00000-of-00001.parquet")
    assert cli("download_eval_datasets", "--config", "lite", "--datasets", "m4_hourly",
               "--output-dir", root, "--source-dir", tmp_path / "mirror") == 0
    assert (root / "m4_hourly" / "data-00000-of-00001.arrow").is_file()
    assert cli("download_eval_datasets", "--benchmarks", "lite", "--datasets", "not_a_dataset",
               "--output-dir", root) == 2


def test_download_dry_run_lists_unique_datasets_of_several_configs(forecast_dir, arrow_root, capsys):
    zero_shot = forecast_dir / "chronos-configs" / "zero-shot.yaml"
    assert cli("download_eval_datasets", "--config", "lite.yaml", zero_shot, "--output-dir", arrow_root,
               "--dry-run") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"DRY RUN — 29 unique dataset(s) to download into {arrow_root}:"
    assert f"  [EXISTS] autogluon/chronos_datasets/nn5 -> {arrow_root / 'nn5'}" in out
    assert f"  [MISSING] autogluon/chronos_datasets_extra/ETTm -> {arrow_root / 'ETTm'}" in out
    assert cli("download_eval_datasets", "--config", "nope.yaml", "--output-dir", arrow_root) == 2


@pytest.mark.parametrize("policy, code", [("error", 2), ("drop", 0), ("impute", 0)])
def test_bad_input_policies(arrow_root, tmp_path, capsys, policy, code):
    """A task whose data are unusable stops the run (exit 2, one line) or is dropped/imputed."""
    tasks = _task_file(tmp_path / "fev.yaml", {"tasks": [
        {"dataset_config": "nn5", "horizon": 14},
        {"dataset_config": "exchange_rate", "horizon": 10, "target": "price"}]})
    assert cli("run_benchmark", "--model-path", "seasonal_naive_point", "--benchmarks", f"fev_bench={tasks}",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", policy,
               "--on-missing", policy, "--no-progress") == code
    if policy == "error":
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "field 'price': target column not found" in err
        return
    summary = json.loads((tmp_path / policy / "fev_bench_summary.json").read_text())
    assert "target column not found" in summary["failed_tasks"]["exchange_rate"]
    if policy == "drop":
        assert summary["dropped_tasks"] == ["exchange_rate"] and summary["n_relative_scores"] == 1
    else:
        assert summary["status"] == "ok" and summary["imputed_tasks"] == ["exchange_rate"]
        assert summary["n_datasets"] == 1 and summary["n_relative_scores"] == 2
        nn5 = pd.read_csv(tmp_path / policy / "fev_bench.csv").set_index("dataset").loc["nn5"]
        # point quantiles vs the Gaussian fev baseline: WQL differs; gmean over nn5 and the imputed 1.0
        assert nn5["relative_WQL"] != pytest.approx(1.0, rel=1e-3)
        assert summary["gmean_relative_wql"] == pytest.approx(nn5["relative_WQL"] ** 0.5)


def test_a_crashing_model_is_a_recorded_failure(arrow_root, tmp_path, monkeypatch, capsys):
    from pipeline.protocols.forecast.forecasters import SeasonalNaiveForecaster

    def crash(self, contexts, horizon, levels):
        raise RuntimeError("model exploded")

    monkeypatch.setattr(SeasonalNaiveForecaster, "_predict", crash)
    tasks = _task_file(tmp_path / "one.yaml", [{"name": "nn5", "prediction_length": 56}])
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"lite={tasks}",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "crash") == 1
    captured = capsys.readouterr()
    assert "  [1/1] nn5: FAILED (RuntimeError: model exploded)" in captured.out
    assert "benchmark lite FAILED: 1 task(s) failed" in captured.err
    table = pd.read_csv(tmp_path / "crash" / "chronos_lite.csv")
    assert table.loc[0, "status"] == "failed" and table.loc[0, "error"] == "RuntimeError: model exploded"
