"""The schema of an experiment (a suite file, docs/paper.md, or the options of ``pipeline.kgrid``,
``pgrid`` and ``evaluate``): every key, its type and its range, declared once.

Booleans, integers and numbers are strict (``"false"``, ``"no"``, ``3.0`` for an integer and ``1e9``
for a count are refused, never converted); every mapping refuses keys it does not declare; paths of
what a suite file says a run writes are relative and stay under ``--root``, but ``folds.dir`` may
also be an absolute path from which existing folds are only read (paths given on a command
line are used as given: validated with the context :data:`PATHS_AS_GIVEN`). The tuning declarations
(``tuning:`` and each method's ``tune:``, docs/tuning.md) are declared here too. Checks that need the registries
(method names, parameter names and value types, fold and grid consistency) follow in
:mod:`pipeline.experiment.model`.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated, Any, Literal

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictFloat, StrictInt,
                      ValidationInfo, field_validator, model_validator)

from ..results.layout import GRIDS
from ..data.splits import SPLIT_MODES
from ..definitions import RUN_OPTION_DEFAULTS
from ..documents import missing, refusal
from ..engines import ENGINES, EVALUATORS
from ..evaluation.metrics import METRICS
from ..limits import (CLAIM_STALE_AFTER, DEFAULT_MAX_TASKS, DEFAULT_TASK_MEMORY, DEFAULT_TASK_TIMEOUT, FOLD_COUNT,
                      JOB_COUNT, MAX_PATH_CHARS, RUN_OPTION_RANGES, SEED_RANGE, TABLE_WIDTH_PT, TASK_COUNT, TASK_MEMORY,
                      TASK_TIMEOUT, parse_memory_size)
from ..report.layout import COLUMN_COUNTS, FONT_SIZES, LAYOUTS, PAPER_SIZES
from ..runner.claims import DEFAULT_STALE_AFTER
from ..runner.executors import EXECUTORS
from ..stats.fold_tests import FOLD_TESTS

#: The validation context of an experiment built from command-line options: its paths are the user's
#: own (absolute or relative to the working directory), not relative to a suite's ``--root``.
PATHS_AS_GIVEN = {"paths": "as given"}
#: A Dask scheduler address: protocol://host[:port] (tcp, tls, ucx, ws, wss, inproc).
SCHEDULER_ADDRESS = re.compile(r"(tcp|tls|ucx|ws|wss|inproc)://[A-Za-z0-9._\-\[\]:]{1,253}(:[0-9]{1,5})?")


def _scheduler_address(text: str) -> str:
    if not SCHEDULER_ADDRESS.fullmatch(text):
        raise ValueError("a scheduler address such as tcp://HOST:PORT")
    return text


def _relative_path(text: str, info: ValidationInfo) -> str:
    """A path of what a run writes: relative, without ``..``, so it stays under ``--root``."""
    if not text or len(text) > MAX_PATH_CHARS or "\0" in text:
        raise ValueError(f"a relative path of 1 to {MAX_PATH_CHARS} characters")
    if info.context == PATHS_AS_GIVEN:
        return text
    posix, windows = PurePosixPath(text), PureWindowsPath(text)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or text.startswith("~"):
        raise ValueError("a path relative to --root (an absolute path would write outside it)")
    if ".." in posix.parts or ".." in windows.parts:
        raise ValueError("a path relative to --root without '..' (it would write outside it)")
    return text


def _folds_dir(text: str, info: ValidationInfo) -> str:
    """``folds.dir``: a path relative to --root (the folds may be exported there), or an absolute path
    anywhere, from which existing folds are only read (:meth:`pipeline.paper.run.PaperPaths.check_folds_written`
    refuses an export outside --root)."""
    if text and len(text) <= MAX_PATH_CHARS and "\0" not in text and Path(text).is_absolute():
        return text
    return _relative_path(text, info)


WrittenPath = Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS), AfterValidator(_relative_path)]
FoldsDir = Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS), AfterValidator(_folds_dir)]
Name = Annotated[str, Field(min_length=1, max_length=128)]
Seed = Annotated[int, SEED_RANGE.pydantic_field()]
FoldCount = Annotated[int, FOLD_COUNT.pydantic_field()]


def _run_option(kind: type, name: str) -> Any:
    """The type of a run option (``mlknn_k``, ``k_min``, ...) with its range from definitions.json."""
    return Annotated[kind, RUN_OPTION_RANGES[name].pydantic_field()]


class Section(BaseModel):
    """A mapping of declared keys with strict types and no others."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)


class FoldsSection(Section):
    """How the folds are made (``holdout``, ``kfold``: exported into ``dir``), or ``files``: fold files
    already in ``dir``, every one present or (``count``) folds 0..count-1, which must all exist."""

    dir: FoldsDir = "data/paper_matlab_minmax"
    mode: Literal["holdout", "kfold", "files"]
    count: FoldCount | None = None
    seed: Seed | None = None
    test_size: Literal["reference"] | Annotated[float, Field(gt=0, lt=1)] | None = "reference"
    scaler: Literal["minmax", "zscore", "none"] = "minmax"
    clip_test: bool = False

    @model_validator(mode="after")
    def _settings_of_the_mode(self) -> "FoldsSection":
        """An export needs its count and seed; fold files take no export settings."""
        if self.mode == "files":
            export_keys = sorted(self.model_fields_set - {"dir", "mode", "count"})
            if export_keys:
                raise refusal(export_keys[0], "no export settings with mode files (the fold files exist)",
                              getattr(self, export_keys[0]))
            return self
        for key in ("count", "seed"):
            if getattr(self, key) is None:
                raise missing(key)
        return self


def _candidate_list(values: list) -> list:
    """Non-empty; the model refuses a value listed twice (1 and 1.0 too, as in a sweep)."""
    if not values:
        raise ValueError("a non-empty list of candidate values")
    return values


#: A candidate value of a tuned parameter; its type and range are the method's (checked by the suite).
CandidateValue = StrictBool | StrictInt | StrictFloat | Annotated[str, Field(max_length=1000)]
Candidates = Annotated[list[CandidateValue], AfterValidator(_candidate_list)]


class MethodSection(Section):
    external: bool = False  # rankings made elsewhere, under RESULTS/NAME/ (then the only key)
    params: dict[Any, Any] = Field(default_factory=dict)  # any key: the method names the unknown ones
    #: Values per parameter, each combination run as its own method variant (results folder
    #: ``METHOD__name_value__...``); checked by the model, which counts them before expanding.
    sweep: dict[Any, Any] = Field(default_factory=dict)
    seeds: Annotated[list[Seed], Field(max_length=1000)] = Field(default_factory=list)
    #: Candidate values per parameter, tuned on inner splits; the candidates are their Cartesian product.
    tune: dict[Name, Candidates] | None = None

    @field_validator("tune")
    @classmethod
    def _tuned_parameters(cls, tune: dict | None, info: ValidationInfo) -> dict | None:
        """``seed`` is never tuned (random starts are ``seeds``), nor a parameter ``params`` fixes."""
        if tune == {}:
            raise ValueError("at least one parameter with its candidate values")
        for name, values in (tune or {}).items():
            if name == "seed":
                raise refusal(name, "a parameter other than seed (list random starts under seeds)", values)
            if name in info.data.get("params", {}):
                raise refusal(name, f"a parameter not fixed in params ({name} is both fixed and tuned)", values)
        return tune


class MlknnSection(Section):
    k: _run_option(int, "mlknn_k") = RUN_OPTION_DEFAULTS["mlknn_k"]
    smooth: _run_option(float, "mlknn_smooth") = RUN_OPTION_DEFAULTS["mlknn_smooth"]


class KGridSection(Section):
    k_min: _run_option(int, "k_min") = RUN_OPTION_DEFAULTS["k_min"]
    k_max: _run_option(int, "k_max") = RUN_OPTION_DEFAULTS["k_max"]
    k_step: _run_option(int, "k_step") = RUN_OPTION_DEFAULTS["k_step"]


class PGridSection(Section):
    p_min: _run_option(float, "p_min") = RUN_OPTION_DEFAULTS["p_min"]
    p_max: _run_option(float, "p_max") = RUN_OPTION_DEFAULTS["p_max"]
    p_step: _run_option(float, "p_step") = RUN_OPTION_DEFAULTS["p_step"]
    p_target: _run_option(float, "p_target") = RUN_OPTION_DEFAULTS["p_target"]


class GridsSection(Section):
    kgrid: KGridSection | None = None
    pgrid: PGridSection | None = None


#: The inner validation share of a hold-out when the suite does not give one.
DEFAULT_INNER_TEST_SIZE = 0.25


class InnerSplitsSection(Section):
    """``tuning.inner``: the splits of each outer training part the candidates are scored on."""

    mode: Literal[SPLIT_MODES]  # type: ignore[valid-type]
    count: FoldCount
    seed: Seed = 0
    test_size: Annotated[float, Field(gt=0, lt=1)] = DEFAULT_INNER_TEST_SIZE  # the validation share (holdout)

    @field_validator("count")
    @classmethod
    def _two_folds_for_kfold(cls, count: int, info: ValidationInfo) -> int:
        if info.data.get("mode") == "kfold" and count < 2:
            raise ValueError("at least 2 folds for mode kfold")
        return count

    @field_validator("test_size")
    @classmethod
    def _holdout_only(cls, test_size: float, info: ValidationInfo) -> float:
        if info.data.get("mode") == "kfold":
            raise ValueError("no test_size with mode kfold (it applies to holdout only)")
        return test_size


class CriterionSection(Section):
    """``tuning.criterion``: what a candidate is chosen by (the grid must be one the suite declares)."""

    metric: Literal[METRICS]  # type: ignore[valid-type]
    grid: Literal[GRIDS]  # type: ignore[valid-type]
    at: Literal["mean", "p_target"] = "mean"  # the mean over the grid, or (p-grid) the value at p_target

    @field_validator("at")
    @classmethod
    def _p_target_on_the_p_grid(cls, at: str, info: ValidationInfo) -> str:
        if at == "p_target" and info.data.get("grid") != "pgrid":
            raise ValueError("'mean' (p_target applies to grid pgrid only)")
        return at


class TuningSection(Section):
    inner: InnerSplitsSection
    criterion: CriterionSection


class SlurmClusterSection(Section):
    """The SLURM jobs of a Dask cluster (``dask_jobqueue.SLURMCluster``; docs/cluster.md): each job
    asks for ``cores`` cores and runs one single-threaded Dask worker process per core."""

    cores: Annotated[int, Field(ge=1, le=1024)] = 1
    memory: Annotated[str, Field(pattern=r"^[0-9]+(\.[0-9]+)?\s*[KMGT]i?B$")] = "4GB"
    walltime: Annotated[str, Field(pattern=r"^([0-9]+-)?[0-9]+(:[0-9]+){0,2}$")] = "01:00:00"
    queue: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    account: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    #: more ``#SBATCH`` options, e.g. ``--constraint=intel``
    job_extra_directives: Annotated[list[Annotated[str, Field(min_length=1, max_length=500)]],
                                    Field(max_length=50)] = Field(default_factory=list)
    #: shell lines run in each job before the worker starts (``module load``, ``source venv/bin/activate``)
    job_script_prologue: Annotated[list[Annotated[str, Field(min_length=1, max_length=2000)]],
                                   Field(max_length=50)] = Field(default_factory=list)


class ClusterSection(Section):
    """A Dask cluster the run starts itself (``executor: dask``); ``jobs`` is its number of workers."""

    slurm: SlurmClusterSection


class RunSection(Section):
    results_dir: WrittenPath | None = None
    executor: Literal[EXECUTORS] = "process"  # type: ignore[valid-type]
    jobs: Literal["auto"] | Annotated[int, JOB_COUNT.pydantic_field()] = "auto"
    task_timeout: Annotated[float, TASK_TIMEOUT.pydantic_field()] = DEFAULT_TASK_TIMEOUT
    #: Bytes each process of a task may grow by: ``8GiB``, ``512MiB`` or a whole number of bytes.
    task_memory: Annotated[int, BeforeValidator(parse_memory_size), TASK_MEMORY.pydantic_field()] | None = \
        DEFAULT_TASK_MEMORY
    #: Keep fresh results (a suite always resumes); ``overwrite`` recomputes even those.
    skip_existing: bool = True
    overwrite: bool = False
    scheduler: Annotated[str, AfterValidator(_scheduler_address)] | None = None
    cluster: ClusterSection | None = None
    claim_stale_after: Annotated[float, CLAIM_STALE_AFTER.pydantic_field()] = DEFAULT_STALE_AFTER
    max_tasks: Annotated[int, TASK_COUNT.pydantic_field()] = DEFAULT_MAX_TASKS
    progress: bool = True

    @model_validator(mode="after")
    def _cluster_on_dask(self) -> "RunSection":
        if self.cluster is not None and (self.executor != "dask" or self.scheduler is not None):
            raise ValueError("cluster needs executor: dask and no scheduler (the run starts the cluster itself)")
        return self

    @field_validator("overwrite")
    @classmethod
    def _not_both(cls, overwrite: bool, info: ValidationInfo) -> bool:
        if overwrite and info.data.get("skip_existing"):
            raise ValueError("false when skip_existing is true (keep fresh results, or recompute them all)")
        return overwrite


class TablesSection(Section):
    out_dir: WrittenPath = "paper/tables"
    ref_method: Name | None = None
    display_map: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)] | None = None
    metrics: Annotated[list[Literal[METRICS]], Field(min_length=1)] | None = None  # type: ignore[valid-type]
    figures: bool = True
    fold_test: Literal[FOLD_TESTS] = FOLD_TESTS[0]  # type: ignore[valid-type]
    # The document's layout: report.options.DOCUMENT_OPTIONS, the command line's choices and defaults.
    columns: Literal[COLUMN_COUNTS] = COLUMN_COUNTS[0]  # type: ignore[valid-type]
    paper_size: Literal[PAPER_SIZES] = PAPER_SIZES[0]  # type: ignore[valid-type]
    font_size: Literal[FONT_SIZES] = FONT_SIZES[0]  # type: ignore[valid-type]
    layout: Literal[LAYOUTS] = LAYOUTS[0]  # type: ignore[valid-type]
    table_width: Annotated[float, TABLE_WIDTH_PT.pydantic_field()] | None = None
    fit_width: bool = True
    pdf: bool = False


class SuiteFile(Section):
    """A whole suite file (the top level)."""

    name: Name
    description: Annotated[str, Field(max_length=10_000)] = ""
    plugins: Annotated[list[Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]],
                       Field(max_length=100)] = Field(default_factory=list)  # read: relative to the suite file
    datasets: Annotated[list[Name], Field(min_length=1, max_length=1000)] | None = None  # None: discovered (files)
    folds: FoldsSection
    methods: Annotated[dict[Name, MethodSection | None], Field(min_length=1, max_length=100)]
    engine: Literal[ENGINES] = "octave"  # type: ignore[valid-type]
    evaluator: Literal[EVALUATORS] = "native"  # type: ignore[valid-type]
    mlknn: MlknnSection = Field(default_factory=MlknnSection)
    grids: GridsSection
    run: RunSection = Field(default_factory=RunSection)
    tables: TablesSection | None = Field(default_factory=TablesSection)  # None: no tables (the CLIs)
    tuning: TuningSection | None = None
    #: Every method's rankings are given (``evaluate``): never ranked, no all-features reference, and
    #: without named datasets only the (dataset, fold)s that have a ranking are scored.
    score_only: bool = False

    @model_validator(mode="after")
    def _datasets_of_exported_folds(self) -> "SuiteFile":
        """Only fold files already there can be discovered; exported folds need their datasets named."""
        if self.datasets is None and self.folds.mode != "files":
            raise missing("datasets")
        return self
