"""Published Chronos results shipped with the package (``reference/chronos``, see its README), and
the Chronos-2 run on the ``lite`` datasets that the forecasting framework this protocol follows
ships as its reference (``chronos-2``: five datasets, no aggregate).

A reference is named by its file stem without the suite suffix, e.g. ``chronos-bolt-base`` for
``chronos-bolt-base-in-domain.csv`` and ``chronos-bolt-base-zero-shot.csv``, ``seasonal-naive`` for
the Chronos seasonal-naive baseline. Its scores cover the datasets of Chronos Benchmark I
(``in-domain`` -> ``chronos_i``) and II (``zero-shot`` -> ``chronos_ii``); dataset names are
unique across the two, so the rows of any benchmark built from them (``lite``, ``extended``) can
be looked up by name.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...errors import ConfigError

REFERENCE_DIR = Path(__file__).with_name("reference") / "chronos"
SUITES = {"in-domain": "chronos_i", "zero-shot": "chronos_ii"}


def reference_names() -> list[str]:
    """Every shipped reference (a stem with both an in-domain and a zero-shot file)."""
    stems = [path.name.removesuffix("-in-domain.csv") for path in REFERENCE_DIR.glob("*-in-domain.csv")]
    return sorted(stem for stem in stems if (REFERENCE_DIR / f"{stem}-zero-shot.csv").is_file())


def is_reference(source: str | Path) -> bool:
    """True when ``source`` names a shipped reference rather than an existing directory."""
    return not Path(source).is_dir() and str(source) in reference_names()


def reference_scores(name: str) -> pd.DataFrame:
    """``benchmark, dataset, MASE, WQL`` of reference ``name`` over both Chronos benchmarks."""
    if name not in reference_names():
        raise ConfigError("unknown reference result", expected=reference_names(), found=name)
    frames = [pd.read_csv(REFERENCE_DIR / f"{name}-{suite}.csv").assign(benchmark=benchmark)
              for suite, benchmark in SUITES.items()]
    return pd.concat(frames, ignore_index=True)[["benchmark", "dataset", "MASE", "WQL"]]


def aggregate_scores(name: str) -> pd.DataFrame:
    """The published ``benchmark, metric, value`` aggregates (gmean relative to seasonal naive)."""
    path = REFERENCE_DIR / f"{name}-agg-rel-scores.csv"
    if not path.is_file():
        raise ConfigError("no published aggregate for this reference", file=path, found=name)
    return pd.read_csv(path)
