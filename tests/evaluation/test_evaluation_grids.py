"""k-grid, p-grid and the p -> k mapping (docs/evaluation.md, "Grids")."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.errors import ConfigError
from pipeline.evaluation.grids import k_grid, p_grid, p_target_index, p_to_k


def test_default_p_grid_has_the_exact_arange_values():
    values = p_grid()
    assert values.tolist() == [0.05, 0.1, 0.15000000000000002, 0.2, 0.25, 0.3,
                               0.35000000000000003, 0.4, 0.45, 0.5]


@pytest.mark.parametrize("d,expected", [
    (50, [2, 5, 8, 10, 12, 15, 18, 20, 22, 25]),
    (10, [1, 1, 2, 2, 2, 3, 4, 4, 4, 5]),
    (72, [4, 7, 11, 14, 18, 22, 25, 29, 32, 36]),
    (103, [5, 10, 15, 21, 26, 31, 36, 41, 46, 52]),
    (294, [15, 29, 44, 59, 74, 88, 103, 118, 132, 147]),
    (1836, [92, 184, 275, 367, 459, 551, 643, 734, 826, 918]),
])
def test_p_to_k_spec_examples_round_half_even(d, expected):
    assert p_to_k(p_grid(), d) == expected


def test_p_to_k_clips_to_one_and_d():
    assert p_to_k([0.01, 1.0], 20) == [1, 20]


@pytest.mark.parametrize("args, field", [
    ((0.5, 1.2, 0.25), "p_max"), ((0.0, 0.5, 0.05), "p_min"), ((-0.5, -0.1, 0.1), "p_min"),
    ((0.05, 0.5, 1.5), "p_step"), ((0.6, 0.5, 0.05), "p_min"),
])
def test_p_grid_refuses_values_outside_unit_interval(args, field):
    with pytest.raises(ConfigError) as refused:
        p_grid(*args)
    assert refused.value.field == field


@pytest.mark.parametrize("target", [0.0, -0.1, 1.01, float("inf")])
def test_p_target_outside_unit_interval_is_refused(target):
    with pytest.raises(ConfigError, match="p_target"):
        p_target_index(p_grid(), target)


def test_p_grid_to_one_keeps_arange_values_and_drops_only_noise_above_one():
    values = p_grid(0.1, 1.0, 0.05)   # arange's 19th value is 1.0000000000000004, as in the reference
    assert values.tolist() == np.arange(0.1, 1.0 + 1e-12, 0.05)[:-1].tolist()
    assert p_grid(0.5, 1.0, 0.25).tolist() == [0.5, 0.75, 1.0]


@settings(max_examples=200, deadline=None)
@given(p_min=st.floats(1e-6, 1.0), width=st.floats(0.0, 1.0), p_step=st.floats(1e-3, 1.0))
def test_p_grid_of_valid_bounds_is_a_nonempty_ascending_subset_of_the_unit_interval(p_min, width, p_step):
    p_max = min(1.0, p_min + width)
    values = p_grid(p_min, p_max, p_step)
    assert values[0] == p_min and values.size >= 1
    assert np.all(values > 0) and np.all(values <= 1) and np.all(values <= p_max + 1e-12)
    assert np.all(np.diff(values) > 0)
    ks = p_to_k(values, 97)
    assert all(1 <= k <= 97 for k in ks) and ks == sorted(ks)


@settings(max_examples=200, deadline=None)
@given(bad=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0, exclude_min=True)),
       which=st.sampled_from(["p_min", "p_max", "p_step"]))
def test_p_grid_refuses_any_bound_outside_unit_interval(bad, which):
    args = {"p_min": 0.05, "p_max": 0.5, "p_step": 0.05, which: bad}
    with pytest.raises(ConfigError) as refused:
        p_grid(**args)
    assert refused.value.field == which


def test_p_target_index_takes_first_minimiser():
    p = p_grid()
    assert p_target_index(p, 0.2) == 3
    assert p_target_index([0.25, 0.75], 0.5) == 0


@pytest.mark.parametrize("d,expected", [
    (600, list(range(10, 301, 10))),
    (294, list(range(10, 291, 10))),
    (103, list(range(10, 101, 10))),
    (10, [10]),
    (6, [6]),
])
def test_k_grid(d, expected):
    assert k_grid(d) == expected


def test_k_grid_custom_steps():
    assert k_grid(100, 5, 20, 5) == [5, 10, 15, 20]


@pytest.mark.parametrize("call", [
    lambda: k_grid(0), lambda: k_grid(100, 0), lambda: k_grid(100, 30, 20),
    lambda: k_grid(100, 10, 300, 2.5), lambda: p_grid(0.05, 0.5, 0),
    lambda: p_grid(-0.5, -0.1, 0.1), lambda: p_grid(float("nan")), lambda: p_to_k([0.0], 10),
    lambda: p_to_k([0.2], 0), lambda: p_target_index([], 0.2),
])
def test_bad_grid_arguments_raise_config_error(call):
    with pytest.raises(ConfigError):
        call()


def test_p_to_k_returns_python_ints():
    ks = p_to_k(np.array([0.3]), 50)
    assert ks == [15] and type(ks[0]) is int
