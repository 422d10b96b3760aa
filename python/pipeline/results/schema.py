"""The schemas of the result files read back (docs/results-schema.md): a metrics file
(``<METHOD>/<DATASET>_fold<i>_<grid>_metrics.json``), an all-features reference
(``_reference/<DATASET>_fold<i>_all_features.json``), a ranking record (``..._ranking.json``) and a
tuning candidate's record (``..._candidates/<id>.json``), each declared once for every reader: the
runner deciding whether a result can be kept, and the tables, statistics, figures and reports that
read it.

Types are strict (a number is never a text or a boolean; a count is an integer), and the lists a
file holds must be aligned with its grid. A file that fails is refused with one
:class:`~pipeline.errors.DataError` line naming the file and the field: the runner then computes
the task again (``--skip-existing`` keeps only files that pass), the tables refuse it.

Only the metrics a newer evaluator added (:data:`~pipeline.evaluation.metrics.LATER_METRICS`) may be
absent, from files written before it computed them; :func:`absent_metrics` names them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictFloat, ValidationError,
                      create_model, model_validator)

from ..documents import read_result_file, refusal, schema_error
from ..errors import DataError
from ..evaluation.metrics import LATER_METRICS, METRIC_RANGES, METRICS

Real = Union[StrictInt, StrictFloat]  # a JSON number; a boolean is not one
Curve = list[Optional[Real]]  # aligned with the grid; null where a value is undefined
Count = Annotated[StrictInt, Field(ge=0)]
Seconds = Annotated[Real, Field(ge=0)]
#: The parts of a metrics file that belong to its settings: every file of one table must share them.
SETTINGS_FIELDS = ("grid", "mlknn")
#: The ``schema`` an all-features reference file and a tuning candidate's record declare.
ALL_FEATURES_SCHEMA = "all_features/1"
CANDIDATE_SCHEMA = "mlfs-bench/tuning-candidate/1"
#: The constant-feature check of the selections, written together.
SELECTION_FIELDS = ("n_constant_selected", "degenerate", "n_constant_features")


class _Record(BaseModel):
    """A result file: strict types for the declared keys, other keys kept as they are."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True, allow_inf_nan=False)


Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class CodeFingerprint(_Record):
    """The code that made a result: ``[path, sha256]`` pairs (``pipeline.runner.fingerprint``)."""

    files: list[Annotated[list[str], Field(min_length=2, max_length=2)]]
    #: how the files were hashed (``pipeline.limits.FINGERPRINT_SCHEME``); None before schemes were recorded
    scheme: Optional[str] = None

    def as_dict(self) -> dict:
        """The fingerprint as :func:`~pipeline.results.staleness.code_changed` compares it."""
        return {"files": self.files, "scheme": self.scheme}


class Provenance(_Record):
    """What a result was made from and by (the freshness checks compare these)."""

    fold_sha256: Optional[Digest] = None
    ranking_sha256: Optional[Digest] = None
    engine: Optional[str] = None
    evaluator: Optional[str] = None
    code: Optional[dict[str, Optional[CodeFingerprint]]] = None

    def evaluator_code(self) -> dict | None:
        fingerprint = (self.code or {}).get("evaluator")
        return None if fingerprint is None else fingerprint.as_dict()


class _MetricsFields(_Record):
    grid_mode: Literal["kgrid", "pgrid"]
    method: Optional[str] = None
    dataset: Optional[str] = None
    fold: Optional[StrictInt] = None
    k_values: Optional[list[StrictInt]] = None
    p_values: Optional[list[Real]] = None
    p_target: Optional[Real] = None
    time_rank_seconds: Optional[Seconds] = None
    n_constant_selected: Optional[list[StrictInt]] = None
    degenerate: Optional[list[StrictBool]] = None
    n_constant_features: Optional[Count] = None
    n_train: Optional[Count] = None
    n_test: Optional[Count] = None
    seeds: Optional[Annotated[list[StrictInt], Field(min_length=1)]] = None
    grid: Optional[dict[str, Optional[Real]]] = None
    mlknn: Optional[dict[str, Optional[Real]]] = None
    provenance: Optional[Provenance] = None
    content_sha256: Optional[Digest] = None

    @property
    def axis_key(self) -> str:
        return "k_values" if self.grid_mode == "kgrid" else "p_values"

    @property
    def axis(self) -> list:
        return getattr(self, self.axis_key)

    def value(self, key: str) -> Any:
        """The value of ``key``, declared or not (None when absent)."""
        return getattr(self, key) if key in type(self).model_fields else (self.model_extra or {}).get(key)

    def curve(self, metric: str) -> list | None:
        """The metric's curve, None if the file predates the metric."""
        return getattr(self, metric)

    @model_validator(mode="after")
    def _aligned(self) -> "_MetricsFields":
        axis = self.axis
        if not axis:
            raise refusal(self.axis_key, "a non-empty list of numbers (the grid)", axis)
        if any(getattr(self, key) is not None for key in SELECTION_FIELDS):
            for key in SELECTION_FIELDS:
                if getattr(self, key) is None:
                    raise refusal(key, f"the constant-feature check complete (all of {', '.join(SELECTION_FIELDS)})",
                                  None)
        for key in (*METRICS, *(f"{m}_seed_std" for m in METRICS), "k_values", "n_constant_selected", "degenerate"):
            value = getattr(self, key)
            if value is not None and len(value) != len(axis):
                raise refusal(key, f"a list aligned with the grid ({len(axis)} entries)", len(value))
        if self.seeds is not None:
            self._check_seed_spread()
        return self

    def _check_seed_spread(self) -> None:
        if len(set(self.seeds)) != len(self.seeds):
            raise refusal("seeds", "distinct seeds", self.seeds)
        for metric in METRICS:
            if self.curve(metric) is None:
                continue
            if f"{metric}_mean_seed_std" not in self.model_fields_set:
                raise refusal(f"{metric}_mean_seed_std", "the std over seeds of a seed-averaged file (a number "
                              "or null)", None)
            if getattr(self, f"{metric}_seed_std") is None:
                raise refusal(f"{metric}_seed_std", "the std over seeds per grid point of a seed-averaged file",
                              None)


def metric_curve(metric: str) -> Any:
    """The type of ``metric``'s curve: numbers within the metric's range (metrics.json), or null."""
    return list[Optional[Annotated[Real, METRIC_RANGES[metric].pydantic_field()]]]


def _metric_fields() -> dict[str, Any]:
    """Each metric's curve (required unless a later metric) and its seed spreads (optional)."""
    fields: dict[str, Any] = {}
    for metric in METRICS:
        fields[metric] = (metric_curve(metric), None if metric in LATER_METRICS else ...)
        fields[f"{metric}_seed_std"] = (Optional[Curve], None)
        fields[f"{metric}_mean_seed_std"] = (Optional[Real], None)
    return fields


MetricsFile = create_model("MetricsFile", __base__=_MetricsFields, **_metric_fields())
MetricsFile.__doc__ = "A metrics file as the runner writes it (docs/results-schema.md)."


def read_metrics_file(path: str | Path, grid: str | None = None) -> MetricsFile:
    """Read and validate one metrics file (of ``grid``, if given).

    Raises
    ------
    DataError
        One line naming the file and the field: unreadable, not an object, a value of the wrong
        type, a list not aligned with the grid, or another grid than ``grid``.
    """
    return _load_metrics(path, grid)[1]


def metrics_file_data(path: str | Path, grid: str | None = None) -> dict:
    """The JSON object of a metrics file that passes :func:`read_metrics_file`, as written."""
    return _load_metrics(path, grid)[0]


def _load_metrics(path: str | Path, grid: str | None) -> tuple[dict, MetricsFile]:
    data, record = _load(path, MetricsFile, "metrics file")
    if grid is not None and record.grid_mode != grid:
        raise DataError("wrong grid mode", file=path, field="grid_mode", expected=grid, found=record.grid_mode)
    return data, record


def _load(path: str | Path, model: type[_Record], what: str) -> tuple[dict, Any]:
    """The JSON object of ``path`` and its validation by ``model`` (DataError naming the field)."""
    data = read_result_file(path, what)
    if not isinstance(data, dict):
        raise DataError(f"{what} must hold a JSON object", file=path, found=type(data).__name__)
    try:
        return data, model.model_validate(data)
    except ValidationError as exc:
        raise schema_error(exc, data, model, file=path, error=DataError) from None


def settings_key(record: MetricsFile) -> str:
    """The settings results must share to be compared (the grid's and ML-kNN's), as canonical JSON."""
    settings = {}
    for key in SETTINGS_FIELDS:
        value = getattr(record, key)
        if value is not None:
            # p_target only picks the *_at_p_target fields, not the curves the tables read
            settings[key] = {name: v for name, v in value.items() if name != "p_target"}
    return json.dumps(settings, sort_keys=True)


def absent_metrics(record: MetricsFile) -> frozenset[str]:
    """The metrics the file predates (written before the evaluator computed them)."""
    return frozenset(m for m in METRICS if record.curve(m) is None)


class AllFeaturesFile(_Record):
    """An all-features reference file (ML-kNN on every feature of a fold)."""

    schema_name: Literal[ALL_FEATURES_SCHEMA] = Field(alias="schema")
    dataset: str
    fold: StrictInt
    mlknn: Optional[dict[str, Optional[Real]]] = None
    #: metric -> value (null where undefined); a metric the file predates is absent
    metrics: dict[str, Optional[Real]]
    provenance: Optional[Provenance] = None
    content_sha256: Optional[Digest] = None

    @model_validator(mode="before")
    @classmethod
    def _neighbours_named_num(cls, data: Any) -> Any:
        """Reference files written before the ML-kNN settings had one definition (:func:`~pipeline.results.layout.mlknn_settings`)
        named the neighbours ``k``: read as ``num``, so they compare equal and stay fresh."""
        mlknn = data.get("mlknn") if isinstance(data, dict) else None
        if isinstance(mlknn, dict) and "k" in mlknn and "num" not in mlknn:
            data = {**data, "mlknn": {("num" if key == "k" else key): value for key, value in mlknn.items()}}
        return data

    @model_validator(mode="after")
    def _metrics_in_range(self) -> "AllFeaturesFile":
        for metric, value in self.metrics.items():
            if metric in METRIC_RANGES and value is not None and not METRIC_RANGES[metric].admits(value):
                raise refusal(f"metrics.{metric}", f"a value {METRIC_RANGES[metric]}", value)
        return self


def read_all_features_file(path: str | Path) -> AllFeaturesFile:
    """Read and validate one all-features reference file (DataError naming the file and field)."""
    return _load(path, AllFeaturesFile, "all-features file")[1]


class WarningMessage(_Record):
    """One distinct warning message of a method call and how often it came."""

    text: str
    count: Count


class MethodWarnings(_Record):
    """The numerical warnings of the method call that computed a ranking (:mod:`pipeline.method_warnings`):
    their count, the most frequent distinct messages and how many distinct ones are not listed."""

    count: Count
    messages: list[WarningMessage]
    unlisted: Count


class RankingRecord(_Record):
    """What made a ranking (``_ranking.json``): its parameters, the training part it was computed
    from (its SHA-256), code, engine, what it reported and the numerical warnings of its call
    (None in records written before they were recorded)."""

    params: Optional[dict[str, Any]] = None
    training_sha256: Optional[Digest] = None
    ranking_sha256: Optional[Digest] = None
    selected_by: Optional[str] = None
    code: Optional[CodeFingerprint] = None
    engine: Optional[str] = None
    info: Optional[dict[str, Any]] = None
    warnings: Optional[MethodWarnings] = None

    def objective(self) -> list | None:
        """The objective trace the method reported (``info.objective``), if it is a list of numbers."""
        trace = (self.info or {}).get("objective")
        if not isinstance(trace, list) or not all(v is None or _is_number(v) for v in trace):
            return None
        return trace


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_ranking_record(path: str | Path) -> RankingRecord:
    """Read and validate one ranking record (DataError naming the file and field)."""
    return _load(path, RankingRecord, "ranking record")[1]


class CandidateSplit(_Record):
    """One inner split's scores of a tuning candidate: the criterion grid's entries and every metric."""

    split: StrictInt
    criterion: Optional[Real]
    k_values: list[StrictInt]
    p_values: Optional[list[Real]] = None
    time_rank_seconds: Seconds
    time_eval_seconds: Seconds


CandidateSplitScores = create_model("CandidateSplitScores", __base__=CandidateSplit,
                                    **{metric: (metric_curve(metric), ...) for metric in METRICS})


class CandidateRecord(_Record):
    """A tuning candidate's record (docs/tuning.md): what it was scored with, and its inner scores."""

    schema_name: Literal[CANDIDATE_SCHEMA] = Field(alias="schema")
    params: dict[str, Any]
    training_sha256: Digest
    tuning: dict[str, Any]
    mlknn: dict[str, Any]
    evaluator: str
    code: dict[str, CodeFingerprint]
    inner_splits: list[Any]
    splits: list[CandidateSplitScores]
    criterion: Optional[Real]
    failed: Optional[str] = None


def candidate_file_data(path: str | Path) -> dict:
    """The JSON object of a tuning candidate's record that passes :class:`CandidateRecord`."""
    return _load(path, CandidateRecord, "candidate record")[0]


def read_candidate_file(path: str | Path) -> CandidateRecord:
    """Read and validate one tuning candidate's record (DataError naming the file and field)."""
    return _load(path, CandidateRecord, "candidate record")[1]
