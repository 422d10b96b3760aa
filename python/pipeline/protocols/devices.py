"""The torch device a protocol runs on: ``cpu``, ``cuda``, ``cuda:N`` or a bare GPU index ``N``
(the original scripts' ``--device 0``), with a warned fallback to the CPU when CUDA is absent.

PyTorch is imported only when a CUDA device is asked for.
"""

from __future__ import annotations

import re
import warnings

from ..errors import ConfigError

DEVICE_PATTERN = re.compile(r"^(cpu|cuda(:[0-9]+)?|[0-9]+)$")
DEVICE_CHOICES = "cpu, cuda, cuda:N or a GPU index N"


def check_device(requested: str | int) -> str:
    """The device's canonical name (``0`` becomes ``cuda:0``); ConfigError for anything else."""
    text = str(requested) if isinstance(requested, int) and not isinstance(requested, bool) else requested
    if not isinstance(text, str) or not DEVICE_PATTERN.match(text):
        raise ConfigError("unknown device", field="--device", expected=DEVICE_CHOICES, found=requested)
    return f"cuda:{text}" if text.isdigit() else text


def resolve_device(requested: str | int) -> str:
    """The device to use: ``requested`` in canonical form, or ``cpu`` with a warning when CUDA is
    requested but unavailable; ConfigError for a CUDA index the machine does not have."""
    device = check_device(requested)
    if device == "cpu":
        return device
    import torch

    if not torch.cuda.is_available():
        warnings.warn(f"device {device!r} requested but CUDA is not available; falling back to CPU",
                      stacklevel=2)
        return "cpu"
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        raise ConfigError("no such CUDA device", field="--device",
                          expected=f"cuda:0 .. cuda:{torch.cuda.device_count() - 1}", found=requested)
    return device
