"""Write the "Latest measurements" section of docs/performance.md from the performance record
(bench/results.json).

The section sits between the lines ``<!-- performance:begin -->`` and ``<!-- performance:end -->``
of the page and is generated whole: the machine, the load and the date of every run, and one table per bench
script with each figure's median, spread and number of runs, its peers and the ratios. A growth
run (``bench_growth.py``) adds its table of exponents and predictions and a log-log figure, drawn
into ``img/`` beside the page; and the column "largest dataset within the task budget" of
``methods/README.md`` beside the page (docs/methods/README.md) is filled from the same record.

    python bench/render_performance.py            # rewrite the section
    python bench/render_performance.py --check    # exit 1 if the section or the column differs from the record

``make bench`` runs it after the bench scripts; docs/benchmarks.md describes the record.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Mapping, Sequence

import growth_model
from record import PARTIAL_RUNS, PERFORMANCE_PAGE, RECORD_PATH, format_measurement, format_number, read_record

from pipeline.cli import run_main
from pipeline.errors import DataError
from pipeline.fileio import atomic_write_text
from pipeline.report.tables import markdown_escape

BEGIN, END = "<!-- performance:begin -->", "<!-- performance:end -->"
#: The section's groups of bench scripts, in order; a recorded script not listed here goes last.
GROUPS = (
    ("Core protocol", ("bench_startup", "bench_mlknn_kgrid", "bench_octave_bridge", "bench_executors", "bench_tables",
                       "bench_figures", "bench_paper", *PARTIAL_RUNS["bench_paper"], "bench_tuning", "bench_inner_setup")),
    ("Baselines", ("bench_baselines1", "bench_baselines2", "bench_methods_paper")),
    ("Sibling protocols", ("bench_steering_stats", "bench_motion_metrics", "bench_forecast_metrics",
                           "bench_har_protocol")),
    ("Cost as data grows", ("bench_growth", *PARTIAL_RUNS["bench_growth"])),
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
            if "growth" in scripts[name].get("data", {}):
                parts += [growth_section(scripts[name]["data"]["growth"]), ""]
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


# --- the growth bench (bench_growth.py) --------------------------------------------------------

#: The catalogue beside the page whose column "largest dataset within the task budget" is filled
#: from the growth bench (docs/methods/README.md for docs/performance.md); skipped where there is none.
CATALOGUE = Path("methods", "README.md")
NOT_MEASURED = "not measured"
CATALOGUE_COLUMN = "largest dataset within the task budget"
_CATALOGUE_ROW = re.compile(r"^\| \[(?P<method>[A-Za-z0-9_]+)\]\((?P=method)\.md\) \|.*\| (?P<cell>[^|]*) \|$")


def growth_figure_name(growth: Mapping) -> str:
    """The log-log figure of a growth run (its subset in the name), in ``img/`` beside the page."""
    return f"img/growth_cpu_vs_n_{growth['subset']}.png"


def growth_section(growth: Mapping) -> str:
    """The growth run's table (exponents, how each series ended, the predicted largest shipped
    dataset within the default budget) and its figure."""
    sizes = ", ".join(f"{axis} {'/'.join(f'{size:,}' for size in growth['sizes'][axis])}" for axis in growth_model.AXES)
    budget, default = growth["point_budget"], growth["default_budget"]
    rows = [f"Growth, {growth['subset']} subset ({sizes}; n at d {growth['fixed_d']:,}, d at n "
            f"{growth['fixed_n']:,}; L {growth['n_labels']}; budget per point "
            f"{format_number(budget['seconds'])} s, {format_number(budget['memory_bytes'] / 2**30)} GiB). Exponent: "
            f"least-squares slope on log-log of the finished points (at least {growth_model.MIN_FIT_POINTS}) of the "
            f"task's CPU seconds, then of its peak resident memory, each above {growth_model.FLOOR_METHOD}'s at the same "
            "size (the task's fixed cost: worker, fold, a one-point evaluation); a point within "
            f"{format_number(growth_model.RESOLUTION['cpu_s'])} s or {format_number(growth_model.RESOLUTION['peak_rss_mib'])}"
            f" MiB of it is not fitted (*{growth_model.TOO_FEW_POINTS}*: fewer than {growth_model.MIN_FIT_POINTS} sizes "
            "of the series finished above that: at small sizes a cheap method's cost is lost in the task's). The largest shipped dataset (of the "
            f"{len(growth_model.SHIPPED_DATASETS)}, by n_train × d) within the default task budget "
            f"({format_number(default['seconds'])} s, {format_number(default['memory_bytes'] / 2**30)} GiB) is "
            "*predicted* from the two fits (L fixed: a method whose cost grows with L is under-predicted on "
            "delicious's 983 labels).", "",
            "| method | exponent in n (CPU; memory) | exponent in d (CPU; memory) | n series | d series "
            "| largest shipped dataset within the default budget |", "|---|---|---|---|---|---|"]
    for method, series in growth_model.with_net_costs(growth["methods"]).items():
        cells = [_exponents(series[axis], axis) for axis in growth_model.AXES]
        ends = [growth_model.describe_end(series[axis], axis) for axis in growth_model.AXES]
        largest = growth_model.describe_largest(series, default["seconds"], default["memory_bytes"])
        rows.append(f"| {method} | {' | '.join(cells)} | {' | '.join(ends)} | {largest} |")
    figure = growth_figure_name(growth)
    rows += ["", f"![CPU seconds above {growth_model.FLOOR_METHOD}'s against n (log-log, d {growth['fixed_d']:,}, "
                 f"{growth['subset']} subset), one line per method; a cross: the next size did not finish]({figure})"]
    return "\n".join(rows)


def _exponents(series, axis: str) -> str:
    time, memory = (growth_model.exponent(series, axis, cost) for cost in (growth_model.TIME_COST,
                                                                            growth_model.MEMORY_COST))
    return "; ".join(growth_model.TOO_FEW_POINTS if value is None else f"{round(value, 2) + 0.0:.2f}"  # + 0.0: no "-0.00"
                     for value in (time, memory))


def write_growth_figure(growth: Mapping, page: Path) -> Path:
    """Draw the growth run's CPU seconds against n, one line per method, as a PNG beside ``page``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5.5))
    colours = plt.get_cmap("tab20").colors
    for index, (method, series) in enumerate(growth_model.with_net_costs(growth["methods"]).items()):
        done = [p for p in growth_model.finished(series["n"]) if p[growth_model.TIME_COST] is not None]
        style = {"color": colours[index % len(colours)], "linestyle": ("-", "--", ":")[index // len(colours) % 3]}
        axes.plot([p["n"] for p in done], [p[growth_model.TIME_COST] for p in done], marker="o", markersize=3,
                  label=method, **style)
        end = growth_model.series_end(series["n"])
        if end is not None and done:  # where the line stops: the next size ran out of budget (or failed)
            axes.plot([done[-1]["n"]], [done[-1][growth_model.TIME_COST]], marker="x", markersize=9, **style)
    axes.set(xscale="log", yscale="log", xlabel="n (training rows)",
             ylabel=f"CPU seconds above {growth_model.FLOOR_METHOD}'s (1 BLAS thread)",
             title=f"Cost as n grows, d {growth['fixed_d']:,}, L {growth['n_labels']} ({growth['subset']} subset)")
    axes.legend(fontsize=7, ncol=2, loc="upper left")
    axes.grid(True, which="both", alpha=0.3)
    path = page.parent / growth_figure_name(growth)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(figure)
    return path


def growth_runs(record: Mapping) -> list[Mapping]:
    """The growth runs of the record, the full run first (its figures replace the quick run's)."""
    scripts = record["scripts"]
    return [scripts[name]["data"]["growth"] for name in ("bench_growth", "bench_growth_quick")
            if "growth" in scripts.get(name, {}).get("data", {})]


def largest_dataset_cells(record: Mapping) -> dict[str, str]:
    """Method -> its catalogue cell: the predicted largest shipped dataset of the most complete run."""
    cells = {}
    for growth in reversed(growth_runs(record)):
        default = growth["default_budget"]
        for method, series in growth_model.with_net_costs(growth["methods"]).items():
            words = growth_model.describe_largest(series, default["seconds"], default["memory_bytes"])
            cells[method] = f"{words}, {growth['subset']} subset"
    return cells


def fill_catalogue(text: str, cells: Mapping[str, str]) -> str:
    """The catalogue with the last cell of each method row of the table headed by
    :data:`CATALOGUE_COLUMN` from ``cells`` (:data:`NOT_MEASURED` without one); nothing else changes."""
    lines, in_table = [], False
    for line in text.split("\n"):
        in_table = (in_table and line.startswith("|")) or line.endswith(f"| {CATALOGUE_COLUMN} |")
        match = _CATALOGUE_ROW.match(line) if in_table else None
        if match:
            line = line[:match.start("cell")] + cells.get(match["method"], NOT_MEASURED) + line[match.end("cell"):]
        lines.append(line)
    return "\n".join(lines)


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
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if the section (or the largest-dataset column of "
                             "methods/README.md beside the page) is stale")
    args = parser.parse_args(argv)
    try:
        page = args.page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError("cannot read", file=args.page, found=str(exc)) from None
    record = read_record(args.record)
    updated = replace_section(page, render_section(record), args.page)
    pages = [(args.page, page, updated, "performance section")]
    catalogue_path = args.page.parent / CATALOGUE
    if catalogue_path.is_file():
        catalogue = catalogue_path.read_text(encoding="utf-8")
        pages.append((catalogue_path, catalogue, fill_catalogue(catalogue, largest_dataset_cells(record)),
                      "largest-dataset column"))
    if args.check:
        stale = [path for path, before, after, _ in pages if before != after]
        for path in stale:
            print(f"{path}: differs from {args.record}; run python bench/render_performance.py", file=sys.stderr)
        return 1 if stale else 0
    for path, before, after, what in pages:
        if after != before:
            atomic_write_text(path, after)
        print(f"{path}: {what} {'rewritten' if after != before else 'already up to date'}")
    for growth in growth_runs(record):
        print(f"{write_growth_figure(growth, args.page)}: drawn")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
