"""Safe loading of generated-motion result files (spec §3.1).

Three formats are read:

* ``.npy`` holding a pickled dict (0-d object array) with ``motion``, optional ``gt_motion``,
  ``lengths`` and optional ``audio_waveforms`` (list of ``{"waveform", "sample_rate"}``);
* ``.pkl`` (CLoSD ``run.py``): a dict with ``motion`` and ``length``;
* ``.npz`` with plain arrays ``motion``, ``lengths``, optional ``gt_motion``, ``audio_{i}`` and
  ``audio_sr`` — the preferred, pickle-free format (see :func:`save_npz`).

Pickles run code while they load (``__reduce__``), so user pickles go only through
:class:`RestrictedUnpickler`, which resolves nothing but an allow-list of harmless constructors.
"""

from __future__ import annotations

import _codecs
import collections
import io
import pickle
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy._core import multiarray as _multiarray
from numpy._core import numeric as _numeric

from ...errors import DataError
from ...fileio import atomic_write_bytes

FEATURE_DIM = 263
JOINT_COUNTS = (21, 22)


class MotionDataWarning(UserWarning):
    """Input was usable but had to be adjusted (e.g. lengths clamped)."""


_BUILTINS = (dict, list, tuple, set, int, float, complex, str, bytes, bool, slice)
_ALLOWED = {("builtins", cls.__name__): cls for cls in _BUILTINS}
_ALLOWED.update({
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("collections", "OrderedDict"): collections.OrderedDict,
    # protocol 2 stores bytes as _codecs.encode(text, "latin1"): a pure string conversion
    ("_codecs", "encode"): _codecs.encode,
})
for _package in ("numpy.core", "numpy._core"):  # files written by NumPy 1.x and 2.x
    _ALLOWED[(f"{_package}.multiarray", "_reconstruct")] = _multiarray._reconstruct
    _ALLOWED[(f"{_package}.multiarray", "scalar")] = _multiarray.scalar
    # pickle protocol 5 (pickle.dump's default) rebuilds contiguous arrays from a raw buffer
    _ALLOWED[(f"{_package}.numeric", "_frombuffer")] = _numeric._frombuffer


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that only rebuilds NumPy arrays/dtypes/scalars and builtin containers.

    Any other global (``os.system``, ``subprocess.Popen``, torch tensors, user classes, ...) raises
    :class:`pickle.UnpicklingError` before it is resolved, so nothing in the file can run code.
    """

    def find_class(self, module: str, name: str):
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            pass
        if module.split(".")[0] == "torch":
            raise pickle.UnpicklingError(
                f"refusing torch object {module}.{name}: save the motions as numpy arrays")
        raise pickle.UnpicklingError(
            f"refusing to load global {module}.{name}: only numpy arrays, dtypes, scalars, "
            "dicts, lists, tuples, numbers and strings are allowed")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refusing persistent id in pickle (torch archive?)")


def restricted_loads(data: bytes, file: str | Path = "<bytes>"):
    """Unpickle ``data`` with :class:`RestrictedUnpickler`; refusals become :class:`DataError`."""
    return restricted_load(io.BytesIO(data), file)


def restricted_load(handle: BinaryIO, file: str | Path = "<stream>"):
    """Unpickle from an open binary ``handle`` with :class:`RestrictedUnpickler` (streamed)."""
    try:
        return RestrictedUnpickler(handle).load()
    except pickle.UnpicklingError as exc:
        raise DataError(f"unsafe or unreadable pickle: {exc}", file=file) from exc
    except (EOFError, ValueError, TypeError, AttributeError, IndexError) as exc:
        raise DataError(f"corrupt pickle ({type(exc).__name__}: {exc})", file=file) from exc


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


def load_motion_results(path: str | Path) -> MotionResults:
    """Read and validate a ``.npy``, ``.pkl`` or ``.npz`` result file (see module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise DataError("result file not found: expected a .npy/.pkl/.npz holding 'motion' "
                        "(N, T, 263) and 'lengths'", file=path)
    readers = {".npy": _read_npy, ".pkl": _read_pickle, ".npz": _read_npz}
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise DataError("unsupported file type", file=path, expected="one of .npy, .pkl, .npz",
                        found=path.suffix or "no suffix")
    return validate_results(reader(path), path)


def _read_npy(path: Path) -> dict:
    with path.open("rb") as handle:
        try:
            version = np.lib.format.read_magic(handle)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, _, dtype = read_header(handle)
        except ValueError as exc:
            raise DataError(f"not a valid .npy file ({exc})", file=path) from exc
        if dtype.hasobject:
            content = restricted_load(handle, path)
            if isinstance(content, np.ndarray) and content.dtype.hasobject and content.shape == ():
                content = content.item()
            return content if isinstance(content, dict) else {"motion": content}
    return {"motion": np.load(path, allow_pickle=False)}


def _read_pickle(path: Path) -> dict:
    with path.open("rb") as handle:
        content = restricted_load(handle, path)
    if not isinstance(content, dict):
        raise DataError("pickle must hold a dict", file=path, expected="dict with 'motion'",
                        found=type(content).__name__)
    return content


def _read_npz(path: Path) -> dict:
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except ValueError as exc:
        raise DataError(f"cannot read .npz without pickle ({exc}); store plain arrays",
                        file=path) from exc
    clip_ids = sorted(int(k[6:]) for k in arrays if k.startswith("audio_") and k[6:].isdigit())
    if clip_ids:
        arrays["audio_waveforms"] = _npz_clips(arrays, clip_ids, path)
    return arrays


def _npz_clips(arrays: dict, clip_ids: list, path: Path) -> list:
    """Pair ``audio_{i}`` arrays with motion i; ``audio_sr`` is one rate or one per motion."""
    n_motions = len(arrays["motion"]) if "motion" in arrays else 0
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


def validate_results(content: dict, file: str | Path) -> MotionResults:
    """Check shapes, lengths and finiteness of a loaded dict and bring it to canonical layout."""
    if "motion" not in content:
        raise DataError("missing key", file=file, field="motion",
                        expected="an array (N, T, 263)", found=sorted(map(str, content)))
    motion = canonical_layout(content["motion"], "motion", file)
    gt_motion = None
    if content.get("gt_motion") is not None:
        gt_motion = canonical_layout(content["gt_motion"], "gt_motion", file)
        if gt_motion.shape[0] != motion.shape[0] or gt_motion.shape[2:] != motion.shape[2:]:
            raise DataError("shape differs from 'motion'", file=file, field="gt_motion",
                            expected=motion.shape, found=gt_motion.shape)
    n_motions, n_frames = motion.shape[:2]
    lengths = _validate_lengths(content.get("lengths", content.get("length")), n_motions,
                                n_frames, file)
    audio = _validate_audio(content.get("audio_waveforms"), n_motions, file)
    return MotionResults(motion, gt_motion, lengths, audio, str(file))


def canonical_layout(array, field: str, file: str | Path) -> np.ndarray:
    """Return features as ``(N, T, 263)`` or joints as ``(N, T, J, 3)`` (float64, finite).

    Accepted: ``(N, T, 263)``, ``(N, 263, T)``, ``(N, 263, 1, T)``, ``(N, J, 3, T)`` with J in {21, 22}.
    """
    if not isinstance(array, np.ndarray) or not np.issubdtype(array.dtype, np.number):
        raise DataError("not a numeric array", file=file, field=field, expected="numpy array",
                        found=type(array).__name__ if not isinstance(array, np.ndarray)
                        else array.dtype)
    shape = array.shape
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
                        expected="(N, T, 263), (N, 263, T), (N, 263, 1, T) or (N, 22|21, 3, T)",
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


def _validate_lengths(lengths, n_motions: int, n_frames: int, file) -> np.ndarray:
    if lengths is None:
        return np.full(n_motions, n_frames, dtype=np.int64)
    lengths = np.asarray(lengths)
    if lengths.shape != (n_motions,) or not np.issubdtype(lengths.dtype, np.number):
        raise DataError("bad lengths", file=file, field="lengths",
                        expected=f"{n_motions} integers", found=f"{lengths.dtype} {lengths.shape}")
    if not np.all(np.isfinite(lengths)) or np.any(lengths != np.round(lengths)) or np.any(lengths < 2):
        raise DataError("lengths must be integers >= 2", file=file, field="lengths",
                        found=f"min {lengths.min()}")
    lengths = lengths.astype(np.int64)
    if np.any(lengths > n_frames):
        warnings.warn(f"{file}: {int(np.sum(lengths > n_frames))} lengths exceed T={n_frames}; "
                      "clamped to T", MotionDataWarning, stacklevel=3)
        lengths = np.minimum(lengths, n_frames)
    return lengths


def _validate_audio(entries, n_motions: int, file) -> list:
    if entries is None:
        return [None] * n_motions
    if not isinstance(entries, (list, tuple, np.ndarray)) or len(entries) != n_motions:
        raise DataError("must pair one entry with each motion", file=file,
                        field="audio_waveforms", expected=f"list of {n_motions}",
                        found=type(entries).__name__ if not hasattr(entries, "__len__")
                        else len(entries))
    return [_validate_clip(entry, i, file) for i, entry in enumerate(entries)]


def _validate_clip(entry, index: int, file) -> Audio | None:
    if entry is None:
        return None
    field = f"audio_waveforms[{index}]"
    if not isinstance(entry, dict) or "waveform" not in entry or "sample_rate" not in entry:
        raise DataError("bad audio entry", file=file, field=field,
                        expected="{'waveform': 1-D array, 'sample_rate': int}",
                        found=type(entry).__name__)
    waveform = np.asarray(entry["waveform"], dtype=np.float64)
    rate = entry["sample_rate"]
    if waveform.ndim != 1 or waveform.size == 0 or not np.isfinite(waveform).all():
        raise DataError("waveform must be a non-empty finite 1-D array", file=file, field=field,
                        found=waveform.shape)
    if not isinstance(rate, (int, float, np.number)) or int(rate) != rate or int(rate) <= 0:
        raise DataError("sample_rate must be a positive integer", file=file, field=field,
                        found=rate)
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
