"""Benchmark: AIST++ motion metrics on 1,000 motions × 196 frames on the CPU.

Times every stage of one evaluation (loading, joint recovery, kinetic and geometric features, FID,
diversity, beat alignment with librosa, foot metrics) and compares, in the same run:

* the restricted, budgeted unpickler with the unrestricted C unpickler behind
  ``np.load(allow_pickle=True)`` (which runs embedded code) on the same file;
* one ``librosa.beat.beat_track(y=...)`` call per clip with the batched onset envelopes;
* the vectorised feature extractors with the tests' per-frame re-implementations of Bailando's
  feature code (``tests/motion/bailando_reference.py``), on a subset, per motion.

Run: ``python3 bench/bench_motion_metrics.py [--motions 1000] [--frames 196] [--loop-motions 20]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import librosa
import numpy as np

from pipeline.protocols.motion import (EvalSettings, frechet_distance,
                                       geometric_features, kinetic_features, load_motion_results,
                                       normalize_to_reference, pairwise_diversity, prepare_joints,
                                       recover_from_ric)
from pipeline.protocols.motion import ground
from pipeline.protocols.motion.beats import music_beat_times_batch
from pipeline.protocols.motion.evaluate import score_motion_beats
from pipeline.protocols.motion.npyfile import read_npy_header
from pipeline.protocols.motion.unpickler import restricted_load

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


def timed(label: str, table: dict, func, *args):
    """Call ``func(*args)``, storing (wall, CPU) seconds under ``label``."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = func(*args)
    table[label] = (time.perf_counter() - wall, time.process_time() - cpu)
    return value


def unrestricted_unpickle(path: Path):
    """The peer: the C unpickler behind ``np.load(allow_pickle=True)`` (runs embedded code)."""
    return np.load(path, allow_pickle=True).item()


def restricted_unpickle(path: Path):
    """The same file through the restricted, budgeted unpickler (no validation)."""
    with path.open("rb") as handle:
        header = read_npy_header(handle, path)
        return restricted_load(handle, path, stream_bytes=path.stat().st_size - header.offset)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--motions", type=int, default=1000)
    parser.add_argument("--frames", type=int, default=196)
    parser.add_argument("--loop-motions", type=int, default=20)
    args = parser.parse_args()
    times: dict[str, float] = {}
    content = synthetic_results(args.motions, args.frames)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.npy"
        np.save(path, np.array(content, dtype=object), allow_pickle=True)
        peers: dict = {}
        for _ in range(2):  # the second round has the file in the page cache for both
            timed("unrestricted C unpickler", peers, unrestricted_unpickle, path)
            timed("restricted unpickler", peers, restricted_unpickle, path)
        results = timed("load (restricted unpickler + validation)", times, load_motion_results, path)
        size = path.stat().st_size
    joints = timed("joint recovery (x2 sets)", times, lambda: (recover_from_ric(results.motion),
                                                                recover_from_ric(results.gt_motion)))
    gen, ref = joints
    lengths = results.lengths
    prepared = [prepare_joints(j, lengths) for j in (gen, ref)]
    kin = timed("kinetic features (x2 sets)", times, lambda: [kinetic_features(j, l) for j, l in prepared])
    geo = timed("geometric features (x2 sets)", times, lambda: [geometric_features(j, l) for j, l in prepared])
    for name, (f_gen, f_ref) in (("k", kin), ("g", geo)):
        g_norm, r_norm = normalize_to_reference(f_gen, f_ref)
        timed(f"FID_{name}", times, frechet_distance, g_norm, r_norm)
        timed(f"Div_{name} (all pairs)", times, pairwise_diversity, g_norm)
    settings = EvalSettings()
    timed("librosa first call (numba JIT/cache, once)", times, music_beat_times_batch, results.audio[:1])
    music = timed("music beats (librosa, batched onsets)", times, music_beat_times_batch, results.audio)
    timed("kinematic beats + BeatAlign scores", times, lambda: [
        score_motion_beats(j[:n], m, settings) for j, n, m in zip(gen, lengths, music)])
    timed("SkatingRatio", times, ground.skating_ratio, gen)
    timed("FootSliding", times, ground.foot_sliding_mm, gen, lengths)
    timed("Penetration + Floating", times, lambda: (ground.penetration_mm(gen, lengths),
                                                    ground.floating_mm(gen, lengths)))
    timed("PFC", times, ground.physical_foot_contact, gen, lengths)
    print(f"AIST++ motion metrics: {args.motions} motions x {args.frames} frames, CPU "
          "(wall s / process CPU s; CPU is robust to other load on the machine)")
    for label, (wall, cpu) in times.items():
        print(f"  {label:<45s} {wall:8.3f} {cpu:8.3f}")
    walls, cpus = zip(*times.values())
    print(f"  {'total':<45s} {sum(walls):8.3f} {sum(cpus):8.3f}")

    ours, theirs = peers["restricted unpickler"], peers["unrestricted C unpickler"]
    print(f"unpickling the {size / 1e9:.2f} GB file: restricted unpickler {ours[0]:.2f} s wall / "
          f"{ours[1]:.2f} s CPU, unrestricted C unpickler {theirs[0]:.2f} s / {theirs[1]:.2f} s "
          f"-> {ours[1] / theirs[1]:.2f}x the CPU")

    clips = results.audio[:args.loop_motions]
    start = time.perf_counter()
    per_clip = [librosa.beat.beat_track(y=c.waveform.astype(np.float32), sr=c.sample_rate)[1]
                for c in clips]
    loop_time = (time.perf_counter() - start) / len(clips)
    batch_time = times["music beats (librosa, batched onsets)"][0] / args.motions
    same = all(np.allclose(librosa.frames_to_time(f, sr=SAMPLE_RATE), m)
               for f, m in zip(per_clip, music))
    print(f"music beats per clip: one beat_track(y=...) call per clip {loop_time * 1e3:8.2f} ms, "
          f"batched onsets {batch_time * 1e3:6.2f} ms -> {loop_time / batch_time:5.1f}x faster "
          f"(same beats: {same})")

    subset = slice(0, args.loop_motions)
    j_sub, l_sub = prepared[0][0][subset], prepared[0][1][subset]
    for name, vectorised, loop in (("kinetic", kinetic_features, bailando_reference.kinetic_features),
                                   ("geometric", geometric_features,
                                    bailando_reference.manual_features)):
        start = time.perf_counter()
        expected = np.array([loop(j[:n]) for j, n in zip(j_sub, l_sub)])
        loop_time = (time.perf_counter() - start) / args.loop_motions
        start = time.perf_counter()
        got = vectorised(j_sub, l_sub)
        vec_time = (time.perf_counter() - start) / args.loop_motions
        batch_time = times[f"{name} features (x2 sets)"][0] / (2 * args.motions)
        assert np.allclose(got, expected, rtol=1e-6, atol=1e-6), f"{name}: loop and vectorised differ"
        print(f"{name} features per motion: per-frame Python loop {loop_time * 1e3:8.2f} ms, "
              f"vectorised batch {batch_time * 1e3:6.3f} ms -> {loop_time / batch_time:7.0f}x faster "
              f"(same {args.loop_motions} motions, equal to float32 precision; vectorised on the "
              f"subset {vec_time * 1e3:.3f} ms)")


if __name__ == "__main__":
    main()
