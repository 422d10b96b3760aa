"""Experiment directory, result files and the Markdown report (spec §4.9), all written atomically.

Layout of ``<output-dir>/exp_YYYYMMDD_HHMMSS/`` (or ``--experiment-name``): ``config.json``,
``<benchmark>.csv``, ``<benchmark>_summary.json``, ``summary.json``, ``report.md``.
"""

from __future__ import annotations

import datetime as dt
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Sequence

import pandas as pd

from pipeline.errors import ConfigError, DataError
from pipeline.fileio import atomic_write_json, atomic_write_text
from pipeline.names import validate_name

from .runner import BenchmarkRun

PACKAGES = ("numpy", "pandas", "scipy", "statsforecast", "pyarrow", "torch", "transformers",
            "chronos-forecasting", "mlfs-bench")
CSV_COLUMNS = ("dataset", "model", "MASE", "WQL")


def experiment_dir(output_dir: str | Path, name: str | None, now: dt.datetime | None = None) -> Path:
    """``<output_dir>/<name>`` or ``<output_dir>/exp_YYYYMMDD_HHMMSS`` (UTC); must not exist yet."""
    now = now or dt.datetime.now(dt.timezone.utc)
    folder = Path(output_dir) / (validate_name(name, "experiment") if name else now.strftime("exp_%Y%m%d_%H%M%S"))
    if folder.exists():
        raise ConfigError("experiment directory already exists", file=folder,
                          expected="a new --experiment-name")
    return folder


def package_versions() -> dict:
    versions = {"python": platform.python_version()}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return "nan" if value != value else f"{value:.4f}"
    return str(value)


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (floats with 4 decimals)."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def write_benchmark(folder: Path, run: BenchmarkRun) -> None:
    """``<bench>.csv`` (the full per-dataset table, sorted by dataset) and ``<bench>_summary.json``."""
    atomic_write_text(folder / f"{run.name}.csv", run.table.to_csv(index=False, float_format="%.10g"))
    atomic_write_json(folder / f"{run.name}_summary.json", run.summary)


def write_experiment(folder: Path, config: dict, runs: Sequence[BenchmarkRun], total_seconds: float,
                     command: str, comparison: str | None = None) -> None:
    """Write every result file of one ``run_benchmark`` call."""
    for run in runs:
        write_benchmark(folder, run)
    atomic_write_json(folder / "config.json", config)
    summary = {"total_seconds": total_seconds,
               "benchmarks": {run.name: {"status": run.summary["status"], "timings": run.timings,
                                         "seconds": sum(t["total_seconds"] for t in run.timings.values())}
                              for run in runs}}
    atomic_write_json(folder / "summary.json", summary)
    atomic_write_text(folder / "report.md", render_report(config, runs, total_seconds, command, comparison))


def render_report(config: dict, runs: Sequence[BenchmarkRun], total_seconds: float, command: str,
                  comparison: str | None = None) -> str:
    """The six sections: executive summary, per-benchmark, per-dataset, environment, timings, reproduction."""
    lines = [f"# Forecasting benchmark report: {config['model']['model_path']}", "", "## Executive summary", ""]
    for run in runs:
        s = run.summary
        if s["status"] != "ok":
            lines.append(f"- **{run.name}**: FAILED ({s.get('error', '')})")
            continue
        lines.append(f"- **{run.name}**: {s['n_datasets']} datasets, mean MASE {_fmt(s['avg_mase'])}, "
                     f"mean WQL {_fmt(s['avg_wql'])}, gmean relative MASE {_fmt(s['gmean_relative_mase'])} "
                     f"and WQL {_fmt(s['gmean_relative_wql'])} vs {config['baseline'][run.name]} (< 1 beats it)")
    lines += ["", "## Per-benchmark results", ""]
    scalar_keys = sorted({k for run in runs for k, v in run.summary.items() if not isinstance(v, (dict, list))})
    summary_rows = [[run.name, *(run.summary.get(k, "") for k in scalar_keys)] for run in runs]
    lines += [markdown_table(pd.DataFrame(summary_rows, columns=["benchmark", *scalar_keys], dtype=object)), ""]
    lines += ["## Per-dataset results", ""]
    for run in runs:
        columns = ["dataset", "status", "MASE", "WQL", "SQL", "relative_MASE", "relative_WQL", "n_series"]
        lines += [f"### {run.name}", "", markdown_table(run.table[columns]), ""]
    if comparison:
        lines += ["## Comparison with other runs", "", comparison, ""]
    lines += ["## Environment", ""]
    lines += [f"- {key}: {value}" for key, value in sorted(config["environment"].items())]
    lines += [f"- device: {config['model'].get('device')}, dtype: {config['model'].get('torch_dtype')}, "
              f"batch size: {config['model'].get('batch_size')}", ""]
    lines += ["## Timings", "", f"Total: {total_seconds:.2f} s", ""]
    timing_rows = [{"benchmark": run.name, "dataset": label, **times}
                   for run in runs for label, times in sorted(run.timings.items())]
    if timing_rows:
        lines += [markdown_table(pd.DataFrame(timing_rows)), ""]
    lines += ["## Reproduction command", "", "```", command, "```", ""]
    return "\n".join(lines)


def load_results(results_dir: str | Path) -> dict[str, pd.DataFrame]:
    """Per-benchmark tables of one experiment directory (from its ``config.json`` benchmark list)."""
    import json

    folder = Path(results_dir)
    config_file = folder / "config.json"
    if not config_file.is_file():
        raise DataError("not an experiment directory (config.json missing)", file=folder)
    benchmarks = json.loads(config_file.read_text(encoding="utf-8"))["benchmarks"]
    tables = {}
    for name in benchmarks:
        csv = folder / f"{name}.csv"
        if not csv.is_file():
            raise DataError("benchmark table missing", file=csv)
        tables[name] = pd.read_csv(csv)
    return tables


def compare_tables(results_dirs: Sequence[str | Path], model_names: Sequence[str],
                   metrics: Sequence[str] = ("MASE", "WQL")) -> pd.DataFrame:
    """One row per (benchmark, dataset), one column per (metric, model); NaN where a run lacks it."""
    if len(results_dirs) != len(model_names):
        raise ConfigError("need one model name per results directory", field="--model-names",
                          expected=len(results_dirs), found=len(model_names))
    for name in model_names:
        validate_name(name, "model")
    frames = []
    for folder, model in zip(results_dirs, model_names):
        for bench, table in load_results(folder).items():
            part = table[["dataset", *metrics]].copy()
            part.insert(0, "benchmark", bench)
            part["model"] = model
            frames.append(part)
    merged = pd.concat(frames, ignore_index=True)
    wide = merged.pivot_table(index=["benchmark", "dataset"], columns="model", values=list(metrics),
                              aggfunc="first", dropna=False)
    wide.columns = [f"{metric}[{model}]" for metric, model in wide.columns]
    ordered = [f"{metric}[{model}]" for metric in metrics for model in model_names]
    return wide.reindex(columns=ordered).reset_index().sort_values(["benchmark", "dataset"], kind="stable")


def format_table(frame: pd.DataFrame, fmt: str) -> str:
    """Render a comparison table as ``markdown``, ``csv`` or ``latex`` (names escaped)."""
    if fmt == "markdown":
        return markdown_table(frame) + "\n"
    if fmt == "csv":
        return frame.to_csv(index=False, float_format="%.10g")
    if fmt == "latex":
        from pipeline.report.latex import latex_escape

        header = " & ".join(latex_escape(str(c)) for c in frame.columns) + r" \\"
        rows = [" & ".join(latex_escape(str(v)) if not isinstance(v, float) else _fmt(v) for v in row) + r" \\"
                for row in frame.itertuples(index=False)]
        spec = "l" * 2 + "r" * (len(frame.columns) - 2)
        return "\n".join([rf"\begin{{tabular}}{{{spec}}}", r"\hline", header, r"\hline", *rows, r"\hline",
                          r"\end{tabular}", ""])
    raise ConfigError("unknown output format", field="--format", expected="markdown, csv or latex", found=fmt)


def run_config(factory_description: dict, benchmarks: Sequence[str], baselines: dict, datasets_root: str,
               levels: Sequence[float], on_missing: str, command: str) -> dict:
    return {"model": factory_description, "benchmarks": list(benchmarks), "baseline": baselines,
            "datasets_root": datasets_root, "quantile_levels": list(levels), "on_missing": on_missing,
            "command": command, "environment": {**package_versions(), "platform": platform.platform(),
                                                "executable": sys.executable}}
