"""Shared fixtures and the markers that sort the tests into lanes.

Real datasets live in ``../shared/data`` beside the checkout (or in ``$MLFS_SHARED_DATA``). Tests
that need them fail loudly when they are missing: a green run must mean the real data was used.

Markers applied here (pyproject.toml declares them), so that ``make test-fast`` can leave out what
is slow to start without each test having to remember its marker:

- ``octave``: every test that uses the shared Octave session (``octave``, ``oc``, ``octave_engine``)
  or lives in tests/matlab; tests that start Octave another way (a subprocess, an engine of their
  own) carry the marker themselves.
- ``protocols``: every test of the sibling protocols (tests/har, steering, motion, forecast), which
  import the torch stack; a test elsewhere that runs their commands carries the marker itself.

Two things keep the fast lane fast (issue 31): a folder whose every test the ``-m`` expression
deselects is not even imported (torch and the Octave bridge cost seconds per xdist worker), and
the objects that collection made are frozen out of the garbage collector (see
:func:`pytest_collection_finish`).
"""

from __future__ import annotations

import gc
import os
import signal
from pathlib import Path

import pytest
from marker_lanes import deselects_every_test_marked

REPO_ROOT = Path(__file__).resolve().parents[1]
TESTS_ROOT = REPO_ROOT / "tests"
#: The Octave test methods (MLFS_TEST_*), on the path of the shared session.
OCTAVE_TEST_METHODS = TESTS_ROOT / "matlab" / "fixtures"
PROTOCOL_FOLDERS = {"har", "steering", "motion", "forecast"}
OCTAVE_FOLDERS = {"matlab"}
OCTAVE_FIXTURES = {"octave", "oc", "octave_engine"}
#: The marker every test of a top-level test folder carries.
FOLDER_MARKERS = {**dict.fromkeys(PROTOCOL_FOLDERS, "protocols"), **dict.fromkeys(OCTAVE_FOLDERS, "octave")}


def pytest_collection_modifyitems(items):
    for item in items:
        folder = Path(item.path).relative_to(TESTS_ROOT).parts[0]
        if folder in FOLDER_MARKERS:
            item.add_marker(FOLDER_MARKERS[folder])
        if folder not in OCTAVE_FOLDERS and OCTAVE_FIXTURES.intersection(item.fixturenames):
            item.add_marker(pytest.mark.octave)


def pytest_ignore_collect(collection_path: Path, config):
    """Skip a marked folder (see :data:`FOLDER_MARKERS`) that ``-m`` would deselect whole.

    Importing tests/har alone imports torch (about 5 s of each worker's start); the tests would be
    deselected after collection anyway. Returning None leaves the decision to pytest.
    """
    if collection_path.parent != TESTS_ROOT or collection_path.name not in FOLDER_MARKERS:
        return None
    if deselects_every_test_marked(config.option.markexpr, FOLDER_MARKERS[collection_path.name]):
        return True
    return None


def pytest_collection_finish(session):
    """Freeze the objects collection made (modules, test items: about 0.5 million) out of the
    garbage collector's reach.

    Each full collection (the collector's own, or a library's ``gc.collect()``: statsmodels' Holm
    correction, which the statistics tests call, runs one per call) walks every live object, about
    0.5 s in a worker that collected the whole suite, which made the table tests several times
    slower in the suite than alone. Frozen objects are live for the whole session anyway.
    """
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session", autouse=True)
def ctrl_c_as_at_a_terminal():
    """Give the test process Ctrl-C's usual meaning if it was started with SIGINT ignored.

    A non-interactive shell starts background jobs (``make test &``, ``nohup``) with SIGINT ignored,
    and processes keep an ignored signal ignored, as they should; the tests that send a real SIGINT
    to this process or to the commands it starts would then test nothing. Their children inherit
    the default disposition from here.
    """
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield


def shared_data_dir() -> Path:
    env = os.environ.get("MLFS_SHARED_DATA")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if not path.is_dir():
        pytest.fail(f"real data folder {path} is missing: put ../shared beside the checkout "
                    "or set MLFS_SHARED_DATA")
    return path


@pytest.fixture(scope="session")
def mlc_dir(shared_data: Path) -> Path:
    path = shared_data / "mlc"
    if not path.is_dir():
        pytest.fail(f"multi-label data folder {path} is missing")
    return path


@pytest.fixture(scope="session")
def forecast_dir(shared_data: Path) -> Path:
    path = shared_data / "forecast"
    if not path.is_dir():
        pytest.fail(f"forecasting data folder {path} is missing")
    return path


@pytest.fixture(scope="session")
def real_folds(tmp_path_factory, mlc_dir):
    """``real_folds(dataset, folds=1, seed=0)``: the folder of hold-out folds of a real dataset, made
    once per session by the export command a user runs (min-max fitted on each training part).
    Tests read it; their results go elsewhere."""
    from pipeline.export_splits import main as export_main

    made: dict[tuple, Path] = {}

    def export(dataset: str, folds: int = 1, seed: int = 0) -> Path:
        key = (dataset, folds, seed)
        if key not in made:
            out = tmp_path_factory.mktemp(f"{dataset}_{folds}folds_seed{seed}")
            assert export_main(["--datasets", dataset, "--data-root", str(mlc_dir), "--split-mode", "holdout",
                                "--folds", str(folds), "--seed", str(seed), "--output-dir", str(out),
                                "--no-progress"]) == 0
            made[key] = out
        return made[key]

    return export


@pytest.fixture(scope="session")
def octave():
    """The one started Octave session of this test process (each xdist worker has its own), with
    matlab/ and the test methods on its path: each Octave start costs seconds. Tests that need an
    Octave of their own (a killed or timed-out process, a clean path, its start-up) make one."""
    from pipeline.engines.octave import OctaveSession

    session = OctaveSession(timeout=600, extra_paths=[OCTAVE_TEST_METHODS])
    session.start()
    yield session
    session.close()


@pytest.fixture(scope="session")
def octave_engine(octave):
    """An OctaveEngine on the shared session."""
    from pipeline.engines.octave import OctaveEngine

    return OctaveEngine(session=octave)
