"""The performance record (bench/results.json) and the "Latest measurements" section of
docs/performance.md made from it.

The page's section must be exactly what bench/render_performance.py makes of the committed record,
and the record must carry, for every run, its machine, date, load and software and, for every
figure, its spread. The benches themselves never run here: a tiny probe script records through
the same module in real processes.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import ConfigError, DataError

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
sys.path.insert(0, str(BENCH))

import record  # noqa: E402
import render_performance  # noqa: E402

RECORD = BENCH / "results.json"
PAGE = REPO / "docs" / "performance.md"


@pytest.fixture()
def committed() -> dict:
    return json.loads(RECORD.read_text(encoding="utf-8"))


def first_script(rec: dict) -> dict:
    return rec["scripts"][sorted(rec["scripts"])[0]]


def test_performance_page_section_is_the_rendered_record():
    page = PAGE.read_text(encoding="utf-8")
    rendered = render_performance.render_section(record.read_record(RECORD))
    assert render_performance.replace_section(page, rendered, PAGE) == page, \
        "docs/performance.md's Latest measurements section is stale: run python bench/render_performance.py"


def test_committed_record_covers_existing_scripts_with_context_and_spread(committed):
    record.validate_record(committed, RECORD)
    assert committed["scripts"], "the record is empty: run make bench"
    for script, entry in committed["scripts"].items():
        context = entry["context"]
        ran = REPO / context["command"][0]
        assert ran.parent == BENCH and ran.is_file(), f"{script} was recorded by {ran}, not a bench script"
        assert ran.stem == script or script in render_performance.PARTIAL_RUNS[ran.stem], script
        assert context["machine"]["cores"] >= 1 and context["machine"]["cpu"]
        assert len(context["load"]["before"]) == len(context["load"]["after"]) == 3
        assert context["started"] <= context["finished"]
        assert context["git"]["commit"], f"{script}: measured outside a git checkout"


@pytest.mark.parametrize("dotted", sorted(record.CONTEXT_FIELDS))
def test_record_without_a_context_field_is_refused(committed, dotted):
    *parents, leaf = dotted.split(".")
    holder = first_script(committed)["context"]
    for part in parents:
        holder = holder[part]
    del holder[leaf]
    with pytest.raises(DataError, match=rf"context\.{dotted}'"):
        record.validate_record(committed, RECORD)


@pytest.mark.parametrize("key", record.MEASUREMENT_FIELDS + ("unit", "peers"))
def test_record_without_a_spread_field_is_refused(committed, key):
    del first_script(committed)["figures"][0][key]
    with pytest.raises(DataError, match=rf"figures\[0\]\.{key}'"):
        record.validate_record(committed, RECORD)


@pytest.mark.parametrize("change, message", [
    (lambda f: f.update(value=f["max"] + 1), "value outside its spread"),
    (lambda f: f.update(repeats=1, min=f["value"], max=f["value"] * 2 + 1), "one run cannot have a spread"),
    (lambda f: f.update(repeats=0), "runs must be counted"),
    (lambda f: f["peers"].append({"name": "peer", "value": 2.0, "min": 2.0, "max": 2.0, "repeats": 1,
                                  "ratio": 0.5}), "ratio is not peer value / figure value"),
    (lambda f: f.update(value=float("nan")), "not a finite number"),
])
def test_record_with_an_inconsistent_figure_is_refused(committed, change, message):
    figure = first_script(committed)["figures"][0]
    figure.update(value=1.0, min=0.5, max=1.5, repeats=3, peers=[])
    change(figure)
    with pytest.raises(DataError, match=message):
        record.validate_record(committed, RECORD)


@pytest.mark.parametrize("moment, value", [("started", "2025-01-01 10:00"), ("finished", "yesterday")])
def test_record_with_a_date_that_is_not_utc_is_refused(committed, moment, value):
    first_script(committed)["context"][moment] = value
    with pytest.raises(DataError, match="not a UTC date"):
        record.validate_record(committed, RECORD)


@pytest.mark.parametrize("script", ["../x", "bench tables", "`x`", ""])
def test_record_with_a_path_like_script_name_is_refused(committed, script):
    committed["scripts"][script] = first_script(committed)
    with pytest.raises(DataError, match="not a bench script's name"):
        record.validate_record(committed, RECORD)


@pytest.mark.parametrize("script", ["bench/bench tables.py", "bench/`x`.py", "bench/.py"])
def test_bench_run_of_a_script_with_an_odd_name_is_refused(script):
    with pytest.raises(ConfigError, match="letters, digits and _"):
        record.BenchRun(script)


def test_record_with_two_load_averages_is_refused(committed):
    first_script(committed)["context"]["load"]["after"] = [1.0, 2.0]
    with pytest.raises(DataError, match="load.after"):
        record.validate_record(committed, RECORD)


def test_measurement_is_median_with_range_and_count():
    m = record.Measurement((3.0, 1.0, 2.0, 10.0))
    assert (m.value, m.low, m.high, m.repeats) == (2.5, 1.0, 10.0, 4)
    assert m.scaled(1e3).as_dict() == {"value": 2500.0, "min": 1000.0, "max": 10000.0, "repeats": 4}
    with pytest.raises(ConfigError):
        record.Measurement(())
    with pytest.raises(ConfigError):
        record.Measurement((1.0, float("inf")))


@pytest.mark.parametrize("entry, text", [
    ({"value": 0.7, "min": 0.68, "max": 0.75, "repeats": 3}, "0.7 s (0.68–0.75, 3 runs)"),
    ({"value": 81.24, "min": 81.24, "max": 81.24, "repeats": 1}, "81.2 s (1 run)"),
    ({"value": 1234.4, "min": 1000.0, "max": 2345.6, "repeats": 5}, "1,234 s (1,000–2,346, 5 runs)"),
    ({"value": 0.01234, "min": 0.01, "max": 0.02, "repeats": 2}, "0.0123 s (0.01–0.02, 2 runs)"),
])
def test_measurements_are_shown_with_spread(entry, text):
    assert record.format_measurement(entry, "s") == text


def _cells(row: str) -> list[str]:
    """Split a Markdown table row at the pipes that are not backslash-escaped."""
    cells, current, chars = [], "", iter(row.strip()[1:-1])
    for ch in chars:
        if ch == "\\":
            current += ch + next(chars, "")
        elif ch == "|":
            cells.append(current)
            current = ""
        else:
            current += ch
    return cells + [current]


@settings(max_examples=60, deadline=None)
@given(name=st.text(min_size=1, max_size=80).filter(lambda t: t.strip() and t.splitlines() == [t]),
       peer=st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and t.splitlines() == [t]))
def test_any_figure_name_stays_in_its_cell(name, peer):
    run = record.BenchRun("probe")
    entry = run.figure(name, [1.0, 2.0, 3.0], "s", peers={peer: 4.0})
    table = render_performance.figures_table([entry]).splitlines()
    assert len(table) == 3 and len(_cells(table[2])) == 4


def test_figure_names_must_be_one_line_and_unique():
    run = record.BenchRun("probe")
    run.figure("one", 1.0, "s")
    with pytest.raises(ConfigError, match="twice"):
        run.figure("one", 2.0, "s")
    for broken in ("two\nlines", "two\u2028lines", " ", "x" * 201):
        with pytest.raises(ConfigError, match="figure name"):
            run.figure(broken, 1.0, "s")


PROBE = """\
import sys
sys.path.insert(0, {bench!r})
from pipeline.cli import run_main
from record import BenchRun, measure


def main(argv):
    with BenchRun(argv[0], record_path=argv[1]) as run:
        seconds, _ = measure(sum, range(1000), repeats=3)
        run.figure("sum of 1000 numbers", seconds, "s", peers={{"the same, twice as long": seconds.scaled(2)}})
        if argv[2:] == ["fail"]:
            raise RuntimeError("the bench failed")


sys.exit(run_main(main, sys.argv[1:]))
"""


def run_probe(tmp_path: Path, script: str, record_path: Path, *extra: str) -> subprocess.Popen:
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE.format(bench=str(BENCH)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "python"),
                                                                      os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, str(probe), script, str(record_path), *extra], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_run_replaces_its_own_entry_and_nothing_else(tmp_path, committed):
    path = tmp_path / "results.json"
    shutil.copy(RECORD, path)
    probes = [run_probe(tmp_path, name, path) for name in ("probe_a", "probe_b")]  # at the same time
    for probe in probes:
        out, err = probe.communicate(timeout=120)
        assert probe.returncode == 0, err
    after = record.read_record(path)
    assert set(after["scripts"]) == set(committed["scripts"]) | {"probe_a", "probe_b"}
    assert all(after["scripts"][name] == entry for name, entry in committed["scripts"].items())
    entry = after["scripts"]["probe_a"]
    (figure,) = entry["figures"]
    assert figure["repeats"] == 3 and figure["min"] <= figure["value"] <= figure["max"]
    assert figure["peers"][0]["ratio"] == pytest.approx(2.0)
    assert entry["context"]["machine"]["cores"] == len(os.sched_getaffinity(0))
    assert entry["context"]["versions"]["python"] == ".".join(map(str, sys.version_info[:3]))


def test_a_failed_run_or_an_unreadable_record_changes_nothing(tmp_path):
    path = tmp_path / "results.json"
    shutil.copy(RECORD, path)
    before = path.read_bytes()
    failed = run_probe(tmp_path, "probe_a", path, "fail")
    _, err = failed.communicate(timeout=120)
    assert failed.returncode == 1 and "the bench failed" in err
    assert path.read_bytes() == before
    path.write_text('{"version": 1, "scripts": {"x": ')
    broken = run_probe(tmp_path, "probe_a", path)
    _, err = broken.communicate(timeout=120)
    assert broken.returncode == 2 and err.startswith("error: ") and err.count("\n") == 1
    assert "cannot read the performance record" in err
    assert path.read_text() == '{"version": 1, "scripts": {"x": '


def render_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "python"),
                                                                      os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, str(BENCH / "render_performance.py"), *args], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow  # renders the whole performance page twice (~6 s each)
@pytest.mark.parametrize("option", ["--page", "--readme"])  # --readme: the option's name before the page
def test_check_fails_on_a_stale_section_and_a_rewrite_mends_it(tmp_path, option):
    page = tmp_path / "performance.md"
    page.write_text(PAGE.read_text(encoding="utf-8").replace("| figure |", "| a figure |", 1))
    stale = render_cli(option, str(page), "--check")
    assert stale.returncode == 1 and "differs" in stale.stderr
    assert render_cli(option, str(page)).returncode == 0
    assert page.read_text(encoding="utf-8") == PAGE.read_text(encoding="utf-8")
    assert render_cli(option, str(page), "--check").returncode == 0


def test_the_default_page_is_docs_performance_md():
    checked = render_cli("--check")
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == "" and checked.stderr == ""


@pytest.mark.parametrize("text", [
    "# no markers\n",
    f"{render_performance.BEGIN}\n{render_performance.BEGIN}\n{render_performance.END}\n",
    f"{render_performance.END}\n{render_performance.BEGIN}\n",
])
def test_page_without_one_pair_of_markers_is_a_one_line_error(tmp_path, text):
    page = tmp_path / "performance.md"
    page.write_text(text)
    done = render_cli("--page", str(page))
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1 and "markers" in done.stderr
    assert page.read_text() == text


def test_section_is_replaced_between_the_markers_only():
    page = f"intro\n{render_performance.BEGIN}\nold\n{render_performance.END}\nrest\n"
    new = render_performance.replace_section(page, "## Latest measurements\n\nnew\n", Path("performance.md"))
    assert new == f"intro\n{render_performance.BEGIN}\n## Latest measurements\n\nnew\n{render_performance.END}\nrest\n"


def test_unrecorded_known_scripts_are_named_and_unknown_ones_grouped(committed):
    rec = copy.deepcopy(committed)
    entry = first_script(rec)
    entry["context"]["command"] = [str(Path("bench", "bench_new_thing.py"))]  # a script that does not exist
    rec["scripts"] = {"bench_new_thing": entry}
    section = render_performance.render_section(rec)
    assert "**Other benchmarks**" in section and "`bench_new_thing.py`:" in section
    assert "`bench_tables.py`" in section and "not recorded yet" in section


def test_a_partial_run_keeps_its_own_entry_beside_the_full_one(tmp_path, committed):
    path = tmp_path / "results.json"
    shutil.copy(RECORD, path)
    with record.BenchRun(BENCH / "bench_paper.py", record_path=path, entry="bench_paper_subset") as run:
        run.figure("a subset of the paper", [1.0, 2.0, 3.0], "s")
    after = record.read_record(path)
    assert after["scripts"]["bench_paper"] == committed["scripts"]["bench_paper"]
    assert after["scripts"]["bench_paper_subset"]["figures"][0]["repeats"] == 3
    after["scripts"]["bench_paper_subset"]["context"]["command"] = ["bench/bench_paper.py", "--folds", "2"]
    section = render_performance.render_section(after)
    assert "`bench_paper.py`: `python bench/bench_paper.py --folds 2`" in section
    del after["scripts"]["bench_paper_subset"]
    assert "`bench_paper_subset`: not recorded yet" in render_performance.render_section(after)
