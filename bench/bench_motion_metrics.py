"""Benchmark: AIST++ motion metrics on 1,000 motions × 196 frames on the CPU.

Times every stage of one evaluation (loading, joint recovery, kinetic and geometric features, FID,
diversity, beat alignment with librosa, foot metrics) and compares, in the same run:

* the restricted, budgeted unpickler with the unrestricted C unpickler behind
  ``np.load(allow_pickle=True)`` (which runs embedded code) on the same file;
* one ``librosa.beat.beat_track(y=...)`` call per clip with the batched onset envelopes;
* the vectorised feature extractors with the tests' per-frame re-implementations of Bailando's
  feature code (``tests/motion/bailando_reference.py``), on a subset, per motion.

The evaluation and the comparisons run ``--repeats`` times (default 3); the figures (median,
range, runs) go to bench/results.json, the stage times (medians) are printed.

Run: ``python3 bench/bench_motion_metrics.py [--motions 1000] [--frames 196] [--loop-motions 20]
[--repeats 3]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import librosa
import numpy as np

from pipeline.cli import run_main
from pipeline.protocols.motion import (EvalSettings, frechet_distance,
                                       geometric_features, kinetic_features, load_motion_results,
                                       normalize_to_reference, pairwise_diversity, prepare_joints,
                                       recover_from_ric)
from pipeline.protocols.motion import ground
from pipeline.protocols.motion.beats import music_beat_times_batch
from pipeline.protocols.motion.evaluate import score_motion_beats
from pipeline.protocols.motion.npyfile import read_npy_header
from pipeline.protocols.motion.unpickler import restricted_load
from record import BenchRun

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "motion"))
import bailando_reference  # noqa: E402  (the tests' per-frame reference loops)

SAMPLE_RATE = 30720


def synthetic_results(n_motions: int, n_frames: int, seed: int = 0) -> dict:
    """Generated + ground-truth 263-d features and a music clip per motion (click track + noise)."""
    rng = np.random.default_rng(seed)

    def features():
        x = rng.normal(0, 0.02, (n_motions, n_frames, 263))
        x[..., 1] += 0.02
        x[..., 3] += 0.9
        offsets = np.stack([np.linspace(-0.5, 0.5, 21), np.linspace(0.0, 1.7, 21),
                            np.linspace(0.2, -0.2, 21)], axis=1)
        x[..., 4:67] += offsets.reshape(-1) + rng.normal(0, 0.05, (n_motions, 1, 63))
        return x.astype(np.float32)

    samples = int(n_frames / 60 * SAMPLE_RATE)
    clicks = np.zeros(samples)
    clicks[::SAMPLE_RATE // 2] = 1.0
    audio = [{"waveform": np.convolve(clicks, np.hanning(64), "same") + rng.normal(0, 0.01, samples),
              "sample_rate": SAMPLE_RATE} for _ in range(n_motions)]
    lengths = rng.integers(n_frames // 2, n_frames + 1, n_motions)
    return {"motion": features(), "gt_motion": features(), "lengths": lengths, "audio_waveforms": audio}


def cpu_timed(function, *args) -> tuple[tuple[float, float], object]:
    """((wall, process CPU) seconds, result) of ``function(*args)``."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = function(*args)
    return (time.perf_counter() - wall, time.process_time() - cpu), value


def unrestricted_unpickle(path: Path):
    """The peer: the C unpickler behind ``np.load(allow_pickle=True)`` (runs embedded code)."""
    return np.load(path, allow_pickle=True).item()


def restricted_unpickle(path: Path):
    """The same file through the restricted, budgeted unpickler (no validation)."""
    with path.open("rb") as handle:
        header = read_npy_header(handle, path)
        return restricted_load(handle, path, stream_bytes=path.stat().st_size - header.offset)


class Stages:
    """(wall, CPU) seconds of each named stage of one evaluation."""

    def __init__(self):
        self.times: dict[str, tuple[float, float]] = {}

    def __call__(self, label: str, function, *args):
        self.times[label], value = cpu_timed(function, *args)
        return value


def evaluate(path: Path, settings: EvalSettings) -> tuple[Stages, dict]:
    """Every metric of the results file at ``path``, stage by stage; also what the comparisons reuse."""
    stage = Stages()
    results = stage("load (restricted unpickler + validation)", load_motion_results, path)
    gen, ref = stage("joint recovery (x2 sets)", lambda: (recover_from_ric(results.motion),
                                                          recover_from_ric(results.gt_motion)))
    lengths = results.lengths
    prepared = [prepare_joints(j, lengths) for j in (gen, ref)]
    kin = stage("kinetic features (x2 sets)", lambda: [kinetic_features(j, l) for j, l in prepared])
    geo = stage("geometric features (x2 sets)", lambda: [geometric_features(j, l) for j, l in prepared])
    for name, (f_gen, f_ref) in (("k", kin), ("g", geo)):
        g_norm, r_norm = normalize_to_reference(f_gen, f_ref)
        stage(f"FID_{name}", frechet_distance, g_norm, r_norm)
        stage(f"Div_{name} (all pairs)", pairwise_diversity, g_norm)
    music = stage("music beats (librosa, batched onsets)", music_beat_times_batch, results.audio)
    stage("kinematic beats + BeatAlign scores", lambda: [
        score_motion_beats(j[:n], m, settings) for j, n, m in zip(gen, lengths, music)])
    stage("SkatingRatio", ground.skating_ratio, gen)
    stage("FootSliding", ground.foot_sliding_total_mm, gen, lengths)
    stage("Penetration + Floating", lambda: (ground.penetration_mm(gen, lengths), ground.floating_mm(gen, lengths)))
    stage("PFC", ground.physical_foot_contact, gen, lengths)
    return stage, {"audio": results.audio, "music": music, "prepared": prepared[0]}


def loop_versus_batch(reused: dict, n_loop: int) -> dict[str, tuple[float, float]]:
    """Seconds per clip / motion of the per-item loops and of the vectorised code on the same items."""
    clips = reused["audio"][:n_loop]
    loop_s, per_clip = cpu_timed(lambda: [librosa.beat.beat_track(y=c.waveform.astype(np.float32),
                                                                  sr=c.sample_rate)[1] for c in clips])
    batch_s, batched = cpu_timed(music_beat_times_batch, clips)
    if not all(np.allclose(librosa.frames_to_time(f, sr=SAMPLE_RATE), m) for f, m in zip(per_clip, batched)):
        raise AssertionError("per-clip and batched beats differ")
    out = {"beats": (loop_s[0] / n_loop, batch_s[0] / n_loop)}
    joints, lengths = (part[:n_loop] for part in reused["prepared"])
    for name, vectorised, loop in (("kinetic", kinetic_features, bailando_reference.kinetic_features),
                                   ("geometric", geometric_features, bailando_reference.manual_features)):
        loop_s, expected = cpu_timed(lambda: np.array([loop(j[:n]) for j, n in zip(joints, lengths)]))
        vector_s, got = cpu_timed(vectorised, joints, lengths)
        if not np.allclose(got, expected, rtol=1e-6, atol=1e-6):
            raise AssertionError(f"{name}: loop and vectorised differ")
        out[name] = (loop_s[0] / n_loop, vector_s[0] / n_loop)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--motions", type=int, default=1000)
    parser.add_argument("--frames", type=int, default=196)
    parser.add_argument("--loop-motions", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3, help="runs of the evaluation and of the comparisons")
    args = parser.parse_args(argv)
    content = synthetic_results(args.motions, args.frames)
    workload = f"{args.motions:,} motions × {args.frames} frames"
    with BenchRun(__file__) as run:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "results.npy"
            np.save(path, np.array(content, dtype=object), allow_pickle=True)
            del content
            size = path.stat().st_size
            unrestricted_unpickle(path)  # puts the file in the page cache for both
            peer_cpu = [cpu_timed(unrestricted_unpickle, path)[0][1] for _ in range(args.repeats)]
            ours_cpu = [cpu_timed(restricted_unpickle, path)[0][1] for _ in range(args.repeats)]
            warm_up(Path(folder) / "small.npy", args.frames)
            rounds = []
            for _ in range(args.repeats):
                stages, reused = evaluate(path, EvalSettings())
                rounds.append(stages.times)
        comparisons = [loop_versus_batch(reused, args.loop_motions) for _ in range(args.repeats)]
        print(f"AIST++ motion metrics, {workload}: stage (median wall s / process CPU s over {args.repeats} runs)")
        for label in rounds[0]:
            wall, cpu = (statistics.median(times[label][i] for times in rounds) for i in (0, 1))
            print(f"  {label:<45s} {wall:8.3f} {cpu:8.3f}")
        totals = [[sum(t[i] for t in times.values()) for times in rounds] for i in (0, 1)]
        run.figure(f"all motion metrics, {workload} (CPU, no GPU), wall time", totals[0], "s")
        run.figure("the same evaluation, process CPU time (less sensitive to other load)", totals[1], "CPU s")
        run.figure(f"unpickling the {size / 1e9:.2f} GB results file, restricted budgeted unpickler", ours_cpu,
                   "CPU s", peers={"unrestricted C unpickler behind np.load(allow_pickle=True)": peer_cpu})
        record_comparisons(run, comparisons, args.loop_motions)


def warm_up(path: Path, frames: int) -> None:
    """Evaluate 2 motions once, untimed, so that compilation and cache loads stay out of the figures."""
    np.save(path, np.array(synthetic_results(2, frames), dtype=object), allow_pickle=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 2 motions make every covariance singular
        (seconds, _), _ = cpu_timed(evaluate, path, EvalSettings())
    print(f"warm-up evaluation of 2 motions (numba compilation / cache load, untimed): {seconds:.2f} s")


def record_comparisons(run: BenchRun, comparisons: list[dict], n: int) -> None:
    loop = f"per-frame Python loop of Bailando's code ({n} motions)"
    for key, label, peer in (
            ("beats", "music beats per clip, batched onset envelopes",
             f"one librosa.beat.beat_track(y=...) call per clip ({n} clips)"),
            ("kinetic", "kinetic features per motion, vectorised", loop),
            ("geometric", "geometric features per motion, vectorised", loop)):
        run.figure(f"{label} (same {n} items)", [1e3 * c[key][1] for c in comparisons], "ms",
                   peers={peer: [1e3 * c[key][0] for c in comparisons]})

if __name__ == "__main__":
    sys.exit(run_main(main))
