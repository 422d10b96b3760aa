"""Tasks and grids: the data a run is made of.

A :class:`Task` is one (method, dataset, fold[, parameter overrides]) unit; a :class:`GridSpec`
says which feature counts ML-kNN is scored on. Both are frozen and picklable, so executors can
ship them to worker processes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..names import validate_name


@dataclass(frozen=True)
class Task:
    """One unit of work.

    Attributes
    ----------
    method : str
        Registry name of the method.
    dataset : str
        Dataset folder name under the data directory.
    fold : int
        Fold index i (file ``fold{i}.mat``).
    params_json : str
        The method's parameter overrides as canonical JSON (``"{}"`` for the defaults).
    label : str
        Results sub-folder; the method name unless a parameter sweep names its variants.
    """

    method: str
    dataset: str
    fold: int
    params_json: str = "{}"
    label: str = ""

    def __post_init__(self):
        validate_name(self.method, "method")
        validate_name(self.dataset, "dataset")
        validate_name(self.label or self.method, "method label")
        if int(self.fold) < 0:
            raise ConfigError(f"fold index must be >= 0, got {self.fold}")

    @property
    def folder(self) -> str:
        return self.label or self.method

    @property
    def overrides(self) -> dict[str, Any]:
        return json.loads(self.params_json)

    @property
    def key(self) -> str:
        return f"{self.folder}/{self.dataset}/fold{self.fold}"


def canonical_params(params: dict[str, Any]) -> str:
    """Canonical JSON text of a parameter dict (sorted keys), used in task identities."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class GridSpec:
    """The feature-count grid ML-kNN is evaluated on.

    ``mode="kgrid"``: k = k_min, k_min+k_step, ... ≤ min(k_max, d).
    ``mode="pgrid"``: p = p_min ... p_max (step p_step), k = round-half-even(p·d) clipped to [1, d];
    tables use ``p_target``.
    """

    mode: str = "kgrid"
    k_min: int = 10
    k_max: int = 300
    k_step: int = 10
    p_min: float = 0.05
    p_max: float = 0.5
    p_step: float = 0.05
    p_target: float = 0.2
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if self.mode not in ("kgrid", "pgrid"):
            raise ConfigError(f"grid mode must be 'kgrid' or 'pgrid', got {self.mode!r}")

    def describe(self) -> dict[str, Any]:
        """The grid settings as written into result files and manifests."""
        if self.mode == "kgrid":
            return {"k_min": self.k_min, "k_max": self.k_max, "k_step": self.k_step}
        return {"p_min": self.p_min, "p_max": self.p_max, "p_step": self.p_step, "p_target": self.p_target}
