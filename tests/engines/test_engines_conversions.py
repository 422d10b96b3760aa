"""Value conversions shared by the Octave and MATLAB bridges, and the MATLAB engine without MATLAB."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pipeline.engines import make_engine
from pipeline.engines.matlab import MatlabEngine, import_matlab_engine, to_matlab_array, to_matlab_value
from pipeline.engines.octave import (curves_from_engine, defaults_from_engine, evaluation_inputs, failure_message,
                                     from_engine_value, import_oct2py, to_engine_value)
from pipeline.errors import EngineError
from pipeline.evaluation.metrics import METRICS
from pipeline.methods import get_method


def test_to_engine_value_maps_python_types():
    value = to_engine_value({"a": 1, "b": 2.5, "c": True, "d": "x", "e": [1, 2], "f": None,
                             "g": {"h": np.int64(3)}, "i": ["p", "q"], "j": np.arange(4).reshape(2, 2)})
    assert value["a"] == 1.0 and isinstance(value["a"], float)
    assert value["c"] is True and value["d"] == "x"
    assert value["e"].shape == (1, 2) and value["e"].dtype == np.float64
    assert value["f"].shape == (0, 0)
    assert value["g"] == {"h": 3.0}
    assert value["i"] == ["p", "q"]
    assert value["j"].dtype == np.float64 and value["j"].shape == (2, 2)


@pytest.mark.parametrize("bad,match", [({"1x": 1}, "valid MATLAB field name"), ({"a.b": 1}, "valid MATLAB"),
                                       ({"a": object()}, "cannot be passed"), ({"a": [1, "x"]}, "cannot be passed"),
                                       ({"a": np.array(["s"])}, "not numeric")])
def test_to_engine_value_rejects_what_matlab_cannot_hold(bad, match):
    with pytest.raises(EngineError, match=match):
        to_engine_value(bad)


def test_from_engine_value_gives_plain_python():
    struct = {"scores": np.array([[0.5, 1.0, 2.0]]), "n": np.array([[3.0]]), "cells": np.array(["a", "b"], dtype=object),
              "inner": {"m": np.ones((2, 2))}, "s": np.float64(1.5)}
    out = from_engine_value(struct)
    assert out == {"scores": [0.5, 1.0, 2.0], "n": 3.0, "cells": ["a", "b"], "inner": {"m": [[1.0, 1.0], [1.0, 1.0]]},
                   "s": 1.5}


@pytest.mark.parametrize("names", ["flag", ["flag"], np.array(["flag"], dtype=object), ["flag", "off"]])
def test_plugin_defaults_get_their_logicals_back_as_bools(names):
    """The bridge carries a logical default as a number; mlfs_plugin_defaults names them."""
    raw = {"flag": 1, "off": np.uint8(0), "count": 1, "rate": np.array([[0.5]])}
    out = defaults_from_engine(raw, names, True)
    logicals = {"flag", "off"} if len(names) == 2 else {"flag"}
    assert out == {"flag": True, "off": 0 if "off" not in logicals else False, "count": 1, "rate": 0.5}
    assert {key for key, value in out.items() if isinstance(value, bool)} == logicals
    assert defaults_from_engine(raw, [], True) == {"flag": 1, "off": 0, "count": 1, "rate": 0.5}
    assert defaults_from_engine("not a struct", [], False) == "not a struct"


def test_plugin_defaults_of_a_method_without_parameters_are_an_empty_dict():
    """oct2py carries struct() (a scalar struct without fields) as a cell; mlfs_plugin_defaults says
    it was a struct."""
    Cell = import_oct2py().io.Cell  # not `import oct2py`: it would start an Octave for the rest of the session
    assert defaults_from_engine(Cell([[None]]), [], 1.0) == {}
    assert isinstance(defaults_from_engine(Cell([[None]]), [], 0.0), Cell)  # a cell: the loader refuses it


IMPORT_OCT2PY_THEN_PANDAS = """
import sys
from pipeline.engines.octave import import_oct2py
oct2py = import_oct2py()
assert oct2py.Oct2Py is not None and "pandas" not in sys.modules, sorted(m for m in sys.modules if "pandas" in m)
import pandas
assert pandas.DataFrame({"a": [1]}).shape == (1, 1)
print("pandas imported after oct2py")
"""


def test_oct2py_is_imported_without_pandas_which_then_imports_as_usual():
    """pandas was half of oct2py's import time; it must stay importable for the rest of the process."""
    done = subprocess.run([sys.executable, "-c", IMPORT_OCT2PY_THEN_PANDAS], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "pandas imported after oct2py" in done.stdout, done.stderr


def test_curves_from_engine_casts_counts_to_int():
    result = {"k_values": np.array([[10.0, 20.0]]), "macro_pr_auc_labels_used": 5.0, "macro_pr_auc_labels_total": 6.0}
    for key in METRICS:
        result[key] = np.array([[0.25, np.nan]])
    curves = curves_from_engine(result)
    assert curves["k_values"] == [10, 20] and curves["macro_pr_auc_labels_used"] == 5
    assert curves["micro_f1"][0] == 0.25 and np.isnan(curves["micro_f1"][1])


def test_failure_message_is_one_line():
    assert failure_message("") is None
    text = failure_message({"identifier": "a:b", "message": "line one\nline two", "stack": "f:3 <- g:9"})
    assert text == "line one line two [a:b] (at f:3 <- g:9)"


def test_evaluation_inputs_send_only_the_ranked_prefix():
    X = np.arange(20.0).reshape(4, 5)
    ranking = np.array([3, 1, 5, 2, 4])
    Xtr, Ytr, Xte, Yte, sent_ranking, ks = evaluation_inputs(X, np.ones((4, 2)), X + 100, np.zeros((4, 2)),
                                                             ranking, [1, 2])
    np.testing.assert_array_equal(Xtr, X[:, [2, 0]])
    np.testing.assert_array_equal(Xte, X[:, [2, 0]] + 100)
    np.testing.assert_array_equal(sent_ranking, [1, 2])
    np.testing.assert_array_equal(ks, [1, 2])


class FakeMatlabModule:
    """Stands in for the ``matlab`` package's array type only (no engine is faked)."""

    class double(list):
        def __init__(self, rows):
            super().__init__(rows)


def test_matlab_array_conversion_keeps_shapes():
    m = FakeMatlabModule
    assert to_matlab_array(m, np.arange(6.0).reshape(2, 3)) == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert to_matlab_array(m, np.array([1, 2])) == [[1.0, 2.0]]
    value = to_matlab_value(m, to_engine_value({"w": np.ones((1, 2)), "k": 3}))
    assert value == {"w": [[1.0, 1.0]], "k": 3.0}


def test_matlab_engine_without_the_package_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "matlab", None)       # import matlab -> ImportError
    monkeypatch.setitem(sys.modules, "matlab.engine", None)
    with pytest.raises(EngineError, match="MATLAB engine for Python is not available"):
        import_matlab_engine()
    engine = make_engine("matlab", timeout=5.0)
    assert isinstance(engine, MatlabEngine) and engine.supports(get_method("VARIANCE"))
    with pytest.raises(EngineError, match=r"pip install \"matlabengine"):
        engine.rank(get_method("VARIANCE"), np.ones((3, 2)), np.ones((3, 1)), {}, None, context="VARIANCE/d/fold0")
    engine.close()
    with pytest.raises(EngineError, match="positive number of seconds"):
        MatlabEngine(timeout=-1)
