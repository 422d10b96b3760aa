"""The growth bench's model (bench/growth_model.py) on synthetic timings: the exponent fit, the end
of a series at its first point over budget, the predicted largest shipped dataset, and the
catalogue column docs/methods/README.md takes from the record. The bench itself never runs here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import growth_model  # noqa: E402
import record  # noqa: E402
import render_performance  # noqa: E402

from pipeline.data.registry import REGISTRY  # noqa: E402

BUDGET_SECONDS, BUDGET_MEMORY = 3600.0, 16 * 2**30


FLOOR_CPU, FLOOR_RSS = 0.4, 110.0  # the floor method's task: its fixed cost


def point(n: int, d: int, cpu: float, rss: float = 0.0, status: str = "done", budget: str = "") -> dict:
    """A measured point whose task cost ``cpu`` seconds and ``rss`` MiB above the floor's."""
    return {"n": n, "d": d, "status": status, "wall_s": cpu, "cpu_s": FLOOR_CPU + cpu,
            "peak_rss_mib": FLOOR_RSS + rss, "budget": budget}


def method_growth(cost, rss=lambda n, d: 0.0, fixed_n=2000, fixed_d=500) -> dict:
    """Both series of a method whose ranking costs ``cost(n, d)`` CPU seconds and ``rss(n, d)`` MiB."""
    return {"n": [point(n, fixed_d, cost(n, fixed_d), rss(n, fixed_d)) for n in (1000, 2000, 4000, 8000)],
            "d": [point(fixed_n, d, cost(fixed_n, d), rss(fixed_n, d)) for d in (250, 500, 1000, 2000)]}


def net(method: dict, floor: dict | None = None) -> dict:
    """``method``'s series with its costs above the floor's (a floor of constant cost by default)."""
    methods = {growth_model.FLOOR_METHOD: floor or method_growth(lambda n, d: 0.0), "M": method}
    return growth_model.with_net_costs(methods)["M"]


def test_exponents_of_a_power_law_above_the_floor_are_recovered():
    method = net(method_growth(lambda n, d: 3e-7 * n ** 1.5 * d ** 0.5, lambda n, d: 2e-2 * n))
    assert growth_model.exponent(method["n"], "n") == pytest.approx(1.5, abs=1e-9)
    assert growth_model.exponent(method["d"], "d") == pytest.approx(0.5, abs=1e-9)
    assert growth_model.exponent(method["n"], "n", growth_model.MEMORY_COST) == pytest.approx(1.0, abs=1e-9)
    assert growth_model.exponent(method["d"], "d", growth_model.MEMORY_COST) == pytest.approx(0.0, abs=1e-9)
    assert growth_model.predict(method, 20000, 1000, growth_model.TIME_COST) == \
        pytest.approx(3e-7 * 20000 ** 1.5 * 1000 ** 0.5, rel=1e-9)


def test_costs_within_the_resolution_of_the_floor_are_not_fitted():
    method = net(method_growth(lambda n, d: 0.01 if n < 4000 else 5.0))
    assert [p[growth_model.TIME_COST] for p in method["n"]] == [None, None, pytest.approx(5.0), pytest.approx(5.0)]
    assert growth_model.exponent(method["n"], "n") is None
    assert growth_model.describe_largest(method, BUDGET_SECONDS, BUDGET_MEMORY) == growth_model.TOO_FEW_POINTS


def test_series_ends_at_its_first_point_over_budget_and_fewer_than_three_points_give_no_exponent():
    asked = []

    def run_point(n):
        asked.append(n)
        return point(n, 500, n / 1000) if n < 4000 else point(n, 500, 60.0, status="out_of_budget", budget="time")

    series = growth_model.run_series((1000, 2000, 4000, 8000, 16000), run_point)
    assert asked == [1000, 2000, 4000] and [p["status"] for p in series] == ["done", "done", "out_of_budget"]
    assert growth_model.describe_end(series, "n") == "out of budget (time) at n 4,000"
    assert growth_model.exponent(series, "n") is None
    method = net({"n": series, "d": method_growth(lambda n, d: 1.0)["d"]})
    assert growth_model.describe_largest(method, BUDGET_SECONDS, BUDGET_MEMORY) == growth_model.TOO_FEW_POINTS


def cells(name: str) -> int:
    return REGISTRY[name].n_train * REGISTRY[name].d


def test_largest_dataset_is_the_largest_predicted_within_the_budget():
    method = net(method_growth(lambda n, d: float(n)))  # one CPU second per training row, whatever d
    largest = growth_model.largest_within_budget(method, BUDGET_SECONDS, BUDGET_MEMORY)
    assert REGISTRY[largest].n_train <= BUDGET_SECONDS
    assert all(REGISTRY[name].n_train > BUDGET_SECONDS
               for name in growth_model.SHIPPED_DATASETS if cells(name) > cells(largest))
    assert growth_model.describe_largest(method, BUDGET_SECONDS, BUDGET_MEMORY) == f"{largest} (predicted)"
    hungry = net(method_growth(lambda n, d: 1.0, lambda n, d: 1e-3 * n * d))  # MiB: 10 GiB at tmc2007-500's n x d
    largest = growth_model.largest_within_budget(hungry, BUDGET_SECONDS, 4 * 2**30)
    assert 1e-3 * cells(largest) <= 4 * 1024
    assert all(1e-3 * cells(name) > 4 * 1024 for name in growth_model.SHIPPED_DATASETS if cells(name) > cells(largest))
    cheap = net(method_growth(lambda n, d: 1.0))
    assert growth_model.describe_largest(cheap, BUDGET_SECONDS, BUDGET_MEMORY) == "20NG, so all 31 (predicted)"
    never = net(method_growth(lambda n, d: 1e6))
    assert growth_model.describe_largest(never, BUDGET_SECONDS, BUDGET_MEMORY) == "none of the 31 (predicted)"


def test_catalogue_column_is_filled_from_the_cells_and_other_lines_are_kept():
    text = ("| [LRMFS](LRMFS.md) | other table |\n\n| method | x | largest dataset within the task budget |\n"
            "|---|---|---|\n| [LRMFS](LRMFS.md) | a | not measured |\n| [MDFS](MDFS.md) | b | old words |\n\n"
            "| [MDFS](MDFS.md) | another table |\n")
    filled = render_performance.fill_catalogue(text, {"LRMFS": "rcv1s1 (predicted), quick subset"}).splitlines()
    assert filled[4] == "| [LRMFS](LRMFS.md) | a | rcv1s1 (predicted), quick subset |"
    assert filled[5] == "| [MDFS](MDFS.md) | b | not measured |"
    assert [line for k, line in enumerate(filled) if k not in (4, 5)] == \
        [line for k, line in enumerate(text.splitlines()) if k not in (4, 5)]


def test_committed_catalogue_column_is_the_rendered_record():
    committed = record.read_record(record.RECORD_PATH)
    catalogue = REPO / "docs" / "methods" / "README.md"
    text = catalogue.read_text(encoding="utf-8")
    assert render_performance.fill_catalogue(text, render_performance.largest_dataset_cells(committed)) == text, \
        "docs/methods/README.md's largest-dataset column is stale: run python bench/render_performance.py"


def test_growth_section_names_the_subset_and_every_method():
    growth = {"subset": "quick", "sizes": {"n": [1000, 2000, 4000, 8000], "d": [250, 500, 1000, 2000]},
              "fixed_n": 2000, "fixed_d": 500, "n_labels": 20, "n_test": 100,
              "point_budget": {"seconds": 60.0, "memory_bytes": 6 * 2**30},
              "default_budget": {"seconds": BUDGET_SECONDS, "memory_bytes": BUDGET_MEMORY},
              "methods": {growth_model.FLOOR_METHOD: method_growth(lambda n, d: 0.0),
                          "CHEAP": method_growth(lambda n, d: 1e-4 * n, lambda n, d: 2e-2 * n),
                          "DEAR": method_growth(lambda n, d: 1e6)}}
    section = render_performance.growth_section(growth)
    assert "quick subset" in section and "img/growth_cpu_vs_n_quick.png" in section
    rows = {line.split(" | ")[0][2:]: line for line in section.splitlines() if line.startswith("| ")}
    assert rows["CHEAP"].startswith("| CHEAP | 1.00; 1.00 | 0.00; 0.00 | all finished | all finished |")
    assert rows["DEAR"].endswith("| none of the 31 (predicted) |")
    assert rows[growth_model.FLOOR_METHOD].endswith("| too few points |")
