"""The MATLAB/Octave twins refuse what the Python side refuses (real GNU Octave): names, ranking
files, parameter types, p-grid size and duplicate names (fold files: tests/data)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pipeline.engines.octave import OctaveSession
from pipeline.errors import ConfigError, EngineError, RankingError
from pipeline.names import validate_name
from pipeline.rankings import read_ranking_file

pytestmark = pytest.mark.octave


@pytest.fixture(scope="module")
def octave():
    session = OctaveSession(timeout=600)
    session.start()
    yield session
    session.close()


def _octave_error(octave, function, *args, nout: int = 1) -> str | None:
    """The Octave error message of ``function(*args)``, or None if it succeeded."""
    try:
        octave.call(function, *args, nout=nout)
    except EngineError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", ["demo\n", "x" * 129, "a b", "", "..", "caf\u00e9", "x" * 128, "a.b+c-d_9"])
def test_names_refused_by_both_sides_alike(octave, name):
    try:
        validate_name(name, "dataset")
        python_refuses = False
    except ConfigError:
        python_refuses = True
    message = _octave_error(octave, "mlfs_validate_name", name, "dataset")
    assert (message is not None) == python_refuses, (name, message)
    if python_refuses:
        assert "mlfs:badName" in message


@pytest.mark.parametrize("content, identifier, shown", [
    (b"1\n" * 5000, "mlfs:ranking:tooLarge", "found 10000 bytes"),
    (b"1\n2\n1e30\n", "mlfs:ranking:outOfRange", "found '1e30' (entry 3)"),
    (b"1\n2\n-3\n", "mlfs:ranking:outOfRange", "found '-3' (entry 3)"),
    (b"1\n2.5\n3\n", "mlfs:ranking:notInteger", "found '2.5' (entry 2)"),
    (b"1\n1_0\n3\n", "mlfs:ranking:notNumeric", "found '1_0'"),
    (b"1\n2+0i\n3\n", "mlfs:ranking:notNumeric", "found '2+0i'"),
    (b"1\nInf\n3\n", "mlfs:ranking:notNumeric", "found 'Inf'"),
    (b"1\n1\n3\n", "mlfs:ranking:repeated", "repeats feature 1"),
])
def test_ranking_files_refused_by_both_readers_alike(octave, tmp_path, content, identifier, shown):
    path = tmp_path / "r.csv"
    path.write_bytes(content)
    with pytest.raises(RankingError):
        read_ranking_file(path, 3)
    message = _octave_error(octave, "mlfs_read_ranking", str(path), 3.0)
    assert message is not None and identifier in message and shown in message


def test_ranking_files_accepted_by_both_readers_alike(octave, tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"\xef\xbb\xbf" + b"3.000000000000000000e+00\r\n1\r\n2.0\r\n")
    assert read_ranking_file(path, 3).tolist() == [3, 1, 2]
    (ranking,) = octave.call("mlfs_read_ranking", str(path), 3.0, nout=1)
    assert np.asarray(ranking).reshape(-1).tolist() == [3.0, 1.0, 2.0]


_DEFAULTS = {"alpha": 0.1, "max_iter": 30.0, "mode": "fast", "paired": True, "seed": 0.0}


@pytest.mark.parametrize("params, accepted", [
    ({"seed": 4.0, "alpha": 2.0, "mode": "slow", "paired": False}, True),
    ({"seed": 2.0**32 - 1}, True),
    ({"seed": 1.7}, False), ({"seed": -1.0}, False), ({"seed": 2.0**32}, False), ({"seed": "abc"}, False),
    ({"alpha": True}, False), ({"alpha": math.nan}, False), ({"alpha": "0.5"}, False),
    ({"mode": 3.0}, False), ({"paired": 1.0}, False),
])
def test_method_parameters_checked_by_type_in_octave(octave, params, accepted):
    message = _octave_error(octave, "mlfs_method_params", "SRFS", _DEFAULTS, params)
    assert (message is None) == accepted, message
    if not accepted:
        assert "mlfs:SRFS:badParameter" in message and f"'{next(iter(params))}'" in message


def test_p_grid_cap_and_duplicate_names_in_octave(octave):
    options = {"grid": "pgrid", "k_min": 10.0, "k_max": 300.0, "p_min": 0.05, "p_max": 0.5, "p_step": 1e-300}
    message = _octave_error(octave, "mlfs_check_grid_options", "run_suite", options, nout=0)
    assert "mlfs:run_suite:badValue" in message and "too many points" in message
    message = _octave_error(octave, "mlfs_cellstr_arg", ["SRFS", "GRRO", "SRFS"], "method", "run_suite")
    assert "mlfs:run_suite:badArgument" in message and "method 'SRFS' listed twice" in message
