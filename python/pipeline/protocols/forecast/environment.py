"""The software environment of a run: package versions (``config.json``, report, ``--dry-run``)."""

from __future__ import annotations

import platform
import sys

from ...runner.history import package_version

# distribution names; None in the result means "not installed"
PACKAGES = ("numpy", "pandas", "scipy", "statsforecast", "pyarrow", "datasets", "gluonts", "torch",
            "transformers", "chronos-forecasting", "mlfs-bench")
# the packages the original framework's dry run lists after PyTorch and CUDA: label -> distribution
DRY_RUN_PACKAGES = (("PyArrow", "pyarrow"), ("Datasets", "datasets"), ("GluonTS", "gluonts"))


def package_versions() -> dict:
    """Python version and the version of each package of :data:`PACKAGES` (None when absent)."""
    return {"python": platform.python_version(), **{package: package_version(package) for package in PACKAGES}}


def cuda_available() -> bool | None:
    """``torch.cuda.is_available()``, or None when PyTorch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    return bool(torch.cuda.is_available())


def environment(check_cuda: bool = True) -> dict:
    """Package versions, CUDA availability, platform and interpreter (for ``config.json``).

    ``check_cuda=False`` leaves ``cuda_available`` None unless PyTorch is already imported (a run
    of the NumPy baselines need not pay for importing it).
    """
    cuda = cuda_available() if check_cuda or "torch" in sys.modules else None
    return {**package_versions(), "cuda_available": cuda, "platform": platform.platform(),
            "executable": sys.executable}


def dry_run_lines(env: dict) -> list[str]:
    """``Python: 3.11.2``, ``PyTorch: ...``, ``CUDA: False``, ... as the original dry run prints them."""
    def shown(value):
        return "not installed" if value is None else value

    lines = [f"Python: {env['python']}", f"PyTorch: {shown(env['torch'])}", f"CUDA: {shown(env['cuda_available'])}"]
    return lines + [f"{label}: {shown(env[package])}" for label, package in DRY_RUN_PACKAGES]
