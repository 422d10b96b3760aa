"""Tasks and grids: the data a run is made of.

A :class:`Task` is one (method, dataset, fold[, parameter overrides]) unit; a :class:`GridSpec`
says which feature counts ML-kNN is scored on. Both are frozen and picklable, so executors can
ship them to worker processes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..definitions import RUN_OPTION_DEFAULTS
from ..errors import ConfigError
from ..evaluation.grids import p_grid, p_share
from ..names import validate_name
from ..results.layout import REFERENCE_FOLDER
from ..validation import is_integer, shorten


#: The kinds of task (see :attr:`Task.stage`).
TASK_STAGES = ("", "candidate", "tuned")


@dataclass(frozen=True)
class Task:
    """One unit of work.

    Attributes
    ----------
    method : str
        Registry name of the method, or :data:`~pipeline.results.layout.REFERENCE_FOLDER` for the
        all-features reference (:mod:`pipeline.runner.reference`).
    dataset : str
        Dataset folder name under the data directory.
    fold : int
        Fold index i (file ``fold{i}.mat``).
    params_json : str
        The method's parameter overrides as canonical JSON (``"{}"`` for the defaults).
    label : str
        Results sub-folder; the method name unless a parameter sweep names its variants.
    stage : str
        ``""`` for an ordinary task; ``"candidate"`` for one candidate of a tuned method, scored on
        the inner splits of the fold's training part (:mod:`pipeline.runner.tuning`); ``"tuned"``
        for the final ranking of a tuned method with the parameters inner validation chose.
    """

    method: str
    dataset: str
    fold: int
    params_json: str = "{}"
    label: str = ""
    stage: str = ""

    def __post_init__(self):
        if self.method != REFERENCE_FOLDER or self.label:
            validate_name(self.method, "method")
            validate_name(self.label or self.method, "method label")
        validate_name(self.dataset, "dataset")
        if not is_integer(self.fold) or self.fold < 0:
            raise ConfigError("fold index must be an integer >= 0", field="fold", found=repr(self.fold))
        try:
            overrides = json.loads(self.params_json)
        except (TypeError, ValueError):
            overrides = None
        if not isinstance(overrides, dict):
            raise ConfigError("task parameters must be a JSON object", field="params_json",
                              found=shorten(self.params_json))
        if self.stage not in TASK_STAGES:
            raise ConfigError("unknown task stage", field="stage", expected=list(TASK_STAGES), found=repr(self.stage))

    @property
    def folder(self) -> str:
        return self.label or self.method

    @property
    def overrides(self) -> dict[str, Any]:
        return json.loads(self.params_json)

    @property
    def key(self) -> str:
        base = f"{self.folder}/{self.dataset}/fold{self.fold}"
        return f"{base} candidate {self.params_json}" if self.stage == "candidate" else base

def canonical_params(params: dict[str, Any]) -> str:
    """Canonical JSON text of a parameter dict (sorted keys), used in task identities."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class GridSpec:
    """The feature-count grid ML-kNN is evaluated on.

    ``mode="kgrid"``: k = k_min, k_min+k_step, ... ≤ min(k_max, d).
    ``mode="pgrid"``: p = p_min ... p_max (step p_step), k = round-half-even(p·d) clipped to [1, d];
    tables use ``p_target``.

    Every field is checked on creation (ConfigError naming it): k values are integers >= 1 with
    k_min <= k_max; p_min, p_max, p_step and p_target lie in (0, 1] with p_min <= p_max, and the
    p-grid has at most :data:`MAX_GRID_POINTS` points.
    """

    mode: str = "kgrid"
    k_min: int = RUN_OPTION_DEFAULTS["k_min"]
    k_max: int = RUN_OPTION_DEFAULTS["k_max"]
    k_step: int = RUN_OPTION_DEFAULTS["k_step"]
    p_min: float = RUN_OPTION_DEFAULTS["p_min"]
    p_max: float = RUN_OPTION_DEFAULTS["p_max"]
    p_step: float = RUN_OPTION_DEFAULTS["p_step"]
    p_target: float = RUN_OPTION_DEFAULTS["p_target"]
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if self.mode not in ("kgrid", "pgrid"):
            raise ConfigError(f"grid mode must be 'kgrid' or 'pgrid', got {self.mode!r}")
        for name in ("k_min", "k_max", "k_step"):
            value = getattr(self, name)
            if not is_integer(value) or value < 1:
                raise ConfigError("must be a positive integer", field=name, found=repr(value))
        if self.k_min > self.k_max:
            raise ConfigError("k_min is larger than k_max", field="k_min",
                              expected=f"<= k_max = {self.k_max}", found=repr(self.k_min))
        p_share(self.p_target, "p_target")
        p_grid(self.p_min, self.p_max, self.p_step)  # checks p_min, p_max, p_step and the grid's size

    def describe(self) -> dict[str, Any]:
        """The grid settings as written into result files and manifests."""
        if self.mode == "kgrid":
            return {"k_min": self.k_min, "k_max": self.k_max, "k_step": self.k_step}
        return {"p_min": self.p_min, "p_max": self.p_max, "p_step": self.p_step, "p_target": self.p_target}

