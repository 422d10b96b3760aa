"""Safe loading of generated-motion result files.

Three formats are read:

* ``.npy`` holding a pickled dict (0-d object array) with ``motion``, optional ``gt_motion``,
  ``lengths`` and optional ``audio_waveforms`` (list of ``{"waveform", "sample_rate"}``);
  a ``.npy`` holding a plain numeric array is read as ``motion``;
* ``.pkl`` (CLoSD ``run.py``): a dict with ``motion`` and ``length``;
* ``.npz`` with plain arrays ``motion``, ``lengths``, optional ``gt_motion``, ``audio_{i}`` and
  ``audio_sr`` — the preferred, pickle-free format (see :func:`save_npz`).

Pickles go only through :class:`~..restricted_pickle.RestrictedUnpickler` (no code runs, memory bounded
by the file size); ``.npy``/``.npz`` data sizes are checked before they are read
(:mod:`..npyfile`). Every problem is a one-line :class:`DataError`.
"""

from __future__ import annotations

import difflib
import io
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ...errors import DataError
from ...fileio import atomic_write_bytes, open_regular_file
from ...limits import MAX_AUDIO_SAMPLE_RATE
from ..load_limits import LoadLimits
from ..npyfile import npz_arrays, read_npy_data, read_npy_header
from ..restricted_pickle import restricted_load
from ..user_files import input_size

FEATURE_DIM = 263
JOINT_COUNTS = (21, 22, 24)  # HumanML3D writers use 21 or 22; SMPL with hands (Bailando) 24


class MotionDataWarning(UserWarning):
    """Input was usable but had to be adjusted (e.g. lengths clamped)."""


def describe(value) -> str:
    """A short description of a user-supplied value for error messages (never its full repr)."""
    if isinstance(value, np.ndarray):
        return f"array {value.dtype} {value.shape}"
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return f"{type(value).__name__} of {len(value)}"
    if isinstance(value, int) and abs(value) >= 10 ** 18:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, (bool, int, float, complex, np.generic, type(None))):
        return repr(value)
    if isinstance(value, (str, bytes)):
        return repr(value[:40]) + ("..." if len(value) > 40 else "")
    return type(value).__name__


@dataclass(frozen=True)
class Audio:
    """One music clip paired with a motion: mono ``waveform`` (S,) sampled at ``sample_rate`` Hz."""

    waveform: np.ndarray
    sample_rate: int


@dataclass(frozen=True)
class MotionResults:
    """The content of one result file, validated.

    Attributes
    ----------
    motion : ndarray
        ``(N, T, 263)`` HumanML3D features or ``(N, T, J, 3)`` joints (J = 21 or 22).
    gt_motion : ndarray or None
        Same layout as ``motion``.
    lengths : ndarray of int, (N,)
        Valid frames per motion, 1 <= lengths <= T.
    audio : list of Audio or None, length N
    file : str
    """

    motion: np.ndarray
    gt_motion: np.ndarray | None
    lengths: np.ndarray
    audio: list
    file: str

    @property
    def kind(self) -> str:
        """``"features"`` for 263-d inputs, ``"joints"`` for joint positions."""
        return "features" if self.motion.ndim == 3 else "joints"


def load_motion_results(path: str | Path, limits: LoadLimits = LoadLimits()) -> MotionResults:
    """Read and validate a ``.npy``, ``.pkl`` or ``.npz`` result file (see module docstring)."""
    path = Path(path)
    if not path.exists():
        raise DataError("result file not found: expected a .npy/.pkl/.npz holding 'motion' "
                        "(N, T, 263) and 'lengths'", file=path)
    readers = {".npy": _read_npy, ".pkl": _read_pickle, ".npz": _read_npz}
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise DataError("unsupported file type", file=path, expected="one of .npy, .pkl, .npz",
                        found=path.suffix or "no suffix")
    with open_regular_file(path, "result file", None, DataError) as handle:
        size = input_size(handle)
        if size > limits.max_bytes:
            raise DataError(f"file holds {size:,} bytes, above the limit of {limits.max_bytes:,} "
                            "(raise --max-bytes if the file is genuine)", file=path)
        content = reader(handle, size, path, limits)
    return validate_results(content, path)


def _read_npy(handle: BinaryIO, size: int, path: Path, limits: LoadLimits) -> dict:
    header = read_npy_header(handle, path)
    available = size - header.offset
    if not header.dtype.hasobject:
        return {"motion": read_npy_data(handle, header, available, path, limits)}
    content = restricted_load(handle, path, stream_bytes=available, max_elements=limits.max_elements)
    if isinstance(content, np.ndarray) and content.dtype.hasobject and content.shape == ():
        content = content.item()
    return content if isinstance(content, dict) else {"motion": content}


def _read_pickle(handle: BinaryIO, size: int, path: Path, limits: LoadLimits) -> dict:
    content = restricted_load(handle, path, stream_bytes=size, max_elements=limits.max_elements)
    if not isinstance(content, dict):
        raise DataError("pickle must hold a dict", file=path, expected="dict with 'motion'",
                        found=type(content).__name__)
    return content


def _read_npz(handle: BinaryIO, size: int, path: Path, limits: LoadLimits) -> dict:
    arrays = npz_arrays(handle, path, limits)
    clip_ids = sorted(int(k[6:]) for k in arrays if k.startswith("audio_") and k[6:].isdigit())
    if clip_ids:
        arrays["audio_waveforms"] = _npz_clips(arrays, clip_ids, path)
    return arrays


def _npz_clips(arrays: dict, clip_ids: list, path: Path) -> list:
    """Pair ``audio_{i}`` arrays with motion i; ``audio_sr`` is one rate or one per motion."""
    motion = arrays.get("motion")
    n_motions = motion.shape[0] if motion is not None and motion.ndim else 0
    if "audio_sr" not in arrays:
        raise DataError("audio arrays without their sample rate", file=path, field="audio_sr",
                        expected="an integer or one per motion")
    try:
        rates = np.broadcast_to(arrays.pop("audio_sr"), (n_motions,))
    except ValueError as exc:
        raise DataError("bad sample rates", file=path, field="audio_sr",
                        expected=f"a scalar or ({n_motions},)") from exc
    if clip_ids[-1] >= n_motions:
        raise DataError("audio index beyond the motions", file=path, field=f"audio_{clip_ids[-1]}",
                        expected=f"index < {n_motions}")
    clips = [None] * n_motions
    for i in clip_ids:
        clips[i] = {"waveform": arrays.pop(f"audio_{i}"), "sample_rate": rates[i]}
    return clips


#: The keys of a result dict this reader reads (third-party dicts may hold others: ``text``, ...).
READ_KEYS = ("motion", "gt_motion", "lengths", "length", "audio_waveforms")


def validate_results(content: dict, file: str | Path) -> MotionResults:
    """Check shapes, lengths and finiteness of a loaded dict and bring it to canonical layout."""
    _refuse_misspelt_keys(content, file)
    if "motion" not in content:
        raise DataError("missing key", file=file, field="motion", expected="an array (N, T, 263)",
                        found=f"keys {[describe(key) for key in list(content)[:10]]}")
    motion = canonical_layout(content["motion"], "motion", file)
    gt_motion = None
    if content.get("gt_motion") is not None:
        gt_motion = canonical_layout(content["gt_motion"], "gt_motion", file)
        if gt_motion.shape != motion.shape:  # one lengths array counts the frames of both
            raise DataError("shape differs from 'motion'", file=file, field="gt_motion",
                            expected=motion.shape, found=gt_motion.shape)
    n_motions, n_frames = motion.shape[:2]
    lengths = _validate_lengths(content.get("lengths", content.get("length")), n_motions,
                                n_frames, file)
    audio = _validate_audio(content.get("audio_waveforms"), n_motions, file)
    return MotionResults(motion, gt_motion, lengths, audio, str(file))


def _refuse_misspelt_keys(content: dict, file) -> None:
    """DataError for a key that is nearly one the reader reads (``lenghts``): ignored, it would leave
    the lengths at the full frame count and every metric would include the padding."""
    for key in content:
        if isinstance(key, str) and key not in READ_KEYS:
            near = difflib.get_close_matches(key, READ_KEYS, n=1, cutoff=0.8)
            if near:
                raise DataError("a key the reader does not read, probably misspelt", file=file, field=key,
                                expected=repr(near[0]))


def canonical_layout(array, field: str, file: str | Path) -> np.ndarray:
    """Return features as ``(N, T, 263)`` or joints as ``(N, T, J, 3)`` (float64, finite).

    Accepted: ``(N, T, 263)``, ``(N, 263, T)``, ``(N, 263, 1, T)``, ``(N, J, 3, T)`` with J in
    {21, 22, 24}.
    """
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "iuf":
        raise DataError("not a numeric array", file=file, field=field,
                        expected="numpy array of integers or floats", found=describe(array))
    shape = array.shape
    if array.ndim == 3 and shape[1] == shape[2] == FEATURE_DIM:
        raise DataError("ambiguous layout: 263 frames of 263 features, or the other way round", file=file,
                        field=field, expected="(N, 263, 1, T) for features first, or (N, T, 263) with T != 263",
                        found=shape)
    if array.ndim == 3 and shape[2] == FEATURE_DIM:
        canonical = array
    elif array.ndim == 3 and shape[1] == FEATURE_DIM:
        canonical = array.transpose(0, 2, 1)
    elif array.ndim == 4 and shape[1] == FEATURE_DIM and shape[2] == 1:
        canonical = array[:, :, 0, :].transpose(0, 2, 1)
    elif array.ndim == 4 and shape[1] in JOINT_COUNTS and shape[2] == 3:
        canonical = array.transpose(0, 3, 1, 2)
    else:
        raise DataError("unexpected shape", file=file, field=field,
                        expected="(N, T, 263), (N, 263, T), (N, 263, 1, T) or (N, 21|22|24, 3, T)",
                        found=shape)
    canonical = np.ascontiguousarray(canonical, dtype=np.float64)
    if canonical.shape[0] < 1 or canonical.shape[1] < 2:
        raise DataError("need at least one motion of at least 2 frames", file=file, field=field,
                        found=shape)
    if not np.isfinite(canonical).all():
        bad = np.argwhere(~np.isfinite(canonical))[0]
        raise DataError("non-finite value", file=file, field=field, expected="finite numbers",
                        found=f"{canonical[tuple(bad)]} at motion {bad[0]}, frame {bad[1]}")
    return canonical


def _numeric_array(value, field: str, file, dtype=None) -> np.ndarray:
    """``value`` as an integer or float array; ragged or non-numeric content is a DataError."""
    try:
        array = np.asarray(value, dtype=dtype)
    except (ValueError, TypeError) as exc:
        raise DataError("not a numeric array", file=file, field=field,
                        found=describe(value)) from exc
    if array.dtype.kind not in "iuf":
        raise DataError("not a numeric array", file=file, field=field,
                        expected="integers or floats", found=describe(array))
    return array


def _validate_lengths(lengths, n_motions: int, n_frames: int, file) -> np.ndarray:
    if lengths is None:
        return np.full(n_motions, n_frames, dtype=np.int64)
    lengths = _numeric_array(lengths, "lengths", file)
    if lengths.shape != (n_motions,):
        raise DataError("bad lengths", file=file, field="lengths",
                        expected=f"{n_motions} integers", found=describe(lengths))
    if not np.all(np.isfinite(lengths)) or np.any(lengths != np.round(lengths)) or np.any(lengths < 2):
        raise DataError("lengths must be integers >= 2", file=file, field="lengths",
                        found=f"min {lengths.min()}")
    if np.any(lengths > n_frames):
        warnings.warn(f"{file}: {int(np.sum(lengths > n_frames))} lengths exceed T={n_frames}; "
                      "clamped to T", MotionDataWarning, stacklevel=3)
        lengths = np.minimum(lengths, n_frames)  # before the cast: 1e30 must not wrap around
    return lengths.astype(np.int64)


def _validate_audio(entries, n_motions: int, file) -> list:
    if entries is None:
        return [None] * n_motions
    if not isinstance(entries, (list, tuple, np.ndarray)) or len(entries) != n_motions:
        raise DataError("must pair one entry with each motion", file=file,
                        field="audio_waveforms", expected=f"list of {n_motions}",
                        found=describe(entries))
    return [_validate_clip(entry, i, file) for i, entry in enumerate(entries)]


def _validate_clip(entry, index: int, file) -> Audio | None:
    if entry is None:
        return None
    field = f"audio_waveforms[{index}]"
    if not isinstance(entry, dict) or "waveform" not in entry or "sample_rate" not in entry:
        raise DataError("bad audio entry", file=file, field=field,
                        expected="{'waveform': 1-D array, 'sample_rate': int}",
                        found=describe(entry))
    waveform = _numeric_array(entry["waveform"], field, file, dtype=np.float64)
    if waveform.ndim != 1 or waveform.size == 0 or not np.isfinite(waveform).all():
        raise DataError("waveform must be a non-empty finite 1-D array", file=file, field=field,
                        found=describe(waveform))
    rate = entry["sample_rate"]
    if (not isinstance(rate, (int, float, np.integer, np.floating)) or isinstance(rate, bool)
            or not 1 <= rate <= MAX_AUDIO_SAMPLE_RATE or rate != round(rate)):
        raise DataError("bad sample rate", file=file, field=field,
                        expected=f"an integer from 1 to {MAX_AUDIO_SAMPLE_RATE:,} Hz",
                        found=describe(rate))
    return Audio(waveform, int(rate))


def save_npz(results: MotionResults, path: str | Path) -> Path:
    """Write ``results`` as a pickle-free ``.npz`` (``motion`` in canonical layout).

    Audio clips become ``audio_{i}`` with their rates in ``audio_sr`` (N,); motions without audio
    have no ``audio_{i}`` entry and rate 0.
    """
    arrays = {"motion": results.motion, "lengths": results.lengths}
    if results.gt_motion is not None:
        arrays["gt_motion"] = results.gt_motion
    if any(clip is not None for clip in results.audio):
        arrays["audio_sr"] = np.array([0 if c is None else c.sample_rate for c in results.audio])
        arrays.update({f"audio_{i}": clip.waveform for i, clip in enumerate(results.audio)
                       if clip is not None})
    buffer = io.BytesIO()
    np.savez(buffer, **_to_file_layout(arrays))
    return atomic_write_bytes(path, buffer.getvalue())


def _to_file_layout(arrays: dict) -> dict:
    """Joints go back to the on-disk ``(N, J, 3, T)`` layout; features stay ``(N, T, 263)``."""
    return {name: (value.transpose(0, 2, 3, 1) if name in ("motion", "gt_motion")
                   and value.ndim == 4 else value) for name, value in arrays.items()}
