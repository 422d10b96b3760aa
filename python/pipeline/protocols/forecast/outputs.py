"""Experiment directory, result files and the Markdown report, all written atomically.

Layout of ``<output-dir>/exp_YYYYMMDD_HHMMSS/`` (or ``--experiment-name``): ``config.json``,
``<result>.csv`` and ``<result>_summary.json`` per benchmark (``<result>`` as the original
framework names them: ``chronos_lite``, ``chronos_bench_in_domain``, ...), ``summary.json``,
``report.md``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Sequence

import pandas as pd

from ...errors import ConfigError
from ...fileio import atomic_write_json, atomic_write_text, csv_safe_frame
from ...names import validate_name
from ...report.tables import markdown_escape
from .compare import format_value, markdown_table
from .environment import environment
from .runner import BenchmarkRun


def experiment_dir(output_dir: str | Path, name: str | None, now: dt.datetime | None = None) -> Path:
    """``<output_dir>/<name>`` or ``<output_dir>/exp_YYYYMMDD_HHMMSS`` (UTC); must not exist yet."""
    now = now or dt.datetime.now(dt.timezone.utc)
    folder = Path(output_dir) / (validate_name(name, "experiment") if name else now.strftime("exp_%Y%m%d_%H%M%S"))
    if folder.exists():
        raise ConfigError("experiment directory already exists", file=folder,
                          expected="a new --experiment-name")
    return folder


def write_benchmark(folder: Path, run: BenchmarkRun) -> tuple[Path, Path]:
    """``<result>.csv`` (the full per-dataset table, sorted by dataset) and ``<result>_summary.json``."""
    csv = atomic_write_text(folder / f"{run.result_name}.csv", csv_safe_frame(run.table).to_csv(index=False, float_format="%.10g"))
    return csv, atomic_write_json(folder / f"{run.result_name}_summary.json", run.summary)


def write_config(folder: Path, config: dict) -> Path:
    """``config.json``, through which :func:`.compare.load_results` finds the benchmark tables."""
    return atomic_write_json(folder / "config.json", config)


def write_experiment(folder: Path, config: dict, runs: Sequence[BenchmarkRun], total_seconds: float,
                     rerun: str, comparison: str | None = None) -> Path:
    """``summary.json`` and ``report.md``; ``config.json`` comes first from :func:`write_config`.

    ``rerun`` is the command that runs the experiment again as printed (into a new folder).
    """
    summary = {"total_seconds": total_seconds,
               "benchmarks": {run.name: {"status": run.summary["status"], "timings": run.timings,
                                         "seconds": run.seconds,
                                         **({"skill_scores": run.summary["skill_scores"]}
                                            if "skill_scores" in run.summary else {})} for run in runs}}
    atomic_write_json(folder / "summary.json", summary)
    return atomic_write_text(folder / "report.md", render_report(config, runs, total_seconds, rerun, comparison))


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _skill_text(skill: dict, metric: str) -> str:
    score = skill[metric]
    return (f"skill score ({metric}) {format_value(score['skill_score'])} "
            f"[{format_value(score['skill_score_lower'])}, {format_value(score['skill_score_upper'])}]")


def _executive_line(run: BenchmarkRun, baseline: str) -> str:
    s, name = run.summary, markdown_escape(run.name)
    if s["status"] != "ok":
        return f"- **{name}**: FAILED ({markdown_escape(s.get('error', ''))})"
    skill = s["skill_scores"]
    return (f"- **{name}**: {plural(s['n_datasets'], 'dataset')}, mean MASE {format_value(s['avg_mase'])}, "
            f"mean WQL {format_value(s['avg_wql'])}, gmean relative MASE {format_value(s['gmean_relative_mase'])} "
            f"and WQL {format_value(s['gmean_relative_wql'])} vs {markdown_escape(baseline)} (< 1 beats it); "
            f"{_skill_text(skill, 'MASE')}, {_skill_text(skill, 'WQL')} "
            f"(95 % bootstrap CI over {plural(skill['MASE']['n_tasks'], 'task')}; > 0 beats it)")


def render_report(config: dict, runs: Sequence[BenchmarkRun], total_seconds: float, rerun: str,
                  comparison: str | None = None) -> str:
    """The six sections: executive summary, per-benchmark, per-dataset, environment, timings, reproduction."""
    lines = [f"# Forecasting benchmark report: {markdown_escape(config['model']['model_path'])}", "",
             "## Executive summary", ""]
    lines += [_executive_line(run, config["baseline"][run.name]) for run in runs]
    lines += ["", "## Per-benchmark results", ""]
    scalar_keys = sorted({k for run in runs for k, v in run.summary.items() if not isinstance(v, (dict, list))})
    summary_rows = [[run.name, *(run.summary.get(k, "") for k in scalar_keys)] for run in runs]
    lines += [markdown_table(pd.DataFrame(summary_rows, columns=["benchmark", *scalar_keys], dtype=object)), ""]
    lines += ["## Per-dataset results", ""]
    for run in runs:
        columns = ["dataset", "status", "MASE", "WQL", "SQL", "relative_MASE", "relative_WQL", "n_series"]
        lines += [f"### {markdown_escape(run.name)} (`{run.result_name}.csv`)", "",
                  markdown_table(run.table[columns]), ""]
    if comparison:
        lines += ["## Comparison with other runs", "", comparison, ""]
    lines += ["## Environment", ""]
    lines += [f"- {markdown_escape(key)}: {markdown_escape(value)}"
              for key, value in sorted(config["environment"].items())]
    model = config["model"]
    lines += [f"- device: {model.get('device')} (requested {model.get('device_requested')}), "
              f"dtype: {model.get('torch_dtype')}, batch size: {model.get('batch_size')}", ""]
    lines += ["## Timings", "", f"Total: {total_seconds:.2f} s", ""]
    timing_rows = [{"benchmark": run.name, "dataset": label, **times}
                   for run in runs for label, times in sorted(run.timings.items())]
    if timing_rows:
        lines += [markdown_table(pd.DataFrame(timing_rows)), ""]
    lines += ["## Reproduction command", "",
              "From the folder the run started in; it writes a new timestamped experiment folder "
              "beside this one (the original command line is `command` in config.json).", "",
              "```", rerun, "```", ""]
    return "\n".join(lines)


def run_config(factory_description: dict, benchmarks: Sequence, datasets_root: str, levels: Sequence[float],
               on_missing: str, command: str) -> dict:
    """``config.json``: model, benchmarks with their result files and baselines, data, policy, environment."""
    return {"model": factory_description, "benchmarks": [b.name for b in benchmarks],
            "result_files": {b.name: b.result_name for b in benchmarks},
            "baseline": {b.name: b.baseline_model for b in benchmarks},
            "datasets_root": datasets_root, "quantile_levels": list(levels), "on_missing": on_missing,
            "command": command, "environment": environment(check_cuda=False)}
