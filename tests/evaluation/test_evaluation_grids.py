"""k-grid, p-grid and the p -> k mapping (docs/evaluation.md, "Grids")."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_p_grid_drops_values_outside_unit_interval():
    assert p_grid(0.5, 1.2, 0.25).tolist() == [0.5, 0.75, 1.0]


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
