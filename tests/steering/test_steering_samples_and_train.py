"""The study's sample layouts (pickle folder, NPZ, CSV, Parquet) and the resumable train command,
end to end through the command line: make-synthetic -> split -> train -> analyze."""

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
import torch

from pipeline.cli import run_main
from pipeline.errors import DataError
from pipeline.protocols.steering.__main__ import main
from pipeline.protocols.steering.data import SequenceWindowDataset, make_driving_sequences
from pipeline.protocols.steering.models import MODEL_SPECS, build_model
from pipeline.protocols.steering.samples import data_sha256, read_samples, write_pickle_layout

STATS = ["--permutations", "200", "--bootstrap", "100", "--effect-bootstrap", "100"]


@pytest.fixture(scope="module")
def samples():
    return make_driving_sequences(8, 30, seed=3)


def test_every_layout_reads_the_same_samples(samples, tmp_path):
    write_pickle_layout(samples, tmp_path / "pkl", "paper")
    np.savez(tmp_path / "full.npz", features=samples.features, targets=samples.targets,
             sequence_ids=samples.sequence_ids)
    table = pd.DataFrame(samples.features, columns=[f"f{i}" for i in range(5)])
    table.insert(0, "sequence_id", samples.sequence_ids)
    table["target"] = samples.targets
    table.to_csv(tmp_path / "table.csv", index=False)
    table.to_parquet(tmp_path / "table.parquet")
    loaded = {path: read_samples(tmp_path / path) for path in ("pkl", "full.npz", "table.csv", "table.parquet")}
    assert loaded["pkl"].name == "paper" and loaded["full.npz"].name == "full"
    expected = data_sha256(samples)
    for result in loaded.values():
        np.testing.assert_array_equal(result.samples.sequence_ids, samples.sequence_ids)
        np.testing.assert_allclose(result.samples.features, samples.features, rtol=1e-6)
    for path in ("pkl", "full.npz", "table.parquet"):  # CSV holds decimal text: equal values, not bytes
        assert data_sha256(loaded[path].samples) == expected


def _write_parts(folder, features, targets, ids, name="paper"):
    folder.mkdir(exist_ok=True)
    for part, value in (("features", features), ("targets", targets), ("sequence_ids", ids)):
        (folder / f"{part}_{name}.pkl").write_bytes(pickle.dumps(value, protocol=4))


def test_integer_ids_lists_and_ready_made_windows_are_accepted(tmp_path):
    windows = np.random.default_rng(0).normal(size=(6, 50, 5)).astype(np.float32)
    _write_parts(tmp_path, windows, [[0.1]] * 6, [7, 7, 7, 9, 9, 9])
    loaded = read_samples(tmp_path)
    assert loaded.samples.sequence_ids.tolist() == ["7", "7", "7", "9", "9", "9"]
    x, y = SequenceWindowDataset(loaded.samples).windows(np.array([4, 1]))
    assert torch.equal(x, torch.from_numpy(windows[[4, 1]])) and y.shape == (2,)
    assert build_model("M2", 0)(x).shape == (2,)   # M2's 250 inputs: 50 steps x 5 features


@pytest.mark.parametrize("change,message", [
    (lambda f, t, i: (f, t[:-1], i), "different numbers of samples"),
    (lambda f, t, i: (np.where(np.arange(len(f))[:, None] == 5, np.nan, f), t, i), "NaN or infinite"),
    (lambda f, t, i: (f, t, np.r_[i[:3], ["other"] * 3, i[6:9], ["other"] * (len(i) - 9)]), "contiguous"),
    (lambda f, t, i: (f[:, :4], t, i), "wrong feature shape"),
])
def test_bad_data_fails_in_one_line_naming_the_file(samples, tmp_path, capsys, change, message):
    _write_parts(tmp_path / "data", *change(samples.features, samples.targets, samples.sequence_ids))
    code = run_main(main, ["split", "--samples", str(tmp_path / "data"), "--out", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and str(tmp_path / "data") in err and len(err.strip().splitlines()) == 1


class _RunsCode:
    def __reduce__(self):
        return os.system, ("echo pwned > /dev/null",)


@pytest.mark.parametrize("payload,message", [
    (_RunsCode(), "refusing to load global posix.system"),
    (pd.DataFrame({"a": [1.0]}), "refusing"),
])
def test_pickles_are_unpickled_with_restriction(samples, tmp_path, payload, message):
    _write_parts(tmp_path, samples.features, samples.targets, samples.sequence_ids)
    (tmp_path / "targets_paper.pkl").write_bytes(pickle.dumps(payload))
    with pytest.raises(DataError, match=message):
        read_samples(tmp_path)


def test_a_folder_with_two_data_sets_needs_a_name(samples, tmp_path):
    write_pickle_layout(samples, tmp_path, "paper")
    write_pickle_layout(samples, tmp_path, "full")
    with pytest.raises(DataError, match="full, paper"):
        read_samples(tmp_path)
    assert read_samples(tmp_path, "full").name == "full"
    (tmp_path / "targets_full.pkl").unlink()
    with pytest.raises(DataError, match="missing"):
        read_samples(tmp_path, "full")
    with pytest.raises(DataError, match="no such file or folder"):
        read_samples(tmp_path / "absent")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """make-synthetic -> split -> train (2 models x 2 seeds, 1 epoch; CUDA requested, CPU used)."""
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("steering_train")
    data, results = root / "data", root / "results"
    assert run_main(main, ["make-synthetic", "--out", str(data), "--name", "paper", "--sequences", "24",
                           "--length", "60"]) == 0
    assert run_main(main, ["split", "--samples", str(data), "--out", str(results / "paper" / "splits")]) == 0
    train = ["train", "--data", str(data), "--split", str(results / "paper" / "splits" / "split_0.json"),
             "--models", "M1", "M2", "--seeds", "42", "94", "--epochs", "1", "--out", str(results),
             "--latency-calls", "5", "--threads", "1", "--no-progress"]
    code = run_main(main, [*train, "--device", "cuda"])
    assert code == 0
    return root, train


def test_train_saves_checkpoint_config_and_predictions_per_run(trained, capsys):
    root, _ = trained
    run = root / "results" / "paper" / "M2" / "seed_94"
    config = json.loads((run / "config.json").read_text())
    assert config["device"] == "cpu" and config["epochs"] == 1 and config["optimiser"] == "Adam"
    assert config["batch_size"] == 256 and config["learning_rate"] == 1e-3 and config["seed"] == 94
    split = json.loads((root / "results" / "paper" / "splits" / "split_0.json").read_text())
    assert config["split_sha256"] == split["sha256"]
    assert config["data_sha256"] == data_sha256(read_samples(root / "data").samples)
    model = build_model("M2", 0)
    model.load_state_dict(torch.load(run / "checkpoint.pt", weights_only=True))
    predictions = pd.read_csv(run / "M2_predictions.csv", dtype={"sequence_id": str})
    assert set(predictions["sequence_id"]) == set(split["test_seq_ids"])


def test_cuda_request_falls_back_to_cpu_with_a_warning(trained, tmp_path, capsys, monkeypatch):
    """On a machine with a GPU too: torch is told there is no CUDA, as on a CPU-only machine."""
    root, _ = trained
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert run_main(main, ["train", "--data", str(root / "data"), "--split",
                           str(root / "results" / "paper" / "splits" / "split_0.json"), "--models", "M1",
                           "--seeds", "42", "--epochs", "1", "--out", str(tmp_path), "--latency-calls", "5",
                           "--no-progress", "--device", "cuda:0"]) == 0
    err = capsys.readouterr().err
    assert "warning: device 'cuda:0' requested but CUDA is not available; falling back to CPU" in err
    assert "device cpu" in err
    assert json.loads((tmp_path / "paper" / "M1" / "seed_42" / "config.json").read_text())["device"] == "cpu"


def test_train_resumes_per_run(trained, capsys):
    root, train = trained
    capsys.readouterr()
    assert run_main(main, train) == 0
    assert capsys.readouterr().err.count("finished run kept") == 4
    run = root / "results" / "paper" / "M1" / "seed_42"
    before = (run / "M1_predictions.csv").read_bytes()
    (run / "config.json").unlink()                       # killed before its last file
    (run / "M1_predictions.csv").write_text("half-written")
    assert run_main(main, train) == 0
    err = capsys.readouterr().err
    assert "training M1 seed 42" in err and err.count("finished run kept") == 3
    assert (run / "M1_predictions.csv").read_bytes() == before
    assert run_main(main, [*train, "--epochs", "2"]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("error: ") and "config.json" in last and "epochs" in last and "expected 2; found 1" in last


def test_analyze_with_defaults_on_train_output(trained, capsys):
    root, _ = trained
    assert run_main(main, ["analyze", "--results", str(root / "results"), *STATS]) == 0
    results = json.loads((root / "results" / "bootstrap" / "sequence_level_results.json").read_text())
    assert results["variant"] == "paper" and results["seeds"] == [42, 94]
    assert list(results["comparisons"]) == ["M1_vs_M2"]
    summary = results["model_summary"]["M2"]
    assert summary["n_params"] == MODEL_SPECS["M2"].expected_params and summary["p95_latency_ms"] > 0
    block = results["models"]["M2"]["94"]
    assert block["parameter_efficiency"] == pytest.approx(block["pooled"]["accuracy"] / (40_449 / 1e5))
    entry = results["comparisons"]["M1_vs_M2"]
    assert entry["seed_averaged"]["pooled"]["rmse"]["estimate"] == pytest.approx(
        entry["delta_over_seeds"]["pooled"]["rmse"]["mean"])
    markdown = (root / "results" / "bootstrap" / "sequence_level_table.md").read_text()
    assert "p95 latency (ms)" in markdown and "| M2 | 40,449 |" in markdown
    (root / "results" / "full" / "M1" / "seed_42").mkdir(parents=True)
    assert run_main(main, ["analyze", "--results", str(root / "results"), *STATS]) == 2
    assert "full, paper" in capsys.readouterr().err


def test_ctrl_c_stops_training_quietly_and_leaves_the_run_unfinished(trained, tmp_path):
    root, _ = trained
    command = [sys.executable, "-m", "pipeline.protocols.steering", "train", "--data", str(root / "data"),
               "--split", str(root / "results" / "paper" / "splits" / "split_0.json"), "--models", "M3",
               "--seeds", "7", "--epochs", "500", "--out", str(tmp_path), "--threads", "1", "--no-progress"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    for line in process.stderr:
        if line.startswith("training M3 seed 7"):
            break
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    rest = process.stderr.read()
    code = process.wait(timeout=300)   # generous: the shared test machine can be heavily loaded
    # exit 130, or (seen in about 1 of 3 runs under load, after "interrupted" was printed) the
    # interpreter ending itself by SIGINT: both are the status a shell reports as 130 for Ctrl-C
    assert code in (130, -signal.SIGINT), (code, rest[-2000:])
    assert "interrupted" in rest and "Traceback" not in rest, rest[-2000:]
    run = tmp_path / "paper" / "M3" / "seed_7"
    assert not (run / "config.json").exists()   # the interrupted run counts as not done


def test_evaluate_predicts_again_from_the_checkpoints(trained, tmp_path, capsys):
    root, _ = trained
    results = tmp_path / "results"
    shutil.copytree(root / "results" / "paper", results / "paper")
    run = results / "paper" / "M2" / "seed_42"
    before = (run / "M2_predictions.csv").read_bytes()
    (run / "M2_predictions.csv").unlink()
    args = ["evaluate", "--data", str(root / "data"), "--split",
            str(results / "paper" / "splits" / "split_0.json"), "--results", str(results), "--latency-calls", "5"]
    assert run_main(main, args) == 0
    assert (run / "M2_predictions.csv").read_bytes() == before
    assert capsys.readouterr().out.count("_predictions.csv") == 4
    (run / "checkpoint.pt").write_bytes(b"not a checkpoint")
    assert run_main(main, args) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("error: ") and "checkpoint.pt" in last and "state_dict of M2" in last
