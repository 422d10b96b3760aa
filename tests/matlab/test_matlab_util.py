"""matlab/util helpers against their NumPy / Python counterparts (real Octave)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from pipeline.errors import ConfigError, EngineError
from pipeline.evaluation.grids import k_grid, p_grid, p_to_k
from pipeline.fileio import dumps_json

pytestmark = pytest.mark.octave


def flat(value):
    return np.asarray(value, dtype=np.float64).reshape(-1)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400))
def test_np_sum_is_bitwise_numpy_sum(octave, seed, n):
    values = np.random.default_rng(seed).random(n) * 10.0 ** np.random.default_rng(seed + 1).integers(-5, 6, n)
    (total,) = octave.call("mlfs_np_sum", values, nout=1)
    assert float(total) == float(np.sum(values))
    (mean,) = octave.call("mlfs_np_mean", values, nout=1)
    assert float(mean) == float(np.mean(values))


def test_round_half_even_like_numpy(octave):
    x = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 2.4999999999999996, 12.5, 22.5, 7.0, 2.6])
    (rounded,) = octave.call("mlfs_round_half_even", x, nout=1)
    np.testing.assert_array_equal(flat(rounded), np.round(x))


@pytest.mark.parametrize("d", [10, 50, 72, 103, 294, 1836, 1, 7])
def test_pgrid_values_match_python(octave, d):
    p, k = octave.call("mlfs_pgrid_values", float(d), 0.05, 0.5, 0.05, nout=2)
    np.testing.assert_array_equal(flat(p), p_grid())            # bitwise, arange noise included
    assert [int(v) for v in flat(k)] == p_to_k(p_grid(), d)


@settings(max_examples=12, deadline=None)
@given(p_min=st.sampled_from([0.01, 0.05, 0.1, 0.125, 0.3]), p_step=st.sampled_from([0.01, 0.025, 0.05, 0.1, 0.3]),
       p_max=st.sampled_from([0.2, 0.5, 0.9, 1.0]), d=st.integers(1, 2000))
def test_pgrid_values_match_python_on_other_grids(octave, p_min, p_step, p_max, d):
    assume(p_min <= p_max)
    p, k = octave.call("mlfs_pgrid_values", float(d), p_min, p_max, p_step, nout=2)
    expected = p_grid(p_min, p_max, p_step)
    np.testing.assert_array_equal(flat(p), expected)
    assert [int(v) for v in flat(k)] == p_to_k(expected, d)


@pytest.mark.parametrize("d", [1, 5, 9, 10, 15, 294, 300, 1047])
def test_kgrid_values_match_python(octave, d):
    (k,) = octave.call("mlfs_kgrid_values", float(d), 10.0, 300.0, 10.0, nout=1)
    assert [int(v) for v in flat(k)] == k_grid(d, 10, 300, 10)


def test_json_encoder_writes_what_python_writes(octave):
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.random(20), rng.random(5) * 1e-7, [0.0, 1.0, 2.5, 1e300, 5e-324, -0.1]])
    record = {"grid_mode": "kgrid", "k_values": [10], "fold": 3, "mlknn": {"num": 10, "smooth": 1.0},
              "metrics": values.tolist(), "missing": None, "params": {}, "names": ["a\"b", "tab\tc\\"],
              "flag": True, "nested": {"z": {"y": []}}}
    script = ("s = struct('grid_mode', 'kgrid', 'k_values', {{int64(10)}}, 'fold', int64(3), "
              "'mlknn', struct('num', int64(10), 'smooth', 1), 'metrics', {num2cell(v)}, 'missing', NaN, "
              "'params', struct(), 'names', {{'a\"b', sprintf('tab\\tc\\\\')}}, 'flag', true, "
              "'nested', struct('z', struct('y', {{}})));")
    oc = octave.start()
    oc.push("v", values.reshape(1, -1))
    oc.eval(script)
    text = oc.eval("mlfs_json_encode(s)")
    assert text == dumps_json(record)[:-1]
    assert json.loads(text)["metrics"] == values.tolist()       # full precision round trip


def test_atomic_write_replaces_without_leftovers(octave, tmp_path):
    target = tmp_path / "sub" / "x.json"
    octave.call("mlfs_write_json_atomic", str(target), {"a": 1.5}, nout=0)
    octave.call("mlfs_write_json_atomic", str(target), {"a": 2.5}, nout=0)
    assert json.loads(target.read_text()) == {"a": 2.5}
    assert [p.name for p in target.parent.iterdir()] == ["x.json"]


@pytest.mark.parametrize("values,identifier", [
    ([1, 2, 2], "mlfs:ranking:repeated"), ([0, 1, 2], "mlfs:ranking:zeroBased"),
    ([1, 2], "mlfs:ranking:wrongLength"), ([1, 2, 4], "mlfs:ranking:outOfRange"),
    ([1, 2.5, 3], "mlfs:ranking:notInteger")])
def test_ranking_validation_identifiers(octave, values, identifier):
    with pytest.raises(EngineError, match=identifier):
        octave.call("mlfs_validate_ranking", np.array(values, float), 3.0, "r.csv", nout=1)


@pytest.mark.parametrize("name", ["..", "a/b", "a\\b", "", ".hidden", "x..y", "a b"])
def test_unsafe_names_rejected(octave, name):
    with pytest.raises(EngineError, match="mlfs:badName"):
        octave.call("mlfs_validate_name", name, "dataset", nout=1)


def test_safe_names_accepted(octave):
    for name in ["emotions", "DAGFS_v2", "a.b+c-d", "9x"]:
        (out,) = octave.call("mlfs_validate_name", name, "method", nout=1)
        assert out == name


@pytest.mark.parametrize("seed", [-1.0, 1.5, 2.0 ** 32, float("nan")])
def test_bad_seeds_are_refused_by_both_ways_of_drawing_starts(octave, seed):
    for function, args in (("mlfs_seeded_uniform", (seed, np.array([2.0, 2.0]))), ("mlfs_mt_init_by_array", (seed,))):
        with pytest.raises(EngineError, match="mlfs:seed:badValue"):
            octave.call(function, *args, nout=1)


def _shipped_octave_methods():
    from pipeline.methods import available_methods, get_method
    methods = [get_method(name) for name in available_methods()]
    return [method for method in methods if method.matlab_function and method.plugin_dir is None]


def test_octave_refuses_every_declared_range_in_pythons_words(octave):
    for method in _shipped_octave_methods():
        for name, allowed in method.allowed.items():
            typed = allowed.just_outside(method.defaults[name])  # Python checks the type first
            value = typed if isinstance(typed, str) else float(typed)
            with pytest.raises(ConfigError, match="out of range") as python_refusal:
                method.resolve_params({name: typed})
            with pytest.raises(EngineError, match=f"mlfs:{method.matlab_function}:badParameter") as refused:
                octave.call("mlfs_check_param_ranges", method.matlab_function, {name: value}, nout=0)
            words = f"value out of range for parameter '{name}' of method {method.name} (expected {allowed}; found"
            assert words in str(refused.value) and words in str(python_refusal.value), (method.name, name)


@pytest.mark.parametrize("function,args", [("mlfs_check_param_ranges", ("LRMFS",)),
                                           ("mlfs_method_params", ("LRMFS", {"alpha": 1.0}))])
def test_params_that_are_no_struct_are_refused_by_both_parameter_checks(octave, function, args):
    with pytest.raises(EngineError, match=r"LRMFS: params must be a struct \[mlfs:LRMFS:badParams\]"):
        octave.call(function, *args, [1.0, 2.0], nout=0 if function == "mlfs_check_param_ranges" else 1)
