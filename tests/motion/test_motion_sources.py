"""Ground truth and music from separate files (CLoSD ``.pkl`` results hold neither), the original
script's frame options, and console numbers that never read ``-0.0000``."""

from __future__ import annotations

import json
import pickle

import librosa
import numpy as np
import pytest
from scipy.io import wavfile

from pipeline.cli import run_main
from pipeline.protocols.motion.cli import _fmt, main
from pipeline.protocols.motion.sources import FrameWindow

N, T = 80, 40  # N above the 66 kinetic dimensions: non-singular covariances
SR = 8000  # low rate: beat tracking of the N clips stays cheap


def _joints(seed, n=N, frames=T):
    """(n, 22, 3, frames) joints on the original's on-disk layout: standing bodies that sway."""
    rng = np.random.default_rng(seed)
    rest = np.stack([np.linspace(-0.4, 0.4, 22), np.linspace(0.0, 1.6, 22), np.zeros(22)], axis=1)
    sway = np.cumsum(rng.normal(0, 0.01, (n, frames, 22, 3)), axis=1)
    return (rest + sway).transpose(0, 2, 3, 1)


def _run(args, capsys):
    code = run_main(main, [str(a) for a in args])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    return printed.out


@pytest.fixture(scope="module")
def closd(tmp_path_factory):
    """A CLoSD run.py result (.pkl: motion and length only), its ground truth and its music."""
    folder = tmp_path_factory.mktemp("closd")
    with open(folder / "run.pkl", "wb") as handle:
        pickle.dump({"motion": _joints(1), "length": np.full(N, T)}, handle)
    np.savez(folder / "gt.npz", motion=_joints(2, frames=100), lengths=np.full(N, 100))
    audio = folder / "audio"
    audio.mkdir()
    clicks = librosa.clicks(times=np.arange(0.05, T / 60, 0.2), sr=SR, length=int(T / 60 * SR))
    for i in range(N):
        wavfile.write(audio / f"clip_{i:03d}.wav", SR, (clicks * 20000).astype(np.int16))
    return folder


def test_closd_results_get_every_metric_from_separate_ground_truth_and_audio(closd, tmp_path, capsys):
    out = tmp_path / "m.json"
    _run(["--external_results_file", closd / "run.pkl", "--out", out], capsys)
    alone = json.loads(out.read_text())
    assert alone["FID_k"] is None and alone["BeatAlign"]["mean"] is None
    _run(["--external_results_file", closd / "run.pkl", "--gt_file", closd / "gt.npz",
          "--audio_dir", closd / "audio", "--out", out], capsys)
    metrics = json.loads(out.read_text())
    for key in ("FID_k", "FID_g", "Div_k", "Div_g"):
        assert metrics[key] is not None and metrics[key] > 0, key
    beat = metrics["BeatAlign"]
    assert beat["n_with_audio"] == N and 0 < beat["mean"] <= 1
    assert metrics["settings"]["gt_file"].endswith("gt.npz")
    assert metrics["settings"]["audio_dir"].endswith("audio")
    assert "FID_k" not in metrics["null_reasons"] and "BeatAlign" not in metrics["null_reasons"]


def test_fixed_len_cuts_the_ground_truth_windows(closd, tmp_path, capsys):
    # the 100-frame ground truth cut to max(T=40, fixed_len=60) frames equals a 60-frame file
    np.savez(tmp_path / "gt60.npz", motion=_joints(2, frames=100)[..., :60], lengths=np.full(N, 60))
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    _run(["--external_results_file", closd / "run.pkl", "--gt_file", closd / "gt.npz", "--out", outs[0]],
         capsys)
    _run(["--external_results_file", closd / "run.pkl", "--gt_file", tmp_path / "gt60.npz",
          "--out", outs[1]], capsys)
    first, second = (json.loads(out.read_text()) for out in outs)
    assert first["FID_k"] == pytest.approx(second["FID_k"], rel=1e-12)
    assert first["FID_g"] == pytest.approx(second["FID_g"], rel=1e-12)
    assert first["settings"]["fixed_len"] == 60
    # --fixed_len 1: windows of max(T, 1) = 40 frames, another reference
    _run(["--external_results_file", closd / "run.pkl", "--gt_file", closd / "gt.npz",
          "--fixed_len", "1", "--out", outs[1]], capsys)
    assert json.loads(outs[1].read_text())["FID_k"] != pytest.approx(first["FID_k"], rel=1e-6)


def test_context_and_prediction_lengths_select_the_evaluated_frames(tmp_path, capsys):
    full, gt = _joints(3), _joints(4)
    np.savez(tmp_path / "full.npz", motion=full, gt_motion=gt, lengths=np.full(N, T))
    np.savez(tmp_path / "cut.npz", motion=full[..., 10:30], gt_motion=gt[..., 10:30],
             lengths=np.full(N, 20))
    outs = {name: tmp_path / f"{name}.json" for name in ("windowed", "cut")}
    _run(["--external_results_file", tmp_path / "full.npz", "--context_len", 10, "--pred_len", 20,
          "--out", outs["windowed"]], capsys)
    _run(["--external_results_file", tmp_path / "cut.npz", "--out", outs["cut"]], capsys)
    windowed, cut = (json.loads(out.read_text()) for out in outs.values())
    for key in ("FID_k", "FID_g", "Div_k", "Div_g", "SkatingRatio", "FootSliding_mm",
                "FootSliding_total_mm", "Penetration_mm", "Floating_mm", "PFC"):
        assert windowed[key] == pytest.approx(cut[key], rel=1e-12), key
    assert (windowed["settings"]["context_len"], windowed["settings"]["pred_len"]) == (10, 20)


def test_window_cuts_audio_at_the_first_evaluated_frame():
    from pipeline.protocols.motion.loading import Audio

    clip = Audio(np.arange(1000.0), 600)
    cut = FrameWindow(context_len=6).cut_audio([clip, None], fps=60.0)
    assert cut[1] is None and cut[0].waveform[0] == 60.0 and cut[0].sample_rate == 600


@pytest.mark.parametrize("extra, message", [
    (["--audio_dir", "{folder}/gt.npz"], "field '--audio_dir': not a folder"),
    (["--gt_file", "{folder}/gt.npz", "--context_len", "39"], "keep fewer than 2 frames"),
    (["--pred_len", "-1"], "field '--pred_len': must be >= 0"),
])
def test_bad_sources_and_windows_exit_2_with_one_line(closd, capsys, extra, message):
    args = ["--external_results_file", str(closd / "run.pkl"),
            *(a.format(folder=closd) for a in extra)]
    assert run_main(main, args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_ground_truth_and_audio_must_match_the_results(closd, tmp_path, capsys):
    np.savez(tmp_path / "few.npz", motion=_joints(2, n=5))
    np.savez(tmp_path / "own.npz", motion=_joints(1), gt_motion=_joints(2))
    (tmp_path / "two").mkdir()
    for i in range(2):
        wavfile.write(tmp_path / "two" / f"{i}.wav", SR, np.zeros(100, dtype=np.int16))
    cases = [(["--external_results_file", closd / "run.pkl", "--gt_file", tmp_path / "few.npz"],
              "fewer ground-truth motions than results"),
             (["--external_results_file", closd / "run.pkl", "--audio_dir", tmp_path / "two"],
              "one WAV file per motion"),
             (["--external_results_file", tmp_path / "own.npz", "--gt_file", closd / "gt.npz"],
              "the results file has its own gt_motion")]
    for args, message in cases:
        assert run_main(main, [str(a) for a in args]) == 2
        assert message in capsys.readouterr().err


def test_a_value_rounding_to_zero_never_prints_as_minus_zero(tmp_path, capsys):
    assert [_fmt(v) for v in (-1e-9, -0.0, 0.0, -0.00004, -0.00005, None)] == \
        ["0.0000", "0.0000", "0.0000", "0.0000", "-0.0001", "null"]
    np.savez(tmp_path / "same.npz", motion=_joints(5), gt_motion=_joints(5))
    out = _run(["--external_results_file", tmp_path / "same.npz", "--eval_gt",
                "--out", tmp_path / "gt.json"], capsys)
    assert "-0.0000" not in out and "FID_k: 0.0000" in out
