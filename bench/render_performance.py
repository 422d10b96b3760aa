"""Write the "Latest measurements" section of docs/performance.md from the performance record
(bench/results.json).

The section sits between the lines ``<!-- performance:begin -->`` and ``<!-- performance:end -->``
of the page and is generated whole: the machine, the load and the date of every run, and one table per bench
script with each figure's median, spread and number of runs, its peers and the ratios.

    python bench/render_performance.py            # rewrite the section
    python bench/render_performance.py --check    # exit 1 if the section differs from the record

``make bench`` runs it after the bench scripts; docs/benchmarks.md describes the record.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Mapping, Sequence

from record import PARTIAL_RUNS, PERFORMANCE_PAGE, RECORD_PATH, format_measurement, format_number, read_record

from pipeline.cli import run_main
from pipeline.errors import DataError
from pipeline.fileio import atomic_write_text
from pipeline.report.tables import markdown_escape

BEGIN, END = "<!-- performance:begin -->", "<!-- performance:end -->"
#: The section's groups of bench scripts, in order; a recorded script not listed here goes last.
GROUPS = (
    ("Core protocol", ("bench_startup", "bench_mlknn_kgrid", "bench_octave_bridge", "bench_executors", "bench_tables",
                       "bench_paper", *PARTIAL_RUNS["bench_paper"], "bench_tuning", "bench_inner_setup")),
    ("Baselines", ("bench_baselines1", "bench_baselines2", "bench_methods_paper")),
    ("Sibling protocols", ("bench_steering_stats", "bench_motion_metrics", "bench_forecast_metrics",
                           "bench_har_protocol")),
)
OTHER_GROUP = "Other benchmarks"
HEADING = "## Latest measurements"

INTRODUCTION = """\
{machine}{software}
The 1-minute load average was between {load_low} and {load_high} during the runs (each script's is
given with its table): absolute times depend on the load of the machine and vary from run to run,
so each figure is the median of its runs followed by the range (min–max) and the number of runs,
and every ratio (peer / measured, of the medians) is against a peer measured in the same run.

Run them yourself with `make bench` (every script, then this section is regenerated from
`bench/results.json`) or `python bench/<name>.py` followed by `python bench/render_performance.py`;
`docs/benchmarks.md` says what is recorded and how to run the full paper."""


def render_section(record: Mapping) -> str:
    """The Markdown between the markers (heading included), from a valid record."""
    scripts = record["scripts"]
    contexts = [entry["context"] for entry in scripts.values()]
    shared_machine = _shared(machine_text(c) for c in contexts)
    shared_software = _shared(software_text(c) for c in contexts)
    loads = [load for c in contexts for load in (c["load"]["before"][0], c["load"]["after"][0])]
    parts = [HEADING, ""]
    if contexts:
        parts += [INTRODUCTION.format(
            machine=f"Measured on one machine: {shared_machine}." if shared_machine
            else "Measured on the machines given with each table.",
            load_low=format_number(min(loads)), load_high=format_number(max(loads)),
            software=f" Software: {shared_software}." if shared_software else ""), ""]
    else:
        parts += ["No benchmark has been recorded yet: run `make bench`.", ""]
    for group, names in _groups(scripts):
        parts += [f"**{group}**", ""]
        missing = [name for name in names if name not in scripts]
        for name in (name for name in names if name in scripts):
            parts += [script_heading(name, scripts[name]["context"], not shared_machine, not shared_software), "",
                      figures_table(scripts[name]["figures"]), ""]
        if missing:
            parts += [", ".join(f"`{entry_file(name)}`" for name in missing) + ": not recorded yet.", ""]
    return "\n".join(parts)


def entry_file(name: str) -> str:
    """The script file of a record entry, or the entry's own name for a script's partial run."""
    return name if any(name in entries for entries in PARTIAL_RUNS.values()) else f"{name}.py"


def _groups(scripts: Mapping) -> list[tuple[str, Sequence[str]]]:
    listed = {name for _, names in GROUPS for name in names}
    others = tuple(sorted(name for name in scripts if name not in listed))
    return list(GROUPS) + ([(OTHER_GROUP, others)] if others else [])


def _shared(texts) -> str | None:
    distinct = set(texts)
    return distinct.pop() if len(distinct) == 1 else None


def machine_text(context: Mapping) -> str:
    m = context["machine"]
    return markdown_escape(f"{m['cpu']}, {m['cores']} cores, {format_number(m['memory_gib'])} GiB, {m['os']}")


def software_text(context: Mapping) -> str:
    v = context["versions"]
    octave = f"Octave {v['octave']} with {v['octave_blas']}" if v["octave"] else "no Octave"
    return markdown_escape(f"Python {v['python']}, NumPy {v['numpy']}, {octave}")


def command_text(command: Sequence[str]) -> str:
    """The command as a code span, or as escaped text if it holds a backtick (which would end the span)."""
    text = " ".join(["python", *command])
    return markdown_escape(text) if "`" in text else f"`{text}`"


def script_heading(name: str, context: Mapping, with_machine: bool, with_software: bool) -> str:
    """`script.py` — command, date, commit, load (and machine/software when they differ between runs).

    The script is the one the command ran (an entry of a partial run is not named after a file).
    """
    git = context["git"]
    commit = f"commit {git['commit'][:10]}" if git["commit"] else "no git commit"
    if git["dirty"]:
        commit += " with uncommitted changes"
    load = context["load"]
    facts = [command_text(context["command"]),
             context["started"].replace("T", " ")[:16] + " UTC", commit,
             f"load {format_number(load['before'][0])} → {format_number(load['after'][0])}"]
    facts += [machine_text(context)] if with_machine else []
    facts += [software_text(context)] if with_software else []
    script = Path(context["command"][0]).name if context["command"] else entry_file(name)
    return f"`{script}`: " + "; ".join(facts)


def figures_table(figures: Sequence[Mapping]) -> str:
    rows = ["| figure | measured | peer, same run | peer / measured |", "|---|---|---|---|"]
    for figure in figures:
        unit = figure["unit"]
        peers = "; ".join(f"{markdown_escape(p['name'])}: {format_measurement(p, unit)}" for p in figure["peers"])
        ratios = " / ".join("–" if p["ratio"] is None else f"{format_number(p['ratio'])}×" for p in figure["peers"])
        rows.append(f"| {markdown_escape(figure['name'])} | {format_measurement(figure, unit)} | {peers} | {ratios} |")
    return "\n".join(rows)


def section_bounds(page: str, path: Path) -> tuple[int, int]:
    """Start and end offsets of the text between the two marker lines."""
    begin, end = page.count(BEGIN), page.count(END)
    if begin != 1 or end != 1 or page.index(END) < page.index(BEGIN):
        raise DataError("the performance section's markers are missing, repeated or out of order", file=path,
                        field="markers", expected=f"one {BEGIN} line, then one {END} line",
                        found=f"{begin} begin and {end} end markers")
    return page.index(BEGIN) + len(BEGIN), page.index(END)


def replace_section(page: str, section: str, path: Path) -> str:
    start, stop = section_bounds(page, path)
    return page[:start] + "\n" + section.strip("\n") + "\n" + page[stop:]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, default=RECORD_PATH, help="the record (default: bench/results.json)")
    # --readme is the option's name from when the section lived in README.md
    parser.add_argument("--page", "--readme", type=Path, default=PERFORMANCE_PAGE,
                        help="the file to update (default: docs/performance.md)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the section is stale")
    args = parser.parse_args(argv)
    try:
        page = args.page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError("cannot read", file=args.page, found=str(exc)) from None
    updated = replace_section(page, render_section(read_record(args.record)), args.page)
    if args.check:
        if updated != page:
            print(f"{args.page}: the performance section differs from {args.record}; "
                  "run python bench/render_performance.py", file=sys.stderr)
            return 1
        return 0
    if updated != page:
        atomic_write_text(args.page, updated)
    print(f"{args.page}: performance section {'rewritten' if updated != page else 'already up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
