"""End-to-end CLI on the real staged data: run_benchmark, dry run, outputs, compare_models, downloads,
and the GIFT-Eval / fev-bench task-list adapters."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
import yaml

from pipeline.cli import run_main
from pipeline.protocols.forecast.__main__ import main

REPORT_SECTIONS = ["## Executive summary", "## Per-benchmark results", "## Per-dataset results",
                   "## Environment", "## Timings", "## Reproduction command"]


def cli(*args) -> int:
    return run_main(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def lite_run(arrow_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("experiments")
    code = cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite", "chronos_ii",
               "--datasets-root", arrow_root, "--output-dir", out, "--experiment-name", "naive",
               "--on-missing", "drop", "--no-progress")
    return code, out / "naive"


def test_run_benchmark_writes_every_output(lite_run):
    code, folder = lite_run
    assert code == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "chronos_ii.csv", "chronos_ii_summary.json", "config.json", "lite.csv", "lite_summary.json",
        "report.md", "summary.json"]
    table = pd.read_csv(folder / "lite.csv")
    assert list(table["dataset"]) == sorted(table["dataset"])
    assert list(table.columns[:5]) == ["dataset", "model", "status", "MASE", "WQL"]
    ok = table[table["status"] == "ok"].set_index("dataset")
    assert sorted(ok.index) == ["exchange_rate", "m4_hourly", "nn5"]
    assert set(table.loc[table["status"] == "missing", "dataset"]) == {"m4_monthly", "monash_weather"}
    summary = json.loads((folder / "lite_summary.json").read_text())
    assert summary["n_datasets"] == 3 and summary["dropped_tasks"] == ["m4_monthly", "monash_weather"]
    assert summary["avg_mase"] == pytest.approx(ok["MASE"].mean())
    config = json.loads((folder / "config.json").read_text())
    assert config["model"]["model_type"] == "seasonal_naive" and config["benchmarks"] == ["lite", "chronos_ii"]
    assert config["environment"]["numpy"] and config["baseline"]["lite"] == "seasonal_naive_point"
    timings = json.loads((folder / "summary.json").read_text())
    assert timings["benchmarks"]["lite"]["status"] == "ok"
    assert set(timings["benchmarks"]["lite"]["timings"]) == {"exchange_rate", "m4_hourly", "nn5"}
    report = (folder / "report.md").read_text()
    positions = [report.index(section) for section in REPORT_SECTIONS]
    assert positions == sorted(positions)
    assert "run_benchmark --model-path seasonal_naive" in report


def test_same_inputs_give_byte_identical_tables(lite_run, arrow_root, tmp_path):
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite", "chronos_ii",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "again",
               "--on-missing", "drop", "--no-progress") == 0
    for name in ("lite.csv", "lite_summary.json", "chronos_ii.csv", "chronos_ii_summary.json"):
        assert (tmp_path / "again" / name).read_bytes() == (lite_run[1] / name).read_bytes()


def test_missing_data_under_error_policy_stops_before_any_work(arrow_root, tmp_path, capsys):
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--no-progress") == 2
    err = capsys.readouterr().err
    assert "m4_monthly, monash_weather" in err and "never downloaded" in err
    assert not any(tmp_path.iterdir())


def test_dry_run_reports_availability(arrow_root, tiny_models, tmp_path, capsys):
    code = cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "lite",
               "--datasets-root", arrow_root, "--dry-run")
    out = capsys.readouterr().out
    assert code == 1 and "lite/m4_monthly: MISSING" in out and "lite/nn5:" in out and "MB)" in out
    only_local = tmp_path / "lite3.yaml"
    only_local.write_text(yaml.safe_dump([{"name": n, "prediction_length": 4} for n in ("nn5", "exchange_rate")]))
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"lite={only_local}",
               "--datasets-root", arrow_root, "--dry-run") == 0
    assert cli("run_benchmark", "--model-path", tiny_models["chronos2"], "--benchmarks", f"lite={only_local}",
               "--datasets-root", arrow_root, "--dry-run") == 0
    assert "(chronos2, " in capsys.readouterr().out
    assert cli("run_benchmark", "--model-path", tmp_path / "no_model", "--benchmarks", f"lite={only_local}",
               "--datasets-root", arrow_root, "--dry-run") == 1
    assert "model " in capsys.readouterr().out


def test_chronos_model_through_the_cli_and_compare_with(arrow_root, tiny_models, lite_run, tmp_path, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    tasks = tmp_path / "fx.yaml"
    tasks.write_text(yaml.safe_dump([{"name": "exchange_rate", "prediction_length": 30}]))
    with pytest.warns(UserWarning, match="falling back to CPU"):
        code = cli("run_benchmark", "--model-path", tiny_models["bolt"], "--benchmarks", f"lite={tasks}",
                   "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "bolt",
                   "--device", "cuda", "--batch-size", "4", "--no-progress", "--compare-with", lite_run[1])
    assert code == 0
    table = pd.read_csv(tmp_path / "bolt" / "lite.csv")
    assert table.loc[0, "status"] == "ok" and table.loc[0, "n_series"] == 8
    assert table.loc[0, "baseline_MASE"] == pytest.approx(1.7401824286954128, rel=1e-6)
    config = json.loads((tmp_path / "bolt" / "config.json").read_text())
    assert config["model"]["device"] == "cpu"  # no CUDA here: fell back
    comparison = (tmp_path / "bolt" / "comparison.md").read_text()
    assert "MASE[chronos-2-lookalike]" in comparison and "MASE[naive]" in comparison
    assert "## Comparison with other runs" in (tmp_path / "bolt" / "report.md").read_text()
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"lite={tasks}",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "bolt") == 2


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
        assert r"MASE[naive\_a]" in text
    assert cli("compare_models", "--results-dirs", lite_run[1], "--model-names", "a", "b") == 2


def test_download_eval_datasets_from_staged_files_and_mirror(forecast_dir, arrow_root, tmp_path):
    root = tmp_path / "root"
    assert cli("download_eval_datasets", "--benchmarks", "chronos_ii", "--datasets", "nn5", "exchange_rate",
               "--output-dir", root, "--staged-dir", forecast_dir) == 0
    assert sorted(p.name for p in root.iterdir()) == ["exchange_rate", "nn5"]
    # a mirror with the Hub layout (<name>/*.parquet), built from the converted data
    import pyarrow as pa
    import pyarrow.parquet as pq

    mirror = tmp_path / "mirror" / "m4_hourly"
    mirror.mkdir(parents=True)
    with pa.memory_map(str(arrow_root / "m4_hourly" / "data-00000-of-00001.arrow")) as source:
        pq.write_table(pa.ipc.open_stream(source).read_all(), mirror / "train-00000-of-00001.parquet")
    assert cli("download_eval_datasets", "--benchmarks", "lite", "--datasets", "m4_hourly",
               "--output-dir", root, "--source-dir", tmp_path / "mirror") == 0
    assert (root / "m4_hourly" / "data-00000-of-00001.arrow").is_file()
    assert cli("download_eval_datasets", "--benchmarks", "lite", "--datasets", "not_a_dataset",
               "--output-dir", root) == 2


def test_fev_and_gift_eval_task_lists(arrow_root, tmp_path):
    fev_tasks = tmp_path / "fev.yaml"
    fev_tasks.write_text(yaml.safe_dump({"tasks": [
        {"dataset_path": "local", "dataset_config": "nn5", "horizon": 28, "num_windows": 2, "seasonality": 7,
         "eval_metric": "SQL"},
        {"dataset_path": "local", "dataset_config": "exchange_rate", "horizon": 10, "initial_cutoff": "2016-01-01"},
    ]}))
    gift_tasks = tmp_path / "gift.yaml"
    gift_tasks.write_text(yaml.safe_dump({"short": ["m4_hourly", "exchange_rate"], "medium_long": ["nn5"]}))
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"fev_bench={fev_tasks}",
               f"gift_eval={gift_tasks}", "--datasets-root", arrow_root, "--output-dir", tmp_path,
               "--experiment-name", "suites", "--on-missing", "drop", "--no-progress") == 0
    fev = pd.read_csv(tmp_path / "suites" / "fev_bench.csv").set_index("dataset")
    assert fev.loc["nn5", "n_windows"] == 2 and fev.loc["nn5", "seasonality"] == 7
    assert fev.loc["nn5", "mase_edge"] == "fev" and fev.loc["exchange_rate", "status"] == "failed"
    assert "initial_cutoff" in fev.loc["exchange_rate", "error"]
    summary = json.loads((tmp_path / "suites" / "fev_bench_summary.json").read_text())
    assert summary["aggregation"] == "skill_score" and -1 < summary["skill_score_sql"] < 1
    gift = pd.read_csv(tmp_path / "suites" / "gift_eval.csv").set_index("dataset")
    # M4 hourly: H = 48, windows = ceil(0.1 * 748 / 48) = 2; exchange_rate (B -> D): H = 30,
    # windows = min(ceil(0.1 * 7588 / 30), 20) = 20; nn5 daily medium: H = 300, long: H = 450
    assert gift.loc["m4_hourly/short", ["prediction_length", "n_windows"]].tolist() == [48, 2]
    assert gift.loc["exchange_rate/short", ["prediction_length", "n_windows"]].tolist() == [30, 20]
    assert gift.loc["nn5/medium", ["prediction_length", "n_windows"]].tolist() == [300, 1]
    assert gift.loc["nn5/long", ["prediction_length", "n_windows"]].tolist() == [450, 1]
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", "fev_bench",
               "--datasets-root", arrow_root, "--dry-run") == 2


@pytest.mark.parametrize("policy, code", [("error", 1), ("impute", 0)])
def test_failed_task_policies(arrow_root, tmp_path, policy, code):
    tasks = tmp_path / "fev.yaml"
    tasks.write_text(yaml.safe_dump({"tasks": [
        {"dataset_config": "nn5", "horizon": 14},
        {"dataset_config": "exchange_rate", "horizon": 10, "initial_cutoff": "2016-01-01"}]}))
    assert cli("run_benchmark", "--model-path", "seasonal_naive_point", "--benchmarks", f"fev_bench={tasks}",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", policy,
               "--on-missing", policy, "--no-progress") == code
    summary = json.loads((tmp_path / policy / "fev_bench_summary.json").read_text())
    assert "initial_cutoff" in summary["failed_tasks"]["exchange_rate"]
    if policy == "error":
        assert summary["status"] == "failed" and "avg_mase" not in summary
        assert "FAILED" in (tmp_path / policy / "report.md").read_text()
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
    tasks = tmp_path / "one.yaml"
    tasks.write_text(yaml.safe_dump([{"name": "nn5", "prediction_length": 56}]))
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"lite={tasks}",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "crash",
               "--no-progress") == 1
    assert "nn5: FAILED (RuntimeError: model exploded)" in capsys.readouterr().err
    table = pd.read_csv(tmp_path / "crash" / "lite.csv")
    assert table.loc[0, "status"] == "failed" and table.loc[0, "error"] == "RuntimeError: model exploded"


def test_fev_multivariate_task_averages_target_dimensions(tmp_path):
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(2)
    load = [rng.normal(10, 1, 60), rng.normal(50, 5, 60)]
    stamps = pd.date_range("2022-01-03", periods=60, freq="D").to_numpy().astype("datetime64[ms]")
    table = pa.table({"id": ["u", "v"], "timestamp": pa.array([stamps, stamps], type=pa.list_(pa.timestamp("ms"))),
                      "load": pa.array(load), "price": pa.array([3 * s for s in load])})
    root = tmp_path / "root"
    (root / "both").mkdir(parents=True)
    with pa.OSFile(str(root / "both" / "data-00000-of-00001.arrow"), "wb") as sink, \
            pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    tasks = tmp_path / "fev.yaml"
    tasks.write_text(yaml.safe_dump({"tasks": [
        {"dataset_config": "both", "horizon": 7, "target": ["load", "price"]},
        {"dataset_config": "both", "horizon": 7, "target": "load", "task_name": "load_only"},
        {"dataset_config": "both", "horizon": 7, "target": "price", "task_name": "price_only"}]}))
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"fev_bench={tasks}",
               "--datasets-root", root, "--output-dir", tmp_path, "--experiment-name", "mv", "--no-progress") == 0
    table = pd.read_csv(tmp_path / "mv" / "fev_bench.csv").set_index("dataset")
    for metric in ("MASE", "WQL", "SQL", "MAE"):
        assert table.loc["both", metric] == pytest.approx(
            (table.loc["load_only", metric] + table.loc["price_only", metric]) / 2)
    assert table.loc["price_only", "MAE"] == pytest.approx(3 * table.loc["load_only", "MAE"])
