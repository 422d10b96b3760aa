"""End-to-end CLI runs on small synthetic result files."""

from __future__ import annotations

import json
import os
import pickle

import librosa
import numpy as np
import pytest

from pipeline.cli import run_main
from pipeline.protocols.motion.cli import main

N, T = 80, 40  # N above the 66 kinetic dimensions: non-singular covariances


def _features(rng, n=N):
    """Plausible 263-d features: a walking root at 0.9 m and a jittering body."""
    x = rng.normal(0, 0.01, (n, T, 263))
    x[..., 1] = 0.02
    x[..., 3] = 0.9
    offsets = np.stack([np.linspace(-0.5, 0.5, 21), np.linspace(0.1, 1.7, 21),
                        np.linspace(0.2, -0.2, 21)], axis=1)  # ric y is absolute height
    x[..., 4:67] += offsets.reshape(-1)
    return x


def _write_results(path, with_audio=True):
    rng = np.random.default_rng(5)
    audio = [{"waveform": librosa.clicks(times=np.arange(0.1, T / 60, 0.25), sr=30720,
                                          length=int(T / 60 * 30720)), "sample_rate": 30720}
             if with_audio and i % 8 == 0 else None for i in range(N)]
    content = {"motion": _features(rng).astype(np.float32), "gt_motion": _features(rng),
               "lengths": np.r_[np.full(N - 1, T), T + 10], "audio_waveforms": audio}
    np.save(path, np.array(content, dtype=object), allow_pickle=True)
    return path


@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    return _write_results(tmp_path_factory.mktemp("motion") / "gen.npy")


def test_cli_writes_every_metric_and_the_console_block(results_file, tmp_path, capsys):
    out = tmp_path / "metrics.json"
    assert run_main(main, ["--external_results_file", str(results_file), "--out", str(out),
                           "--max-frames", "30"]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith("=== AIST++ external eval ===\n")
    assert "BeatAlign:" in printed.out and "Floating(mm):" in printed.out
    assert "clamped" in printed.err
    metrics = json.loads(out.read_text())
    for key in ("num_samples", "FID", "FID_k", "FID_g", "Diversity", "Div_k", "Div_g", "BeatAlign",
                "SkatingRatio", "FootSliding_mm", "FootSliding_total_mm", "Penetration_mm",
                "Floating_mm", "PFC", "excluded_dims", "settings"):
        assert key in metrics
    assert metrics["num_samples"] == N
    assert metrics["FID"] is None and "checkpoint" in metrics["null_reasons"]["FID"]
    assert metrics["FID_k"] > 0 and metrics["Div_k"] > 0 and 0 <= metrics["SkatingRatio"] <= 1
    beat = metrics["BeatAlign"]
    assert beat["n_with_audio"] == N // 8 and beat["sigma"] == 0.08 and beat["variant"] == "closd"
    assert 0 <= beat["precision"] <= 1 and beat["mean"] == beat["precision"]
    assert metrics["settings"]["max_frames"] == 30 and metrics["settings"]["seed"] == 10
    assert metrics["settings"]["feature_convention"] == "corrected"
    assert metrics["settings"]["feature_constants"]["humerus"] == pytest.approx(0.249323, abs=1e-6)
    # the synthetic root height is a constant 0.9 m: its vertical kinetic energy (dimension 1) is
    # 0 in every ground-truth motion, as are many relations of the stiff synthetic bodies
    assert metrics["excluded_dims"]["k"] == [1] and len(metrics["excluded_dims"]["g"]) > 0
    assert "FID_k: " in printed.out and "(1 constant dims excluded)" in printed.out
    assert 0 < metrics["FID_g"] < 1e6
    # the original's label carries the original's quantity (mean per counted step); the total
    # per motion has its own name
    lines = printed.out.splitlines()
    assert f"FootSliding(mm): {metrics['FootSliding_mm']:.4f}" in lines
    assert f"FootSlidingTotal(mm/motion): {metrics['FootSliding_total_mm']:.4f}" in lines
    assert "Device: cpu (no --evaluator-ckpt: every metric runs in NumPy)" in lines
    assert metrics["Floating_mm"] > 50  # the lowest joint is ~0.1 m above the floor


def test_cli_output_is_byte_identical_across_runs(results_file, tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert run_main(main, ["--external_results_file", str(results_file), "--out", str(out),
                               "--kinematic", "bailando", "--skating-fps", "60"]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert json.loads(first.read_text())["settings"]["skating_fps"] == 60.0


def test_eval_gt_against_itself_has_zero_fid(results_file):
    assert run_main(main, ["--external_results_file", str(results_file), "--eval_gt"]) == 0
    metrics = json.loads(results_file.with_name("gen_gt_metrics.json").read_text())
    assert metrics["settings"]["evaluated"] == "ground truth"
    assert abs(metrics["FID_k"]) < 1e-6 and abs(metrics["FID_g"]) < 1e-6


def test_malicious_file_exits_2_without_running_code(tmp_path, capsys):
    marker = tmp_path / "marker"

    class Payload:
        def __reduce__(self):
            return os.system, (f"touch {marker}",)

    bad = tmp_path / "bad.pkl"
    bad.write_bytes(pickle.dumps({"motion": Payload()}))
    assert run_main(main, ["--external_results_file", str(bad)]) == 2
    assert "refusing to load global" in capsys.readouterr().err
    assert not marker.exists()


def test_bailando_convention_is_recorded_and_changes_only_the_handcrafted_fids(results_file,
                                                                              tmp_path):
    outs = {name: tmp_path / f"{name}.json" for name in ("corrected", "bailando")}
    for name, out in outs.items():
        assert run_main(main, ["--external_results_file", str(results_file), "--out", str(out),
                               "--feature-convention", name]) == 0
    corrected, bailando = (json.loads(out.read_text()) for out in outs.values())
    assert bailando["settings"]["feature_convention"] == "bailando"
    assert bailando["settings"]["feature_constants"]["humerus"] == pytest.approx(0.256838, abs=1e-6)
    assert "Bailando" in bailando["settings"]["feature_constants"]["acceleration"]
    assert bailando["FID_k"] != corrected["FID_k"] and bailando["Div_k"] != corrected["Div_k"]
    for key in ("SkatingRatio", "FootSliding_mm", "PFC", "BeatAlign"):
        assert bailando[key] == corrected[key]


@pytest.mark.parametrize("args, message", [
    (["--fps", "0"], "must be a positive finite number"),
    (["--fps", "inf"], "must be a positive finite number"),
    (["--beat_sigma", "nan"], "must be a positive finite number"),
    (["--seed", "-1"], "field '--seed': must be >= 0"),
    (["--max-bytes", "0"], "positive integer"),
    (["--evaluator-ckpt", "model.tar"], "needs --evaluator-mean"),
])
def test_bad_arguments_exit_2_with_one_line(results_file, capsys, args, message):
    assert run_main(main, ["--external_results_file", str(results_file), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_output_that_cannot_be_written_exits_2_with_one_line(results_file, tmp_path, capsys):
    from pipeline.protocols.motion.convert import main as convert

    folder = tmp_path / "folder.npz"
    folder.mkdir()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    source = ["--external_results_file", str(results_file)]
    for command, args in ((main, [*source, "--out", str(folder)]),
                          (main, [*source, "--out", str(blocker / "m.json")]),
                          (convert, [str(results_file), str(folder)])):
        assert run_main(command, args) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
        assert "folder" in err or "cannot write output" in err


def test_an_output_that_is_an_input_is_refused_before_any_work(results_file, tmp_path, capsys):
    # written, the metrics JSON replaced the user's results file
    source = tmp_path / "results.npz"
    source.write_bytes(results_file.read_bytes())
    assert run_main(main, ["--external_results_file", str(source), "--out", str(source)]) == 2
    err = capsys.readouterr().err
    assert "field '--out': the output would replace the input given with --external_results_file" in err
    assert source.read_bytes() == results_file.read_bytes()


def test_an_fid_that_does_not_exist_numerically_is_null_with_its_reason(tmp_path, capsys):
    rng = np.random.default_rng(0)
    path = tmp_path / "ill.npz"  # integer features scaled far from the ground truth: covariances too far apart
    np.savez(path, motion=(rng.normal(size=(20, 80, 263)) * 100).astype(np.int16),
             gt_motion=rng.normal(size=(20, 80, 263)))
    assert run_main(main, ["--external_results_file", str(path), "--out", str(tmp_path / "m.json")]) == 0
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert metrics["FID_k"] is None and "imaginary part" in metrics["null_reasons"]["FID_k"]


def test_converter_writes_an_npz_that_evaluates_identically(results_file, tmp_path):
    from pipeline.protocols.motion.convert import main as convert

    target = tmp_path / "gen.npz"
    assert run_main(convert, [str(results_file), str(target)]) == 0
    outs = [tmp_path / "from_npy.json", tmp_path / "from_npz.json"]
    for source, out in zip((results_file, target), outs):
        assert run_main(main, ["--external_results_file", str(source), "--out", str(out)]) == 0
    first, second = (json.loads(p.read_text()) for p in outs)
    for metrics in (first, second):
        metrics["settings"].pop("input_file")
        metrics.pop("warnings")  # the .npz stores lengths already clamped
    assert first == second
    assert run_main(convert, [str(results_file), str(tmp_path / "x.npy")]) == 2


def test_eval_gt_on_a_pkl_without_ground_truth_warns_and_falls_back(tmp_path, capsys):
    rng = np.random.default_rng(9)
    path = tmp_path / "closd.pkl"
    path.write_bytes(pickle.dumps({"motion": _features(rng, n=6), "length": [T] * 6}))
    assert run_main(main, ["--external_results_file", str(path), "--eval_gt"]) == 0
    assert "no gt_motion" in capsys.readouterr().err
    metrics = json.loads((tmp_path / "closd_metrics.json").read_text())
    assert metrics["settings"]["evaluated"] == "generated"
    assert metrics["FID_k"] is None and "reference" in metrics["null_reasons"]["FID_k"]
    assert metrics["SkatingRatio"] is not None


def test_21_joint_input_gets_kinetic_metrics_and_reasons_for_the_rest():
    from pipeline.protocols.motion import EvalSettings, MotionEvaluator, MotionSet

    rng = np.random.default_rng(4)
    joints = np.cumsum(rng.normal(0, 0.01, (2, 30, T, 21, 3)), axis=2)
    lengths = np.full(30, T)
    metrics = MotionEvaluator(EvalSettings()).evaluate(MotionSet(joints[0], lengths),
                                                       MotionSet(joints[1], lengths))
    assert metrics["FID_k"] > 0 and metrics["Div_k"] > 0
    for key in ("FID_g", "Div_g", "SkatingRatio", "Penetration_mm", "PFC"):
        assert metrics[key] is None and "SMPL skeleton" in metrics["null_reasons"][key]


def test_24_joint_smpl_input_gets_every_joint_metric(tmp_path):
    rng = np.random.default_rng(8)
    motions = [np.cumsum(rng.normal(0, 0.01, (N, 24, 3, T)), axis=3) for _ in range(2)]
    for motion in motions:
        motion[:, :, 1] += np.linspace(0.0, 1.7, 24)[None, :, None]
    path = tmp_path / "smpl.npz"
    np.savez(path, motion=motions[0], gt_motion=motions[1], lengths=np.full(N, T))
    out = tmp_path / "smpl.json"
    assert run_main(main, ["--external_results_file", str(path), "--out", str(out)]) == 0
    metrics = json.loads(out.read_text())
    assert metrics["settings"]["input_kind"] == "joints"
    for key in ("FID_k", "Div_k", "FID_g", "Div_g", "SkatingRatio", "FootSliding_mm", "PFC"):
        assert metrics[key] is not None, key
    assert set(metrics["null_reasons"]) == {"FID", "Diversity", "BeatAlign"}
