"""Ground truth and music from files beside the results, and the frames the metrics see.

CLoSD ``run.py`` results (``.pkl``) hold generated motions only. The original script draws the
ground truth and the music from its AIST++ data loader; here they come from files the user names:
``--gt_file`` (a result file whose ``gt_motion``, or else ``motion``, is the reference) and
``--audio_dir`` (one WAV per motion, paired in file-name order). The original's ``--fixed_len``
sets the ground-truth window, ``--context_len``/``--pred_len`` the frames evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from scipy.io import wavfile

from ...errors import ConfigError, DataError
from ...limits import MAX_AUDIO_SAMPLE_RATE
from ..user_files import input_size, open_input_file
from ..load_limits import LoadLimits
from .loading import Audio, MotionResults, load_motion_results

AUDIO_SUFFIX = ".wav"


@dataclass(frozen=True)
class FrameWindow:
    """The original script's frame options.

    ``context_len`` leading frames of every motion (the prefix a prefix-mode model was given) are
    left out of every metric, and at most ``pred_len`` frames after them are evaluated (0: all);
    ground-truth motions from ``--gt_file`` are cut to ``max(T, fixed_len)`` frames first, T being
    the results' frame count, as the original sizes the windows it draws.
    """

    context_len: int = 0
    pred_len: int = 0
    fixed_len: int = 60

    def __post_init__(self):
        for name, low in (("context_len", 0), ("pred_len", 0), ("fixed_len", 1)):
            value = getattr(self, name)
            if value < low:
                raise ConfigError(f"must be >= {low}", field=f"--{name}", found=value)

    def cut(self, array: np.ndarray, lengths: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
        """Frames ``[context_len, context_len + pred_len)`` of ``array`` (frames on axis 1) and the
        valid frames left of each motion; DataError when a motion keeps fewer than 2."""
        stop = self.context_len + self.pred_len if self.pred_len else array.shape[1]
        kept = np.minimum(lengths, stop) - self.context_len
        if np.any(kept < 2):
            raise DataError(f"{int(np.sum(kept < 2))} {what} keep fewer than 2 frames after "
                            f"--context_len {self.context_len}", field="--context_len",
                            expected=f"motions longer than {self.context_len + 1} frames",
                            found=f"shortest length {int(lengths.min())}")
        return array[:, self.context_len:stop], kept

    def cut_audio(self, clips: list, fps: float) -> list:
        """Each clip from the first evaluated frame's instant on."""
        return [None if clip is None else Audio(clip.waveform[round(self.context_len / fps * clip.sample_rate):],
                                                clip.sample_rate) for clip in clips]


def reference_from_file(path: Path, results: MotionResults, fixed_len: int,
                        limits: LoadLimits) -> tuple[np.ndarray, np.ndarray]:
    """(motions, lengths) of the first N reference motions of ``path``, cut to
    ``max(T, fixed_len)`` frames; DataError when they cannot stand beside ``results``."""
    loaded = load_motion_results(path, limits)
    motions = loaded.gt_motion if loaded.gt_motion is not None else loaded.motion
    n_motions = results.motion.shape[0]
    if loaded.kind != results.kind or motions.shape[2:] != results.motion.shape[2:]:
        raise DataError("ground truth of another layout than the results", file=path,
                        expected=f"{results.kind} (N, T, {', '.join(map(str, results.motion.shape[2:]))})",
                        found=f"{loaded.kind} {motions.shape}")
    if motions.shape[0] < n_motions:
        raise DataError("fewer ground-truth motions than results", file=path,
                        expected=f">= {n_motions} motions", found=motions.shape[0])
    frames = max(results.motion.shape[1], fixed_len)
    return motions[:n_motions, :frames], np.minimum(loaded.lengths[:n_motions], frames)


def audio_from_folder(folder: Path, n_motions: int, limits: LoadLimits) -> list[Audio]:
    """One clip per motion from the ``*.wav`` files of ``folder`` in name order (mono: channels
    averaged; integer samples scaled to [-1, 1])."""
    if not folder.is_dir():
        raise ConfigError("not a folder", field="--audio_dir", found=str(folder))
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() == AUDIO_SUFFIX)
    if len(files) != n_motions:
        raise DataError("one WAV file per motion is needed, paired in file-name order", file=folder,
                        expected=f"{n_motions} *.wav files", found=len(files))
    budget = limits.max_bytes
    clips = []
    for file in files:
        with open_input_file(file, "a WAV file", budget) as handle:
            budget -= input_size(handle)
            clips.append(_read_wav(handle, file))
    return clips


def _read_wav(handle: BinaryIO, path: Path) -> Audio:
    try:
        rate, samples = wavfile.read(handle)
    except (ValueError, EOFError, OSError) as exc:
        raise DataError(f"unreadable WAV file ({exc})", file=path) from exc
    if not 1 <= rate <= MAX_AUDIO_SAMPLE_RATE:
        raise DataError("bad sample rate", file=path, expected=f"1 to {MAX_AUDIO_SAMPLE_RATE:,} Hz", found=rate)
    if samples.dtype.kind in "iu":  # PCM: centre (unsigned 8-bit) and scale to [-1, 1)
        info = np.iinfo(samples.dtype)
        middle = (info.max + info.min + 1) / 2
        samples = (samples.astype(np.float64) - middle) / (info.max + 1 - middle)
    samples = np.asarray(samples, dtype=np.float64)
    mono = samples.mean(axis=1) if samples.ndim == 2 else samples
    if mono.size == 0 or not np.isfinite(mono).all():
        raise DataError("WAV file without finite samples", file=path)
    return Audio(mono, int(rate))
