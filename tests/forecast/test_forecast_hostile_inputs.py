"""Hostile inputs reproduced for real: crafted task lists, links, text targets, a download without
network. Each ends in one ``error:`` line and exit code 2, with memory bounded by the data."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import yaml
from forecast_layouts import chronos_table, write_ipc

import pipeline
from pipeline.cli import run_main
from pipeline.errors import ConfigError
from pipeline.protocols.forecast.__main__ import main
from pipeline.protocols.forecast.benchmarks import load_benchmark
from pipeline.protocols.forecast.limits import Limits


def cli(*args) -> int:
    return run_main(main, [str(a) for a in args])


@pytest.fixture
def toy_root(tmp_path) -> Path:
    """One daily series of 200 points as ``<root>/toy``."""
    write_ipc(tmp_path / "root" / "toy", chronos_table({"target": [np.sin(np.arange(200.0)) + 5]}))
    return tmp_path / "root"


def _run(root, tasks, *extra) -> int:
    return cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", tasks, "--datasets-root", root,
               "--output-dir", root.parent / "out", "--no-progress", *extra)


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err


@pytest.mark.parametrize("benchmark, entry", [
    ("lite", {"name": "toy", "prediction_length": 48, "offset": -48, "num_rolls": 1_000_000_000}),
    ("fev_bench", {"dataset_config": "toy", "horizon": 48, "num_windows": 1_000_000_000}),
])
def test_a_billion_windows_is_refused_before_anything_is_built(toy_root, tmp_path, capsys, benchmark, entry):
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(yaml.safe_dump([entry] if benchmark == "lite" else {"tasks": [entry]}))
    assert _run(toy_root, f"{benchmark}={tasks}") == 2
    err = _one_error_line(capsys)
    assert "exceeds the limit max_windows=1000 (raise it with --max-windows)" in err and "found 1000000000" in err


def test_windows_past_the_series_end_are_refused_not_silently_skipped(toy_root, tmp_path, capsys):
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(yaml.safe_dump([{"name": "toy", "prediction_length": 48, "offset": -48, "num_rolls": 100_000}]))
    assert _run(toy_root, f"lite={tasks}", "--max-windows", "200000") == 2
    err = _one_error_line(capsys)
    assert "offset leaves no room for every window" in err and "<= -H - (num_windows - 1) * step = -4800000" in err


@pytest.mark.parametrize("policy, code", [("error", 2), ("drop", 1)])
def test_raised_limits_keep_memory_bounded_by_the_data(toy_root, tmp_path, capsys, policy, code):
    """With the limits lifted, a billion windows on a 200-point series: the first window is empty,
    the task fails at once, and no window list is ever allocated."""
    windows = 1_000_000_000
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(yaml.safe_dump([{"name": "toy", "prediction_length": 48, "offset": -48 * windows,
                                      "num_rolls": windows}]))
    tracemalloc.start()
    try:
        result = _run(toy_root, f"lite={tasks}", "--max-windows", str(windows), "--max-points", str(10**12),
                      "--on-missing", policy, "--experiment-name", policy)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result == code and peak < 50 * 2**20
    if policy == "error":
        assert "field 'toy': window 0 keeps no series" in _one_error_line(capsys)


def test_task_list_size_and_count_are_checked_before_use(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("- [" * 40 + "\n")  # not even valid YAML: the size is checked first
    with pytest.raises(ConfigError, match="max_task_file_bytes=64"):
        load_benchmark(f"lite={big}", Limits(max_task_file_bytes=64))
    aliases = tmp_path / "aliases.yaml"  # 10,001 tasks from one anchor: counted before any is built
    aliases.write_text("- &a {name: toy, prediction_length: 4}\n" + "- *a\n" * 10_000)
    with pytest.raises(ConfigError, match="max_tasks=10000"):
        load_benchmark(f"lite={aliases}")
    laughs = tmp_path / "laughs.yaml"  # nested aliases expand to 10**9 leaves: refused from the parser's events
    laughs.write_text("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8))
        + "tasks: [*i]\n")
    with pytest.raises(ConfigError, match="holds more than 100000 values once its aliases are expanded"):
        load_benchmark(f"fev_bench={laughs}")


@pytest.mark.parametrize("entry, message", [
    ({"name": "toy", "prediction_length": 10**12}, "max_prediction_length=100000"),
    ({"name": "toy", "prediction_length": 4, "offset": -(10**15)}, "max_points=500000000"),
    ({"name": "toy", "prediction_length": 4, "num_roll": 3}, "unknown task keys"),
    ({"name": "toy", "prediction_length": True}, "invalid value"),
    ({"name": "../toy", "prediction_length": 4}, "invalid dataset name"),
    ([{"name": "toy", "prediction_length": 4}, {"name": "toy", "prediction_length": 8}], "task names repeat"),
])
def test_task_fields_are_bounded_and_checked(tmp_path, entry, message):
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(yaml.safe_dump(entry if isinstance(entry, list) else [entry]))
    with pytest.raises(ConfigError, match=message):
        load_benchmark(f"lite={tasks}")


def test_a_link_out_of_the_datasets_root_is_refused(toy_root, tmp_path, capsys):
    write_ipc(tmp_path / "private" / "toy2", chronos_table({"target": [np.arange(100.0)]}))
    (toy_root / "toy2").symlink_to(tmp_path / "private" / "toy2", target_is_directory=True)
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(yaml.safe_dump([{"name": "toy2", "prediction_length": 4}]))
    assert _run(toy_root, f"lite={tasks}") == 2
    assert "path leads outside the datasets root (symbolic link)" in _one_error_line(capsys)
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"lite={tasks}",
               "--datasets-root", toy_root, "--dry-run") == 2


def test_an_all_text_target_column_is_not_scored(tmp_path, capsys):
    root = tmp_path / "root"
    write_ipc(root / "words", pa.table({"id": ["a"], "target": pa.array([["up", "down"] * 30])}))
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(yaml.safe_dump([{"name": "words", "prediction_length": 4}]))
    assert _run(root, f"lite={tasks}") == 2
    err = _one_error_line(capsys)
    assert "field 'target': target column is not a list of numbers" in err and "found list<item: string>" in err


@pytest.mark.parametrize("network", [{"HF_HUB_OFFLINE": "1"}, {"HF_ENDPOINT": "http://127.0.0.1:9"}],
                         ids=["offline", "connection-refused"])
def test_a_download_without_network_ends_in_one_line(tmp_path, network):
    env = {key: value for key, value in os.environ.items() if not key.startswith("HF_")}
    env.update(network, HF_HOME=str(tmp_path / "hf"), PYTHONPATH=str(Path(pipeline.__file__).parents[1]))
    result = subprocess.run([sys.executable, "-m", "pipeline.protocols.forecast", "download_eval_datasets",
                             "--config", "lite", "--datasets", "nn5", "--output-dir", str(tmp_path / "root")],
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: field 'autogluon/chronos_datasets/nn5'")
    assert "download failed (LocalEntryNotFoundError" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "root").exists()
