"""What a benchmark report is made from and how it looks: the options of ``python -m pipeline.tables``.

:class:`ReportOptions` is checked once, when it is made, whoever makes it (the command line,
:mod:`pipeline.report_api`, ``pipeline.paper run``); a refused value is a ConfigError naming the
command-line option (``--jobs``), so every front door says the same thing.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import MISSING, dataclass, field, fields, replace
from numbers import Integral, Real
from pathlib import Path

from ..results.layout import GRIDS
from ..cli import check_option_bounds
from ..documents import CONFIG_LIMITS, read_document
from ..errors import ConfigError
from ..evaluation.metrics import METRICS
from ..limits import (FOLD_COUNT, JOB_COUNT, MAX_CAPTION_NOTE_CHARS, MAX_DISPLAY_MAP_ENTRIES, RUN_OPTION_RANGES,
                      TABLE_WIDTH_PT)
from ..validation import option_range
from ..stats.fold_tests import FOLD_TESTS
from .layout import COLUMN_COUNTS, FONT_SIZES, LAYOUTS, PAGE_OPTIONS, PAPER_SIZES, Page


def plotly_installed() -> bool:
    """Whether the results explorer can be written (plotly is the optional extra ``explorer``)."""
    return importlib.util.find_spec("plotly") is not None


#: Largest display map read (the paper's has a few dozen entries of a few bytes each).
DISPLAY_MAP_LIMITS = replace(CONFIG_LIMITS, max_bytes=256 << 10, max_depth=1, max_string_chars=200)
#: Ranges of the numeric options.
OPTION_BOUNDS = {"--folds": FOLD_COUNT, "--jobs": JOB_COUNT, "--bayesian-rope": option_range(0, 1e6),
                 "--p-target": RUN_OPTION_RANGES["p_target"], "--table-width": TABLE_WIDTH_PT}
#: Values an option may take (the command line offers the same choices).
CHOICES = {"metrics": METRICS, "grid": GRIDS, "layout": LAYOUTS, "columns": COLUMN_COUNTS, "paper_size": PAPER_SIZES,
           "font_size": FONT_SIZES, "fold_test": FOLD_TESTS}
#: The options of the document's layout a suite's ``tables:`` section takes too, under the same names.
DOCUMENT_OPTIONS = ("columns", "paper_size", "font_size", "layout", "table_width", "fit_width", "pdf")


def read_display_map(path: str | Path | None) -> dict[str, str]:
    """Load ``{"internal name": "Display Name", ...}`` (strict JSON, at most 256 KiB and
    :data:`MAX_DISPLAY_MAP_ENTRIES` entries); keys and values must be non-empty strings of at most
    200 characters."""
    if path is None:
        return {}
    path = Path(path)
    obj = read_document(path, "display map", limits=DISPLAY_MAP_LIMITS, kind="json")
    if not isinstance(obj, dict):
        raise ConfigError("display map must be a JSON object", file=path,
                          expected='{"name": "Display Name"}', found=type(obj).__name__)
    if len(obj) > MAX_DISPLAY_MAP_ENTRIES:
        raise ConfigError("display map has too many entries", file=path,
                          expected=f"at most {MAX_DISPLAY_MAP_ENTRIES}", found=len(obj))
    for key, value in obj.items():
        if not isinstance(value, str) or not value.strip() or not key:
            raise ConfigError("display map entries must map a name to a non-empty string", file=path,
                              field=key, found=repr(value))
    return obj


@dataclass(frozen=True)
class ReportOptions:
    """Every option of one report; the field ``x_y`` is the command-line option ``--x-y``.

    Paths are kept as text, names as lists; numbers written as text (``jobs="2"``) are read as the
    command line reads them. See ``python -m pipeline.tables --help`` for what each option means.
    """

    results_dir: str
    ref_method: str
    methods: list[str] | None = None
    datasets: list[str] | None = None
    metrics: list[str] | None = None
    out_dir: str = "paper/tables"
    display_map: str | None = None
    grid: str = "kgrid"
    p_target: float = 0.2
    folds: int | None = None
    separate_settings: bool = False
    allow_incomplete: bool = False
    label_suffix: str = ""
    caption_note: str = ""
    bayesian_rope: float | None = None
    fold_test: str = FOLD_TESTS[0]
    fit_width: bool = True
    layout: str = LAYOUTS[0]
    columns: int = COLUMN_COUNTS[0]
    paper_size: str = PAPER_SIZES[0]
    font_size: str = FONT_SIZES[0]
    table_width: float | None = None
    folds_dir: str | None = None
    pdf: bool = False
    include_tables: list[str] = field(default_factory=list)
    seed_spread: bool = False
    no_figures: bool = False
    jobs: int = 1
    all_curve_metrics: bool = False

    def __post_init__(self):
        for option in fields(self):
            value = getattr(self, option.name)
            if value is not None or option.default is not None:
                object.__setattr__(self, option.name, _typed(option.name, option.type, value))
        for name, allowed in CHOICES.items():
            for value in _as_list(getattr(self, name)):
                if value is not None and value not in allowed:
                    raise ConfigError("invalid choice", field=option_name(name), expected=f"one of {list(allowed)}",
                                      found=value)
        self._check_values()

    @property
    def page(self) -> Page:
        """The document the tables are laid out for and the figures drawn for."""
        return Page(**{name: getattr(self, name) for name in PAGE_OPTIONS})

    def with_out_dir(self, out_dir: str | Path) -> "ReportOptions":
        return replace(self, out_dir=str(out_dir))

    def _check_values(self) -> None:
        """Refuse values that would fail later (or silently) with a one-line ConfigError."""
        check_option_bounds(self, OPTION_BOUNDS)
        for option in fields(self):  # --methods, --datasets, --metrics: left out means all, never none
            if option.type.startswith("list") and option.default is None and getattr(self, option.name) == []:
                raise ConfigError("names nothing: give at least one, or leave it out for all",
                                  field=option_name(option.name), found="[]")
        if self.metrics and len(set(self.metrics)) != len(self.metrics):
            raise ConfigError("--metrics lists a metric twice", field="--metrics", found=self.metrics)
        if len(self.caption_note) > MAX_CAPTION_NOTE_CHARS:
            raise ConfigError("--caption-note is too long", field="--caption-note",
                              expected=f"at most {MAX_CAPTION_NOTE_CHARS} characters", found=len(self.caption_note))
        if self.label_suffix:
            from .tables import check_label  # imports the tables and SciPy's statistics (about 1 s of every start)
            try:
                check_label(self.label_suffix)
            except ValueError:
                raise ConfigError("--label-suffix may hold letters, digits and : _ . + - only",
                                  field="--label-suffix", found=repr(self.label_suffix)) from None


#: The default of each option that has one (the command line's defaults).
DEFAULTS = {option.name: option.default if option.default is not MISSING else option.default_factory()
            for option in fields(ReportOptions) if (option.default, option.default_factory) != (MISSING, MISSING)}

#: The options that take a list of names or folders.
LIST_OPTIONS = frozenset(option.name for option in fields(ReportOptions) if option.type.startswith("list"))


def option_name(name: str) -> str:
    """The command-line option of the field ``name`` (``p_target`` -> ``--p-target``)."""
    return "--" + name.replace("_", "-")


def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def _typed(name: str, annotation: str, value):
    """``value`` as the field's type, read as the command line reads its text; ConfigError otherwise."""
    if annotation.startswith("list"):
        if isinstance(value, (list, tuple)):
            return [_text(name, item) for item in value]
        raise ConfigError("must be a list of names", field=option_name(name), found=repr(value))
    if annotation.startswith("bool"):
        if isinstance(value, bool):
            return value
        raise ConfigError("must be True or False", field=option_name(name), found=repr(value))
    if annotation.startswith("str"):
        return _text(name, value)
    number, accepted = (int, Integral) if annotation.startswith("int") else (float, Real)
    if isinstance(value, bool) or not isinstance(value, (str, accepted)):
        raise ConfigError(f"invalid {number.__name__} value: {value!r}", field=option_name(name))
    try:
        return number(value)
    except ValueError:
        raise ConfigError(f"invalid {number.__name__} value: {value!r}", field=option_name(name)) from None


def _text(name: str, value) -> str:
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise ConfigError("must be text or a path", field=option_name(name), found=repr(value))
