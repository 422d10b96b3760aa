"""``python -m pipeline.tables``: regenerate the paper tables, statistics, report and figures.

From one results directory (k-grid or p-grid metrics files) it writes into ``--out-dir``:

* ``table_microf1.tex``, ``table_macrof1.tex``, ``table_hamming.tex``, ``table_micro_pr_auc.tex``,
  ``table_macro_pr_auc.tex``, ``table_avg_precision.tex``, ``table_one_error.tex``: datasets x
  methods, mean +- sample std over folds, best bold, second underlined, average-rank and W/T/L rows;
* ``table_ranks.tex``: average rank of every method per metric, with the Friedman and
  Iman–Davenport p values;
* ``table_stats.tex``: Friedman / Iman–Davenport / Nemenyi CD per metric, Wilcoxon + Holm per
  method against the reference;
* ``benchmark_means_<grid>.csv`` (tidy: dataset, method, metric, mean, std, n_folds),
  ``stats_<grid>.json`` (every number of the statistics), ``report.md`` (the same as Markdown);
* ``figures/``: curves per dataset and averaged over datasets, CD diagrams (PNG + PDF).
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Sequence

import numpy as np

from . import aggregate as agg
from .cli import run_main
from .errors import ConfigError
from .evaluation.metrics import METRICS
from .fileio import atomic_write_json, atomic_write_text
from .names import validate_name
from .report.tables import (RankTable, ScoreTable, StatsBlock, StatsRow, StatsTable, markdown_escape,
                            render_score_table_latex, render_score_table_markdown,
                            render_rank_table_latex, render_rank_table_markdown,
                            render_stats_table_latex, render_stats_table_markdown)
from .stats.compare import Comparison, compare_methods

SIG_ALPHA = 0.05


def read_display_map(path: str | Path | None) -> dict[str, str]:
    """Load ``{"internal name": "Display Name", ...}``; keys and values must be non-empty strings."""
    if path is None:
        return {}
    path = Path(path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("display map not found", file=path) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read display map: {exc}", file=path) from None
    if not isinstance(obj, dict):
        raise ConfigError("display map must be a JSON object", file=path,
                          expected='{"name": "Display Name"}', found=type(obj).__name__)
    for key, value in obj.items():
        if not isinstance(value, str) or not value.strip() or not key:
            raise ConfigError("display map entries must map a name to a non-empty string", file=path,
                              field=key, found=repr(value))
    return obj


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m pipeline.tables", description=__doc__.splitlines()[0])
    p.add_argument("--results-dir", required=True, help="results/<RUN> with one folder per method")
    p.add_argument("--methods", nargs="+", default=None, help="column order (default: all method folders, sorted)")
    p.add_argument("--datasets", nargs="+", default=None, help="restrict to these datasets")
    p.add_argument("--ref-method", required=True, help="reference method (Wilcoxon, W/T/L, gain)")
    p.add_argument("--out-dir", default="paper/tables")
    p.add_argument("--display-map", default=None, help="JSON object: internal name -> display name")
    p.add_argument("--grid", choices=agg.GRIDS, default="kgrid")
    p.add_argument("--p-target", type=float, default=0.2, help="operating point of the p-grid tables")
    p.add_argument("--folds", type=int, default=None,
                   help="expected folds 0..N-1 per dataset (default: union of folds found)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="average cells over the folds they have (flagged) instead of failing")
    p.add_argument("--label-suffix", default="", help="appended as _SUFFIX to every LaTeX label")
    p.add_argument("--caption-note", default="", help="sentence appended to every caption")
    p.add_argument("--bayesian-rope", type=float, default=None,
                   help="add the Bayesian signed-rank P(ref better) column with this rope")
    p.add_argument("--fit-width", action="store_true",
                   help=r"shrink wide tables to \textwidth (the paper then needs \usepackage{graphicx})")
    p.add_argument("--no-figures", action="store_true", help="skip curves and CD diagrams")
    p.add_argument("--jobs", type=int, default=1, help="processes drawing the figures in parallel")
    p.add_argument("--all-curve-metrics", action="store_true",
                   help="plot all seven metrics in the curve figures (default: the three main ones)")
    return p


class TableJob:
    """One regeneration: loaded results plus the naming and captions chosen on the command line."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.methods = args.methods or agg.list_methods(args.results_dir)
        for m in self.methods:
            validate_name(m, "method")
        if len(set(self.methods)) != len(self.methods):
            raise ConfigError("--methods lists a method twice", field="--methods", found=self.methods)
        if args.ref_method not in self.methods:
            raise ConfigError("--ref-method is not among the methods", field="--ref-method",
                              expected=f"one of {self.methods}", found=args.ref_method)
        if args.bayesian_rope is not None and not args.bayesian_rope >= 0:
            raise ConfigError("--bayesian-rope must be >= 0", field="--bayesian-rope", found=args.bayesian_rope)
        if args.jobs < 1:
            raise ConfigError("--jobs must be at least 1", field="--jobs", found=args.jobs)
        self.display = read_display_map(args.display_map)
        shown = [self.name(m) for m in self.methods]
        if len(set(shown)) != len(shown):
            raise ConfigError("two methods get the same display name", file=args.display_map, found=shown)
        self.out = Path(args.out_dir)
        self.results = agg.load_results(args.results_dir, self.methods, args.grid,
                                        datasets=args.datasets, n_folds=args.folds)
        self.notes = self.results.check_complete(args.allow_incomplete)
        self.p_target = None
        if args.grid == "pgrid":
            self.p_target, p_notes = agg.p_target_used(self.results, args.p_target)
            self.notes += p_notes
        self.means = agg.summarise(agg.fold_table(self.results, p_target=args.p_target))
        self.comparisons: dict[str, Comparison] = {}
        self.excluded: dict[str, list[str]] = {}

    def name(self, internal: str) -> str:
        return self.display.get(internal, internal)

    def label(self, stem: str) -> str:
        suffix = f"_{self.args.label_suffix}" if self.args.label_suffix else ""
        return f"tab:{stem}_{self.args.grid}{suffix}"

    def operating_point(self) -> str:
        if self.args.grid == "kgrid":
            return "Each fold is averaged over the feature-count grid k = 10, 20, ..., min(300, d)."
        return f"At {100 * self.p_target:g}% selected features (p = {self.p_target:g})."

    def caption(self, text: str) -> str:
        return f"{text} {self.args.caption_note}".strip()

    def fold_counts(self) -> str:
        counts = sorted({len(f) for f in self.results.expected_folds.values()})
        return f"{'/'.join(map(str, counts))} folds"

    # -- building blocks ----------------------------------------------------------------------
    def metric_table(self, metric: str) -> ScoreTable:
        datasets = self.results.datasets
        mean, std, n = agg.score_frames(self.means, metric, self.methods, datasets)
        complete, excluded = agg.complete_rows(mean)
        self.excluded[metric] = excluded
        lower = metric in agg.LOWER_IS_BETTER
        comparison = None
        if len(complete):
            comparison = compare_methods(complete.to_numpy(), self.methods, blocks=complete.index,
                                         lower_is_better=lower, reference=self.args.ref_method,
                                         bayesian_rope=self.args.bayesian_rope)
            self.comparisons[metric] = comparison
        else:
            self.notes.append(f"{agg.METRIC_DISPLAY[metric]}: no dataset has a value for every method; "
                              "no ranks or tests")
        expected = np.array([[len(self.results.expected_folds[d])] * len(self.methods) for d in datasets])
        short = np.argwhere(n.fillna(0).to_numpy() < expected)
        flagged = {(int(i), int(j)) for i, j in short if np.isfinite(mean.iloc[i, j])}
        caption = self.operating_point()
        if excluded:
            caption += (f" Ranks and W/T/L use the {len(complete)} datasets with a value for every "
                        f"method (left out: {', '.join(self.name(d) for d in excluded)}).")
        wtl = None if comparison is None else {
            self.name(p.method): (p.wins, p.ties, p.losses) for p in comparison.pairwise}
        return ScoreTable(title=agg.METRIC_DISPLAY[metric], row_names=[self.name(d) for d in datasets],
                          column_names=[self.name(m) for m in self.methods], means=mean.to_numpy(float),
                          stds=std.to_numpy(float), lower_is_better=lower, caption=self.caption(caption),
                          label=self.label(agg.METRIC_TABLE_STEM[metric]), avg_ranks=None if comparison is None else comparison.avg_ranks,
                          win_tie_loss=wtl, reference=self.name(self.args.ref_method), flagged=flagged,
                          flag_note="averaged over fewer folds than expected (see report.md)",
                          spread_over=self.fold_counts(), fit_width=self.args.fit_width)

    def stats_table(self) -> StatsTable:
        blocks = []
        for metric in METRICS:
            c = self.comparisons.get(metric)
            if c is None:
                blocks.append(StatsBlock(agg.METRIC_DISPLAY[metric], metric in agg.LOWER_IS_BETTER, 0,
                                         None, None, None, None, None, []))
                continue
            fr = c.friedman
            rows = [StatsRow(self.name(p.method), p.gain, p.wins, p.ties, p.losses, p.wilcoxon.p_value,
                             p.holm_p, None if p.bayesian is None else p.bayesian.p_x_better)
                    for p in c.pairwise]
            blocks.append(StatsBlock(agg.METRIC_DISPLAY[metric], c.lower_is_better, len(c.blocks),
                                     None if fr is None else fr.chi2, None if fr is None else fr.chi2_p,
                                     None if fr is None else fr.iman_davenport_f,
                                     None if fr is None else fr.iman_davenport_p, c.nemenyi_cd[SIG_ALPHA], rows))
        caption = f"Statistical comparison over datasets. {self.operating_point()}"
        return StatsTable(blocks, self.name(self.args.ref_method), self.caption(caption), self.label("stats"),
                          alpha=SIG_ALPHA, cd_alpha=SIG_ALPHA, bayesian=self.args.bayesian_rope is not None,
                          fit_width=self.args.fit_width)

    def rank_table(self) -> RankTable:
        ranks = np.full((len(self.methods), len(METRICS)), np.nan)
        friedman, iman = [], []
        for j, metric in enumerate(METRICS):
            c = self.comparisons.get(metric)
            fr = None if c is None else c.friedman
            if c is not None:
                ranks[:, j] = c.avg_ranks
            friedman.append(None if fr is None else fr.chi2_p)
            iman.append(None if fr is None else fr.iman_davenport_p)
        return RankTable([self.name(m) for m in self.methods], [agg.METRIC_DISPLAY[m] for m in METRICS],
                         ranks, self.caption(self.operating_point()), self.label("ranks"),
                         {"Friedman p": friedman, "Iman-Davenport p": iman}, fit_width=self.args.fit_width)

    # -- outputs ------------------------------------------------------------------------------
    def write(self) -> list[Path]:
        written = []
        means = self.means.sort_values(["dataset", "method", "metric"], kind="mergesort")
        csv_path = self.out / f"benchmark_means_{self.args.grid}.csv"
        written.append(atomic_write_text(csv_path, means[["dataset", "method", "metric", "mean", "std", "n_folds"]]
                                         .to_csv(index=False, lineterminator="\n")))
        tables = {m: self.metric_table(m) for m in METRICS}
        for metric, table in tables.items():
            path = self.out / f"table_{agg.METRIC_TABLE_STEM[metric]}.tex"
            written.append(atomic_write_text(path, render_score_table_latex(table)))
        stats_table, rank_table = self.stats_table(), self.rank_table()
        written.append(atomic_write_text(self.out / "table_stats.tex", render_stats_table_latex(stats_table)))
        written.append(atomic_write_text(self.out / "table_ranks.tex", render_rank_table_latex(rank_table)))
        written.append(atomic_write_json(self.out / f"stats_{self.args.grid}.json", self.stats_json()))
        figures = [] if self.args.no_figures else self.figures()
        written += figures
        written.append(atomic_write_text(self.out / "report.md",
                                         self.report(tables, stats_table, rank_table, figures)))
        return written

    def stats_json(self) -> dict:
        return {"grid": self.args.grid, "p_target_used": self.p_target, "reference": self.args.ref_method,
                "notes": self.notes,
                "metrics": {m: {**c.to_dict(), "datasets": list(c.blocks), "excluded_datasets": self.excluded[m]}
                            for m, c in self.comparisons.items()}}

    def report(self, tables: dict[str, ScoreTable], stats_table: StatsTable, rank_table: RankTable,
               figures: list[Path]) -> str:
        a = self.args
        lines = [f"# Benchmark report ({a.grid})", "",
                 f"- results: `{Path(a.results_dir).name}`; methods: "
                 + ", ".join(markdown_escape(self.name(m)) for m in self.methods),
                 f"- reference: {markdown_escape(self.name(a.ref_method))}; datasets: {len(self.results.datasets)}; "
                 f"{self.fold_counts()}",
                 f"- operating point: {self.operating_point()}", ""]
        if self.notes:
            lines += ["## Notes", ""] + [f"- {markdown_escape(n)}" for n in self.notes] + [""]
        lines += ["## Tables", ""] + [render_score_table_markdown(t) for t in tables.values()]
        lines.append(render_rank_table_markdown(rank_table))
        lines.append(render_stats_table_markdown(stats_table))
        pngs = [f for f in figures if f.suffix == ".png"]
        if pngs:
            lines += ["## Figures", ""] + [f"![{f.stem}]({f.relative_to(self.out).as_posix()})" for f in pngs] + [""]
        return "\n".join(lines)

    def figures(self) -> list[Path]:
        """Curves per dataset, the mean curve and one CD diagram per metric (PNG + PDF each)."""
        from .report import figures as fig

        tasks = self._curve_tasks(fig.CurvePanel)
        for metric, c in self.comparisons.items():
            tasks.append((fig.plot_cd_diagram, (
                {self.name(m): r for m, r in zip(c.methods, c.avg_ranks)}, c.nemenyi_cd[SIG_ALPHA],
                self.out / "figures" / f"cd_{self.args.grid}_{metric}"), {
                "alpha": SIG_ALPHA, "cliques": [[self.name(m) for m in g] for g in c.cliques[SIG_ALPHA]],
                "title": f"{agg.METRIC_DISPLAY[metric]} ({len(c.blocks)} datasets)"}))
        if self.args.jobs > 1:
            with ProcessPoolExecutor(self.args.jobs) as pool:
                done = [pool.submit(func, *a, **kw) for func, a, kw in tasks]
                return [path for future in done for path in future.result()]
        return [path for func, a, kw in tasks for path in func(*a, **kw)]

    def _curve_tasks(self, panel_type) -> list[tuple]:
        from .report.figures import mpl_escape, plot_curve_panels

        grid, folder = self.args.grid, self.out / "figures"
        metrics = METRICS if self.args.all_curve_metrics else agg.MAIN_METRICS
        curves = {m: agg.mean_curves(self.results, m) for m in metrics}
        scale, xlabel = (1.0, "number of selected features k") if grid == "kgrid" else (100.0, "% selected features")
        tasks = []
        for dataset in self.results.datasets:
            panels, x = [], None
            for m in metrics:
                series = {}
                for method, (xs, mean, std) in curves[m].get(dataset, {}).items():
                    x = xs if x is None else x
                    if xs.shape == x.shape and np.allclose(xs, x, atol=agg.GRID_TOLERANCE):
                        series[self.name(method)] = (mean, std)
                panels.append(panel_type(agg.METRIC_DISPLAY[m], self._ylabel(m), series))
            if x is not None:
                tasks.append((plot_curve_panels, (x * scale, panels, folder / f"curves_{grid}_{dataset}"),
                              {"xlabel": xlabel,
                               "suptitle": f"{mpl_escape(self.name(dataset))}: mean over folds, band = ±1 std"}))
        panels, x = [], None
        for m in metrics:
            series = {}
            for method in self.methods:
                xs, mean = agg.curve_over_datasets(curves[m], method)
                if xs.size and (x is None or (xs.shape == x.shape and np.allclose(xs, x))):
                    x = xs
                    series[self.name(method)] = (mean, None)
            panels.append(panel_type(agg.METRIC_DISPLAY[m], self._ylabel(m), series))
        if x is None:
            self.notes.append("no grid point is shared by all datasets: mean curve figure skipped")
        else:
            tasks.append((plot_curve_panels, (x * scale, panels, folder / f"curves_{grid}_mean"),
                          {"xlabel": xlabel, "suptitle": f"Unweighted mean over {len(self.results.datasets)} datasets"}))
        return tasks

    @staticmethod
    def _ylabel(metric: str) -> str:
        return f"{agg.METRIC_DISPLAY[metric]} ({'lower' if metric in agg.LOWER_IS_BETTER else 'higher'} is better)"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    written = TableJob(args).write()
    print(f"wrote {len(written)} files to {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
