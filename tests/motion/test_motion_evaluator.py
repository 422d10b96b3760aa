"""Learned-embedding FID with a T2M evaluator checkpoint of the published layout (random weights)."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest
import torch

from pipeline.cli import run_main
from pipeline.errors import DataError
from pipeline.protocols.motion.cli import main
from pipeline.protocols.motion.evaluator import T2MEmbedder, _build_encoders

N, T = 12, 32


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Tiny batches: one thread avoids oversubscribing the shared 2-core machine."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


@pytest.fixture(scope="module")
def evaluator_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("t2m")
    torch.manual_seed(0)
    movement, motion = _build_encoders()
    torch.save({"movement_encoder": movement.state_dict(), "motion_encoder": motion.state_dict(),
                "epoch": 3}, folder / "finest.tar")
    np.save(folder / "mean.npy", np.zeros(263))
    np.save(folder / "std.npy", np.ones(263))
    rng = np.random.default_rng(0)
    content = {"motion": rng.normal(size=(N, T, 263)), "gt_motion": rng.normal(0.3, 1, (N, T, 263)),
               "lengths": rng.integers(8, T + 1, N)}
    np.save(folder / "gen.npy", np.array(content, dtype=object), allow_pickle=True)
    return folder


def _args(folder, *extra):
    return ["--external_results_file", str(folder / "gen.npy"), "--evaluator-ckpt",
            str(folder / "finest.tar"), "--evaluator-mean", str(folder / "mean.npy"),
            "--evaluator-std", str(folder / "std.npy"), *extra]


def test_embeddings_have_512_dims_and_ignore_steps_past_the_length(evaluator_files):
    embedder = T2MEmbedder(evaluator_files / "finest.tar", np.zeros(263), np.ones(263))
    rng = np.random.default_rng(1)
    features = rng.normal(size=(3, T, 263))
    lengths = np.array([T, 16, 16])
    first = embedder.transform(features, lengths)
    assert first.shape == (3, 512) and np.isfinite(first).all()
    changed = features.copy()
    changed[2, 24:] = 5.0  # beyond frame 20 the 4-frame steps are outside length 16 + receptive field
    second = embedder.transform(changed, lengths)
    np.testing.assert_allclose(second, first, atol=1e-5)
    assert not np.allclose(embedder.transform(changed, np.array([T, 16, T]))[2], first[2])


def test_cli_reports_learned_fid_and_diversity(evaluator_files, tmp_path, capsys, monkeypatch):
    # the original script's --device 0 means cuda:0; without CUDA the run says it used the CPU
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    out = tmp_path / "m.json"
    assert run_main(main, _args(evaluator_files, "--out", str(out), "--diversity_times", "5",
                                "--device", "0")) == 0
    metrics = json.loads(out.read_text())
    assert metrics["FID"] > 0 and metrics["Diversity"] > 0
    assert "FID" not in metrics["null_reasons"]
    assert metrics["settings"]["evaluator_ckpt"].endswith("finest.tar")
    printed = capsys.readouterr()
    assert "Device: cpu (--device 0 requested, CUDA is not available)" in printed.out.splitlines()
    assert "device 'cuda:0' requested but CUDA is not available; falling back to CPU" in printed.err
    assert metrics["settings"]["device"] == "cpu" and metrics["settings"]["device_requested"] == "0"
    assert run_main(main, _args(evaluator_files, "--out", str(out), "--device", "gpu0")) == 2
    assert "cpu, cuda, cuda:N or a GPU index N" in capsys.readouterr().err


def test_bad_checkpoints_are_refused_without_running_code(evaluator_files, tmp_path):
    marker = tmp_path / "marker"

    class Payload:
        def __reduce__(self):
            return os.system, (f"touch {marker}",)

    evil = tmp_path / "evil.tar"
    torch.save({"movement_encoder": Payload()}, evil, pickle_module=pickle)
    with pytest.raises(DataError, match="weights-only"):
        T2MEmbedder(evil, np.zeros(263), np.ones(263))
    assert not marker.exists()
    partial = tmp_path / "partial.tar"
    torch.save({"movement_encoder": {}}, partial)
    with pytest.raises(DataError, match="motion_encoder|layout"):
        T2MEmbedder(partial, np.zeros(263), np.ones(263))
    with pytest.raises(DataError, match="not found"):
        T2MEmbedder(tmp_path / "none.tar", np.zeros(263), np.ones(263))

