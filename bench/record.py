"""The performance record: every bench script's figures, with their spread and the run's context.

A bench script measures each figure several times and records, through :class:`BenchRun`, the
median with its minimum, maximum and number of runs, its unit, and the figures of its peers
(another implementation, or the previous way) measured in the same run with the ratio
peer / figure. The run's context (UTC date, git commit, CPU model, cores, memory, load average
before and after, Python / NumPy / Octave versions and the BLAS Octave uses) is recorded once per
run. ``bench/results.json`` keeps one entry per script; a run replaces its own script's entry and
nothing else, under a lock and with an atomic write, so two scripts can record at the same time.
``bench/render_performance.py`` turns the record into the "Latest measurements" section of
docs/performance.md.

Use in a bench script (``bench/`` is on ``sys.path`` when the script runs)::

    from record import BenchRun, measure

    with BenchRun(__file__) as run:
        ours, result = measure(evaluate, fold, repeats=3)
        peer, _ = measure(peer_evaluate, fold, repeats=3)
        run.figure("evaluate, one fold (n 4000, d 600)", ours, "s", peers={"peer tool 1.0": peer})

Nothing is written if the block raises. The record's format is checked by :func:`validate_record`
(see docs/benchmarks.md).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import math
import os
import platform
import re
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence, Union

from pipeline.errors import ConfigError, DataError
from pipeline.fileio import atomic_write_json
from pipeline.engines.octave import describe_octave
from pipeline.runner import fingerprint
from pipeline.runner.history import NUMERICS_ENVIRONMENT

REPO = Path(__file__).resolve().parents[1]


def traced_peak_mib(function, *args) -> float:
    """Peak of the allocations traced during ``function(*args)``, in MiB (a run of its own)."""
    tracemalloc.start()
    try:
        function(*args)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def shared_data(sub: str) -> Path:
    """``$MLFS_SHARED_DATA/<sub>``, else ``../shared/data/<sub>`` beside the repository (as the tests)."""
    return Path(os.environ.get("MLFS_SHARED_DATA", REPO.parent / "shared" / "data")) / sub
RECORD_PATH = Path(__file__).with_name("results.json")
#: The page whose "Latest measurements" section bench/render_performance.py makes from the record.
PERFORMANCE_PAGE = REPO / "docs" / "performance.md"
RECORD_VERSION = 1
#: Files a bench run writes itself: their changes do not make the measured code "dirty".
OWN_OUTPUTS = ("bench/results.json", PERFORMANCE_PAGE.relative_to(REPO).as_posix())
MAX_NAME_CHARACTERS = 200
#: A record key: a bench script's stem, or a name a script gives a partial run of its own.
SCRIPT_NAME = re.compile(r"[A-Za-z0-9_]{1,100}", re.ASCII)
#: The entries a script records instead of its own when it runs less than its full workload, or
#: beside it for a part of its own (bench_growth's evaluator).
PARTIAL_RUNS = {"bench_paper": ("bench_paper_subset",),
                "bench_information_filters": ("bench_information_filters_engine_only",),
                "bench_growth": ("bench_growth_quick", "bench_growth_evaluator")}


@dataclass(frozen=True)
class Measurement:
    """Repeated observations of one quantity.

    Parameters
    ----------
    samples : tuple of float, shape (repeats,)
        One value per run, in the figure's unit; finite, at least one.
    """

    samples: tuple[float, ...]

    def __post_init__(self):
        samples = tuple(float(x) for x in self.samples)
        if not samples or not all(math.isfinite(x) for x in samples):
            raise ConfigError("a measurement needs at least one finite sample", field="samples",
                              found=list(self.samples))
        object.__setattr__(self, "samples", samples)

    @property
    def value(self) -> float:
        """The median of the samples (the figure shown)."""
        return statistics.median(self.samples)

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)

    @property
    def repeats(self) -> int:
        return len(self.samples)

    def scaled(self, factor: float) -> "Measurement":
        """The same runs in another unit or extrapolated to a larger workload (``x * factor``)."""
        return Measurement(tuple(x * factor for x in self.samples))

    def as_dict(self) -> dict:
        return {"value": self.value, "min": self.low, "max": self.high, "repeats": self.repeats}


Measured = Union[Measurement, float, Sequence[float]]


def as_measurement(measured: Measured) -> Measurement:
    """A :class:`Measurement` from itself, one number (one run) or a sequence of runs."""
    if isinstance(measured, Measurement):
        return measured
    if isinstance(measured, (int, float)):
        return Measurement((measured,))
    return Measurement(tuple(measured))


def measure(function: Callable, *args, repeats: int = 3, warm_up: bool = False,
            **kwargs) -> tuple[Measurement, object]:
    """Wall seconds of ``repeats`` calls of ``function(*args, **kwargs)`` and the last call's result.

    ``warm_up`` makes one untimed call first (imports, compilation, caches).
    """
    if repeats < 1:
        raise ConfigError("repeats must be at least 1", field="repeats", found=repeats)
    if warm_up:
        function(*args, **kwargs)
    seconds, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args, **kwargs)
        seconds.append(time.perf_counter() - start)
    return Measurement(tuple(seconds)), result


def format_number(value: float) -> str:
    """Three significant digits without exponent: 0.0123, 1.23, 12.3, 123, 1,234."""
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    if size >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def format_measurement(entry: Mapping, unit: str) -> str:
    """``"0.70 s (0.68–0.75, 3 runs)"`` from a figure's or peer's ``value/min/max/repeats``."""
    text = f"{format_number(entry['value'])} {unit}"
    if entry["repeats"] == 1:
        return f"{text} (1 run)"
    return f"{text} ({format_number(entry['min'])}–{format_number(entry['max'])}, {entry['repeats']} runs)"


class BenchRun:
    """One run of a bench script: collects its figures and writes them with the run's context.

    Parameters
    ----------
    script : str or Path
        The bench script (pass ``__file__``); its stem is the key in the record.
    record_path : Path
        The record to update (default ``bench/results.json``).
    entry : str, optional
        The key instead of the stem, for a run that measures less than the script's full workload
        (so it does not replace the full run's figures).
    """

    def __init__(self, script: str | Path, record_path: str | Path = RECORD_PATH, entry: str | None = None):
        self.script = entry or Path(script).stem
        if not SCRIPT_NAME.fullmatch(self.script):
            raise ConfigError("a bench script's name is letters, digits and _ only", field="script",
                              found=self.script)
        self.record_path = Path(record_path)
        self.figures: list[dict] = []
        #: Structured results beside the figures (JSON values), kept under the entry's ``data``.
        self.data: dict = {}
        self._started: dt.datetime | None = None
        self._load_before: tuple[float, ...] = ()

    def __enter__(self) -> "BenchRun":
        self._started = dt.datetime.now(dt.timezone.utc)
        self._load_before = os.getloadavg()
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        if exc_type is None:
            self.save()

    def figure(self, name: str, measured: Measured, unit: str, *,
               peers: Mapping[str, Measured] | None = None) -> dict:
        """Record one figure (and print it): ``measured`` in ``unit``, and each peer's runs, same unit.

        The ratio stored with each peer is peer / figure (medians): above 1 when the peer takes
        longer, for a time.
        """
        _check_label(name, "figure name")
        _check_label(unit, "unit")
        if any(entry["name"] == name for entry in self.figures):
            raise ConfigError("figure recorded twice in one run", field="name", found=name)
        entry = {"name": name, "unit": unit, **as_measurement(measured).as_dict(), "peers": []}
        for peer_name, peer_measured in (peers or {}).items():
            _check_label(peer_name, "peer name")
            peer = as_measurement(peer_measured).as_dict()
            peer["ratio"] = peer["value"] / entry["value"] if entry["value"] else None
            entry["peers"].append({"name": peer_name, **peer})
        self.figures.append(entry)
        print(describe_figure(entry))
        return entry

    def save(self) -> Path:
        """Write this run's figures and context over the script's previous entry (nothing else)."""
        if not self.figures:
            raise ConfigError("a bench run recorded no figure", field=self.script)
        context = run_context(self._started, self._load_before)
        with _locked(self.record_path.parent):
            record = read_record(self.record_path) if self.record_path.exists() else empty_record()
            record["scripts"][self.script] = {"context": context, "figures": self.figures,
                                              **({"data": self.data} if self.data else {})}
            validate_record(record, self.record_path)
            atomic_write_json(self.record_path, record)
        print(f"recorded {len(self.figures)} figures of {self.script} in {self.record_path}")
        return self.record_path


def describe_figure(entry: Mapping) -> str:
    """One line for the terminal: the figure, its peers and the ratios."""
    text = f"{entry['name']}: {format_measurement(entry, entry['unit'])}"
    for peer in entry["peers"]:
        ratio = "" if peer["ratio"] is None else f", ratio {format_number(peer['ratio'])}x"
        text += f"; {peer['name']}: {format_measurement(peer, entry['unit'])}{ratio}"
    return text


def is_label(text: object) -> bool:
    """A name or unit that fits one table cell: one line of 1 to MAX_NAME_CHARACTERS characters."""
    return isinstance(text, str) and bool(text.strip()) and len(text) <= MAX_NAME_CHARACTERS and \
        text.splitlines() == [text]


def _check_label(text: object, field: str) -> None:
    if not is_label(text):
        raise ConfigError(f"invalid {field}", field=field,
                          expected=f"one line of 1 to {MAX_NAME_CHARACTERS} characters", found=repr(text)[:60])


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` (flock on the directory), so read-update-write is not interleaved."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def empty_record() -> dict:
    return {"version": RECORD_VERSION, "scripts": {}}


def read_record(path: str | Path) -> dict:
    """The record at ``path``, checked with :func:`validate_record`."""
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError("cannot read the performance record", file=path, found=str(exc)) from None
    validate_record(record, path)
    return record


# --- the run's context -------------------------------------------------------------------------

def run_context(started: dt.datetime, load_before: Sequence[float]) -> dict:
    """Date, command, code version, machine, load and software of the run that ends now."""
    return {
        "started": _utc(started), "finished": _utc(dt.datetime.now(dt.timezone.utc)),
        "command": [_repo_relative(sys.argv[0]), *map(_portable_argument, sys.argv[1:])], "git": git_state(),
        "machine": machine(), "load": {"before": list(load_before), "after": list(os.getloadavg())},
        "versions": versions(), "environment": {key: os.environ.get(key) for key in NUMERICS_ENVIRONMENT},
    }


def _utc(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _repo_relative(path: str) -> str:
    try:
        return Path(path).resolve().relative_to(REPO).as_posix()
    except ValueError:
        return path


def _portable_argument(argument: str) -> str:
    """An argument as the record keeps it: a path in the repository relative to it, an absolute path
    outside it (a reference checkout, another interpreter) by its last part only, as ``<local>/NAME``:
    the record is shared, the machine's folders are not."""
    if not argument.startswith("/"):
        return argument
    relative = _repo_relative(argument)
    return relative if relative != argument else f"<local>/{Path(argument).name}"


def git_state() -> dict:
    """The commit of the bench scripts' checkout and whether its tracked code (the record and the
    page it renders aside) differs from it."""
    return fingerprint.git_state(exclude=OWN_OUTPUTS)


def machine() -> dict:
    """CPU model, usable cores, memory (GiB) and operating system."""
    return {"cpu": _cpu_model(), "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count(), "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
                                                     / 2**30, 1), "os": platform.platform()}


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def versions() -> dict:
    """Python, NumPy, Octave and the BLAS Octave uses (None for Octave when it is not installed)."""
    import numpy

    octave = describe_octave()
    return {"python": platform.python_version(), "numpy": numpy.__version__,
            "octave": octave["octave"], "octave_blas": octave.get("blas")}


# --- the record's format -----------------------------------------------------------------------

#: Context fields every run must have (dotted paths) and what each must be.
CONTEXT_FIELDS = {
    "started": str, "finished": str, "command": list, "git.commit": (str, type(None)),
    "git.dirty": (bool, type(None)), "machine.cpu": str, "machine.cores": int, "machine.memory_gib": (int, float),
    "load.before": list, "load.after": list, "versions.python": str, "versions.numpy": str,
    "versions.octave": (str, type(None)), "versions.octave_blas": (str, type(None)),
}
MEASUREMENT_FIELDS = ("value", "min", "max", "repeats")


def validate_record(record: object, path: str | Path) -> None:
    """Raise :class:`~pipeline.errors.DataError` naming the first field that breaks the format.

    The format: ``{"version": 1, "scripts": {script: {"context": {...}, "figures": [...]}}}``;
    the context has every :data:`CONTEXT_FIELDS` entry (dates ``YYYY-MM-DDTHH:MM:SSZ``, three load
    averages before and after); each figure has a unique non-empty ``name``, a ``unit``, a
    spread (``min <= value <= max``, ``repeats >= 1``, one run having ``min == value == max``) and a
    list of ``peers`` with the same spread fields and ``ratio`` = peer value / figure value.
    """
    def fail(message: str, field: str, expected: object = None, found: object = None):
        raise DataError(message, file=path, field=field, expected=expected, found=found)

    if not isinstance(record, dict) or record.get("version") != RECORD_VERSION:
        fail("not a performance record of this version", "version", RECORD_VERSION,
             record.get("version") if isinstance(record, dict) else type(record).__name__)
    scripts = record.get("scripts")
    if not isinstance(scripts, dict):
        fail("missing scripts", "scripts", "an object keyed by bench script", type(scripts).__name__)
    for script, entry in scripts.items():
        if not SCRIPT_NAME.fullmatch(script):
            fail("not a bench script's name", "scripts", "letters, digits and _", repr(script)[:60])
        if not isinstance(entry, dict):
            fail("not an object", f"scripts.{script}")
        _validate_context(entry.get("context"), f"scripts.{script}.context", fail)
        if not isinstance(entry.get("data", {}), dict):
            fail("not an object", f"scripts.{script}.data", "an object of structured results",
                 type(entry["data"]).__name__)
        figures = entry.get("figures")
        if not isinstance(figures, list) or not figures:
            fail("no figures", f"scripts.{script}.figures", "a non-empty list", figures)
        names = [figure.get("name") if isinstance(figure, dict) else None for figure in figures]
        for index, figure in enumerate(figures):
            where = f"scripts.{script}.figures[{index}]"
            if not isinstance(figure, dict) or not is_label(figure.get("name")):
                fail("a figure needs a one-line name", where + ".name")
            if names.count(figure["name"]) > 1:
                fail("figure name used twice", where + ".name", "unique names", figure["name"])
            if not is_label(figure.get("unit")):
                fail("a figure needs a unit", where + ".unit")
            _validate_spread(figure, where, fail)
            if not isinstance(figure.get("peers"), list):
                fail("missing peers list", where + ".peers", "a list (empty without peers)")
            for k, peer in enumerate(figure["peers"]):
                _validate_peer(peer, figure, f"{where}.peers[{k}]", fail)


def _validate_context(context: object, where: str, fail) -> None:
    if not isinstance(context, dict):
        fail("missing run context", where)
    for dotted, kind in CONTEXT_FIELDS.items():
        value = context
        for part in dotted.split("."):
            value = value.get(part, KeyError) if isinstance(value, dict) else KeyError
        if value is KeyError:
            fail("missing context field", f"{where}.{dotted}")
        if not isinstance(value, kind) or isinstance(value, bool) and kind in (int, (int, float)):
            fail("wrong type", f"{where}.{dotted}", _kind_name(kind), repr(value)[:60])
    for moment in ("started", "finished"):
        try:
            dt.datetime.strptime(context[moment], "%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            fail("not a UTC date", f"{where}.{moment}", "YYYY-MM-DDTHH:MM:SSZ", context[moment])
    for moment in ("before", "after"):
        load = context["load"][moment]
        if len(load) != 3 or not all(_is_number(x) and x >= 0 for x in load):
            fail("not three load averages", f"{where}.load.{moment}", "[1-min, 5-min, 15-min]", load)
    if context["machine"]["cores"] < 1 or context["machine"]["memory_gib"] <= 0:
        fail("impossible machine", f"{where}.machine", "cores >= 1 and memory > 0", context["machine"])


def _validate_spread(entry: dict, where: str, fail) -> None:
    for key in MEASUREMENT_FIELDS:
        if not _is_number(entry.get(key)):
            fail("missing or not a finite number", f"{where}.{key}", found=entry.get(key))
    if not isinstance(entry["repeats"], int) or entry["repeats"] < 1:
        fail("runs must be counted", f"{where}.repeats", "an integer >= 1", entry["repeats"])
    if not entry["min"] <= entry["value"] <= entry["max"]:
        fail("value outside its spread", where, "min <= value <= max",
             f"{entry['min']} / {entry['value']} / {entry['max']}")
    if entry["repeats"] == 1 and entry["min"] != entry["max"]:
        fail("one run cannot have a spread", where, "min == max with 1 run", f"{entry['min']} .. {entry['max']}")


def _validate_peer(peer: object, figure: dict, where: str, fail) -> None:
    if not isinstance(peer, dict) or not is_label(peer.get("name")):
        fail("a peer needs a one-line name", where + ".name")
    _validate_spread(peer, where, fail)
    expected = peer["value"] / figure["value"] if figure["value"] else None
    ratio = peer.get("ratio", KeyError)
    if ratio is KeyError or (expected is None) != (ratio is None) or \
            expected is not None and not math.isclose(ratio, expected, rel_tol=1e-9):
        fail("ratio is not peer value / figure value", where + ".ratio", expected, ratio)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _kind_name(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
