"""The benchmark report of one results folder: tables, statistics, figures, report.md and main.tex.

A :class:`TableJob` holds the loaded results and the choices of its :class:`~.options.ReportOptions`
(names, captions, layout) and writes every output; :func:`~.build.build_report` runs one job per
settings group. The outputs are listed in ``python -m pipeline.tables --help``.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Sequence
from urllib.parse import quote

import numpy as np

from .. import aggregate as agg
from ..data.summary import summarise_dataset
from ..errors import ConfigError
from ..evaluation.metrics import METRICS
from ..fileio import atomic_write_json, atomic_write_text, csv_safe_frame
from ..limits import worker_count
from ..names import validate_name
from ..results.budget import describe_budget
from ..stats.bonferroni_dunn import bonferroni_dunn_cd
from ..stats.compare import Comparison, compare_methods
from ..stats.fold_tests import PAIRED_T_TEST, min_signed_rank_p, significance_marks
from .fold_design import design_note, fold_designs
from .explorer import ExplorerExtras, write_explorer
from .document import FIGURES, DocumentFigure, compile_pdf, figures_tex, write_main_tex
from .layout import part_height_pt, part_width_pt
from .options import ReportOptions, read_display_map
from .output import prepare_output_folder
from .tables import (BASELINE_NAME, FOOTNOTE_SYMBOLS, CellNote, RankTable, ScoreTable, StatsBlock, StatsRow,
                     StatsTable, TextTable, ValueTable, markdown_escape, render_rank_table_latex, render_rank_table_markdown,
                     render_score_table_latex, render_score_table_markdown, render_stats_table_latex,
                     render_stats_table_markdown, render_text_table_latex, render_text_table_markdown,
                     render_value_table_latex, render_value_table_markdown)

SIG_ALPHA = 0.05
ENGINE_NAMES = {"python": "Python (NumPy)", "octave": "GNU Octave", "matlab": "MATLAB"}
FEWER_FOLDS_NOTE = "averaged over fewer folds than expected (see report.md)."
DEGENERATE_NOTE = ("in at least one fold, more than half of the selected features are constant on the "
                   "training part although non-constant features were left unselected, at a grid point "
                   "this cell summarises (see report.md).")
WARNED_NOTE = ("the method warned numerically (e.g. a singular matrix) while ranking the features of at least "
               "one fold (see report.md).")


def format_seeds(seeds: Sequence[int]) -> str:
    """Sorted seeds with runs of three or more consecutive ones as ranges: ``0–4, 7, 9``."""
    parts = []
    for run in _consecutive_runs([(seed,) for seed in sorted(seeds)]):
        parts += [f"{run[0][0]}–{run[-1][0]}"] if len(run) >= 3 else [str(seed) for (seed,) in run]
    return ", ".join(parts)


def _consecutive_runs(points: Sequence[tuple]) -> list[list[tuple]]:
    """Split points whose first entry is a grid index into runs of consecutive indices."""
    runs: list[list[tuple]] = []
    for point in points:
        if runs and point[0] == runs[-1][-1][0] + 1:
            runs[-1].append(point)
        else:
            runs.append([point])
    return runs


def figure_links(figures: list[Path], out: Path) -> list[str]:
    """Markdown image links to the PNG files among ``figures`` (paths below ``out``): the alt text
    escaped, the address percent-encoded, so no file name can add markup or a remote address."""
    return [f"![{markdown_escape(f.stem)}]({quote(f.relative_to(out).as_posix())})"
            for f in figures if f.suffix == ".png"]


class TableJob:
    """One regeneration: loaded results plus the naming and captions chosen in the options."""

    def __init__(self, options: ReportOptions, results: agg.ResultSet | None = None):
        self.options = options
        self.metrics = tuple(options.metrics or METRICS)
        self.methods = (results.methods if results is not None
                        else options.methods or agg.list_methods(options.results_dir, options.grid))
        for m in self.methods:
            validate_name(m, "method")
        if len(set(self.methods)) != len(self.methods):
            raise ConfigError("--methods lists a method twice", field="--methods", found=self.methods)
        if options.ref_method not in self.methods:
            raise ConfigError("--ref-method is not among the methods", field="--ref-method",
                              expected=f"one of {self.methods}", found=options.ref_method)
        self.display = read_display_map(options.display_map)
        shown = [self.name(m) for m in self.methods]
        if len(set(shown)) != len(shown):
            raise ConfigError("two methods get the same display name", file=options.display_map, found=shown)
        self.out = prepare_output_folder(options.out_dir, option="--out-dir")
        self.results = results or agg.load_results(options.results_dir, self.methods, options.grid,
                                                   datasets=options.datasets, n_folds=options.folds)
        self.settings = self.results.settings()
        self.notes = (self.results.check_complete(options.allow_incomplete) + self.budget_notes()
                      + agg.absent_metric_notes(self.results))
        self.p_target = None
        if options.grid == "pgrid":
            self.p_target, p_notes = agg.p_target_used(self.results, options.p_target)
            self.notes += p_notes
        self.folds = agg.fold_table(self.results, p_target=options.p_target)
        self.means = agg.summarise(self.folds)
        self.all_features = agg.summarise(agg.read_all_features(options.results_dir, self.results.datasets,
                                                                self.results.expected_folds,
                                                                self.results.fold_digests()))
        self.layout = {"layout": options.layout, "page": options.page,
                       "width_pt": part_width_pt(options.layout, options.page, options.table_width)}
        self.height_pt = part_height_pt(options.layout, options.page)
        self.seed_runs = agg.seed_runs(self.results)
        self.engines = agg.ranking_engines(self.results)
        if options.seed_spread and not self.seed_runs:
            raise ConfigError("no method has seed-averaged results (metrics files with 'seeds')",
                              field="--seed-spread", file=options.results_dir)
        self.degenerate = agg.degenerate_folds(self.results, p_target=options.p_target)
        self.warned = agg.warned_folds(self.results)
        # the plain test needs no fold sizes: a folder of sidecars it cannot read does not stop it
        self.fold_designs = {} if options.fold_test == PAIRED_T_TEST else fold_designs(self.results, options.folds_dir)
        self.comparisons: dict[str, Comparison] = {}
        self.excluded: dict[str, list[str]] = {}
        self.notes += self.selection_notes() + self.warning_notes()

    def name(self, internal: str) -> str:
        return self.display.get(internal, internal)

    def label(self, stem: str) -> str:
        suffix = f"_{self.options.label_suffix}" if self.options.label_suffix else ""
        return f"tab:{stem}_{self.options.grid}{suffix}"

    def operating_point(self) -> str:
        """Where the cells were read on the grid, and with which ML-kNN: from the files' settings."""
        mlknn = self.settings.get("mlknn")
        scorer = (f" ML-kNN with {mlknn['num']:g} neighbours and smoothing {mlknn['smooth']:g}."
                  if mlknn and {"num", "smooth"} <= mlknn.keys() else "")
        if self.options.grid == "pgrid":
            return f"At {100 * self.p_target:g}% selected features (p = {self.p_target:g}).{scorer}"
        grid = self.settings.get("grid")
        if grid and {"k_min", "k_max", "k_step"} <= grid.keys():
            first, step, last = grid["k_min"], grid["k_step"], grid["k_max"]
            points = f"k = {first:g}, {first + step:g}, ..., min({last:g}, d)"
        else:  # files without their settings: what their grids hold
            xs = [r.x for r in self.results.results.values()]
            first, last = min(x[0] for x in xs), max(x[-1] for x in xs)
            step = min((x[1] - x[0] for x in xs if x.size > 1), default=0)
            points = f"k = {first:g}, {first + step:g}, ..., up to {last:g}" if step else f"k = {first:g}"
        return f"Each fold is averaged over the feature-count grid {points}.{scorer}"

    def seed_sentence(self) -> str:
        """Which methods are averaged over which seeds (empty when none is)."""
        parts = []
        for method, runs in self.seed_runs.items():
            total = sum(runs.values())
            lists = [f"seeds {format_seeds(seeds)}" + (f" in {n} of {total} files" if len(runs) > 1 else "")
                     for seeds, n in runs.items() if seeds is not None]
            if None in runs:
                lists.append(f"a single run in {runs[None]} of {total} files")
            parts.append(f"{self.name(method)}, {', '.join(lists)}")
        return f"Seed-averaged (mean over the seeds at each grid point): {'; '.join(parts)}." if parts else ""

    def caption(self, text: str) -> str:
        return " ".join(part for part in (text, self.seed_sentence(), self.options.caption_note) if part)

    def fold_counts(self) -> str:
        counts = sorted({len(f) for f in self.results.expected_folds.values()})
        return f"{'/'.join(map(str, counts))} folds"

    def budget_note(self) -> str:
        """The footnote of the cells with a fold stopped at its budget: which budgets, on how many folds."""
        kinds = Counter((record["budget"], record["limit"]) for record in self.results.out_of_budget.values())
        budgets = ", ".join(f"{describe_budget(kind, limit)} on {n} fold(s)"
                            for (kind, limit), n in sorted(kinds.items()))
        return (f"no value: the method did not finish within its budget on a fold of that dataset ({budgets}); "
                "ranks, W/T/L and tests leave such datasets out.")

    def budget_notes(self) -> list[str]:
        """One line per task stopped at its budget (report.md lists them with the other notes)."""
        return [f"out of budget: {method}/{dataset} fold {fold}: {record['message']}"
                for (method, dataset, fold), record in sorted(self.results.out_of_budget.items())]

    def selection_notes(self) -> list[str]:
        """Warnings for degenerate selections (listed in full in report.md)."""
        if not self.degenerate:
            return []
        marked = sorted({(g.method, g.dataset) for g in self.degenerate if g.in_tables})
        return [f"degenerate selections (mostly constant features selected): {len(self.degenerate)} fold(s), "
                f"{len(marked)} table cell(s) marked ‡; see 'Degenerate selections'"]

    def warning_notes(self) -> list[str]:
        """The numerical warnings of the rankings (listed in full in report.md)."""
        if not self.warned:
            return []
        cells = {(g.method, g.dataset) for g in self.warned}
        return [f"numerical warnings while ranking: {sum(g.count for g in self.warned)} in {len(self.warned)} fold(s), "
                f"{len(cells)} table cell(s) marked {FOOTNOTE_SYMBOLS['warned'][1]}; see 'Numerical warnings'"]

    # -- building blocks ----------------------------------------------------------------------
    def _cells(self, pairs) -> frozenset:
        """Table (row, column) positions of (method, dataset) pairs."""
        rows = {d: i for i, d in enumerate(self.results.datasets)}
        return frozenset((rows[d], self.methods.index(m)) for m, d in pairs)

    def _fewer_folds(self, mean, n) -> frozenset:
        expected = np.array([[len(self.results.expected_folds[d])] * len(self.methods)
                             for d in self.results.datasets])
        short = np.argwhere(n.fillna(0).to_numpy() < expected)
        return frozenset((int(i), int(j)) for i, j in short if np.isfinite(mean.iloc[i, j]))

    def metric_table(self, metric: str) -> ScoreTable:
        datasets = self.results.datasets
        mean, std, n = agg.score_frames(self.means, metric, self.methods, datasets)
        complete, excluded = agg.complete_rows(mean)
        self.excluded[metric] = excluded
        lower = metric in agg.LOWER_IS_BETTER
        comparison = None
        if len(self.methods) < 2:
            self.notes.append(f"{agg.METRIC_DISPLAY[metric]}: one method, nothing to rank or test")
        elif len(complete):
            comparison = compare_methods(complete.to_numpy(), self.methods, blocks=complete.index,
                                         lower_is_better=lower, reference=self.options.ref_method,
                                         bayesian_rope=self.options.bayesian_rope)
            self.comparisons[metric] = comparison
        else:
            self.notes.append(f"{agg.METRIC_DISPLAY[metric]}: no dataset has a value for every method; "
                              "no ranks or tests")
        caption = self.operating_point()
        if excluded:
            caption += (f" Ranks and W/T/L use the {len(complete)} datasets with a value for every "
                        f"method (left out: {', '.join(self.name(d) for d in excluded)}).")
        # Each column's record against the reference, so the row "W/T/L vs REF" reads as its label says.
        wtl = None if comparison is None else {
            self.name(p.method): (p.losses, p.ties, p.wins) for p in comparison.pairwise}
        worse, better = self.significant_cells(metric, lower)
        reference = self.name(self.options.ref_method)
        notes = [CellNote("worse", f"significantly worse than {reference} on that dataset.", worse),
                 CellNote("better", f"significantly better than {reference} on that dataset.", better),
                 CellNote("dagger", FEWER_FOLDS_NOTE, self._fewer_folds(mean, n)),
                 CellNote("ddagger", DEGENERATE_NOTE,
                          self._cells((g.method, g.dataset) for g in self.degenerate if g.in_tables)),
                 CellNote("budget", self.budget_note(), self._cells(self.results.out_of_budget_cells())),
                 CellNote("warned", WARNED_NOTE, self._cells((g.method, g.dataset) for g in self.warned))]
        baseline, baseline_sentence = self.baseline(metric)
        caption = " ".join(part for part in (caption, baseline_sentence, self.fold_test_sentence()) if part)
        return ScoreTable(title=agg.METRIC_DISPLAY[metric], row_names=[self.name(d) for d in datasets],
                          column_names=[self.name(m) for m in self.methods], means=mean.to_numpy(float),
                          stds=std.to_numpy(float), lower_is_better=lower, caption=self.caption(caption),
                          label=self.label(agg.METRIC_TABLE_STEM[metric]),
                          avg_ranks=None if comparison is None else comparison.avg_ranks,
                          win_tie_loss=wtl, reference=reference, notes=notes,
                          spread_over=self.fold_counts(), fit_width=self.options.fit_width,
                          baseline_means=None if baseline is None else baseline[0],
                          baseline_stds=None if baseline is None else baseline[1], height_pt=self.height_pt,
                          **self.layout)

    def significant_cells(self, metric: str, lower: bool) -> tuple[frozenset, frozenset]:
        """Cells significantly worse / better than the reference on their dataset (the test of
        ``--fold-test`` over the folds both have, two-sided, level SIG_ALPHA)."""
        values = self.folds[self.folds["metric"] == metric].pivot_table(
            index=["dataset", "fold"], columns="method", values="value", aggfunc="first")
        values = values.reindex(columns=self.methods)
        ref = self.methods.index(self.options.ref_method)
        found: dict[str, set] = {"worse": set(), "better": set()}
        for dataset in self.results.datasets:
            ratio = self.test_train_ratio(dataset)
            if ratio is None or dataset not in values.index.get_level_values(0):
                continue
            folds = values.loc[dataset].to_numpy(float)  # folds x methods
            others = [j for j in range(len(self.methods)) if j != ref]
            pairs = []
            for j in others:
                paired = np.isfinite(folds[:, ref]) & np.isfinite(folds[:, j])
                pairs.append((folds[paired, ref], folds[paired, j]))
            marks = significance_marks(pairs, alpha=SIG_ALPHA, lower_is_better=lower, test_train_ratio=ratio)
            for j, mark in zip(others, marks):
                if mark:
                    found[mark].add((self.methods[j], dataset))
        return self._cells(found["worse"]), self._cells(found["better"])

    def test_train_ratio(self, dataset: str) -> float | None:
        """The ``n_test / n_train`` the dataset's test corrects with: 0 for the plain paired t-test,
        None when the corrected test cannot know it (no mark)."""
        return 0.0 if self.options.fold_test == PAIRED_T_TEST else self.fold_designs[dataset].test_train_ratio

    def fold_test_sentence(self) -> str:
        """The per-dataset test, why it is corrected, its level, and which tests the fold count lets
        reach that level."""
        reference = self.name(self.options.ref_method)
        if self.options.fold_test == PAIRED_T_TEST:
            limit = self.fold_count_limit("it")
            return (f"Marks against {reference} per dataset: two-sided paired t-test over the folds, "
                    f"alpha = {SIG_ALPHA:g}" + (f"; {limit}." if limit else "."))
        limit = self.fold_count_limit("alpha")
        return (f"Marks against {reference} per dataset: two-sided corrected resampled t-test, alpha = {SIG_ALPHA:g}, "
                "variance of the differences times (1/J + n_test/n_train) over J folds as their training sets overlap "
                f"({design_note(self.fold_designs, self.name)})." + (f" {limit[0].upper()}{limit[1:]}." if limit else ""))

    def fold_count_limit(self, level: str) -> str:
        """What the smallest fold count allows: no test with one fold; with few, no signed-rank test
        reaching the ``level`` (the words that name it)."""
        n = min(len(f) for f in self.results.expected_folds.values())
        if n < 2:
            return "with a single fold no test is possible, so no cell is marked"
        floor = min_signed_rank_p(n)
        if floor > SIG_ALPHA:
            return (f"with {n} folds the exact Wilcoxon signed-rank test cannot reach {level} (its smallest "
                    f"two-sided p is 2/{2 ** n} = {floor:.4g}), the t-test can")
        return ""

    def baseline(self, metric: str) -> tuple[tuple[np.ndarray, np.ndarray] | None, str]:
        """The all-features column of a score table (means, stds per dataset) and its caption sentence."""
        if self.all_features.empty:
            return None, ""
        mean, std, _ = agg.score_frames(self.all_features.assign(method=BASELINE_NAME), metric, [BASELINE_NAME],
                                        self.results.datasets)
        text = f"{BASELINE_NAME}: ML-kNN on every feature of each fold (mean over folds)."
        absent = [self.name(d) for d in self.results.datasets if d not in set(self.all_features["dataset"])]
        if absent:
            text += f" No all-features reference for {', '.join(absent)}."
        return (mean.to_numpy(float)[:, 0], std.to_numpy(float)[:, 0]), text

    def time_table(self) -> ScoreTable:
        """Ranking seconds per method and dataset (files without a time are left out, and counted)."""
        times = agg.time_table(self.results)
        mean, std, n = agg.score_frames(agg.summarise(times), agg.TIME_FIELD, self.methods,
                                        self.results.datasets)
        caption = ("Time in seconds a method takes to rank the features of one fold's training part, "
                   "measured where it runs (inside GNU Octave or MATLAB for those engines); engine start-up, "
                   "data transfer and the ML-kNN evaluation are not included. Methods on different engines "
                   "are not directly comparable. " + self.engine_sentence() + self.untimed_sentence())
        return ScoreTable(title="Running time (s)", row_names=[self.name(d) for d in self.results.datasets],
                          column_names=[self.name(m) for m in self.methods], means=mean.to_numpy(float),
                          stds=std.to_numpy(float), lower_is_better=True, caption=self.caption(caption),
                          label=self.label("time"), notes=[CellNote("dagger", FEWER_FOLDS_NOTE,
                                                                    self._fewer_folds(mean, n))],
                          spread_over=self.fold_counts(), digits=3, significant=True,
                          fit_width=self.options.fit_width, height_pt=self.height_pt, **self.layout)

    def tuning_time_table(self) -> ScoreTable | None:
        """Tuning seconds per tuned method and dataset (None when no method was tuned)."""
        times = agg.tuning_time_table(self.results)
        if times.empty:
            return None
        mean, std, n = agg.score_frames(agg.summarise(times), agg.TUNING_TIME_FIELD, self.methods,
                                        self.results.datasets)
        caption = ("Time in seconds the inner-split tuning of a method's parameters takes per outer fold: every "
                   "candidate ranks the features of every inner training part and is scored on its validation part "
                   "(the method's own ranking seconds, measured as in the running-time table, plus the ML-kNN "
                   "seconds), before the final ranking that table times. '--': parameters not tuned.")
        return ScoreTable(title="Tuning time (s)", row_names=[self.name(d) for d in self.results.datasets],
                          column_names=[self.name(m) for m in self.methods], means=mean.to_numpy(float),
                          stds=std.to_numpy(float), lower_is_better=True, caption=self.caption(caption),
                          label=self.label("tuning_time"), notes=[CellNote("dagger", FEWER_FOLDS_NOTE,
                                                                           self._fewer_folds(mean, n))],
                          spread_over=self.fold_counts(), digits=3, significant=True,
                          fit_width=self.options.fit_width, **self.layout)

    def engine_sentence(self) -> str:
        """``Engines: Python (NumPy): DAGFS; GNU Octave: LRMFS, MIFS.`` from the ranking records."""
        by_engine: dict[str, list[str]] = {}
        for method in self.methods:
            counts = Counter(self.engines[key] for key in self.engines if key[0] == method)
            ran = [e for e in counts if e in ENGINE_NAMES]
            label = " and ".join(ENGINE_NAMES[e] for e in sorted(ran)) or None
            if label:
                by_engine.setdefault(label, []).append(self.name(method))
        if not by_engine:
            return ""
        return "Engines: " + "; ".join(f"{e}: {', '.join(ms)}" for e, ms in by_engine.items()) + ". "

    def untimed_sentence(self) -> str:
        """Why some cells have no time, in the reader's words."""
        untimed = [key for key, r in self.results.results.items() if r.time_rank_seconds is None]
        if not untimed:
            return ""
        external = sorted({self.name(m) for m, d, f in untimed if self.engines[(m, d, f)] == "external"},
                          key=str.casefold)
        other = [key for key in untimed if self.engines[key] != "external"]
        parts = []
        if external:
            parts.append(f"{', '.join(external)} ranked outside this pipeline, so no ranking time is known")
        if other:
            parts.append(f"{len(other)} of {len(self.results.results)} results record no ranking time")
        text = "; ".join(parts)
        return text[0].upper() + text[1:] + ": '--' where no fold of a cell has one."

    def seed_spread_table(self) -> ValueTable:
        """Mean over folds of the std over seeds, per seed-averaged method, dataset and metric."""
        spread = agg.summarise(agg.seed_spread_table(self.results, p_target=self.options.p_target))
        groups = []
        for method in self.seed_runs:
            values = np.column_stack([agg.score_frames(spread, metric, [method], self.results.datasets)[0]
                                      .to_numpy(float)[:, 0] for metric in self.metrics])
            groups.append((self.name(method), [self.name(d) for d in self.results.datasets], values))
        summarised = "grid mean" if self.options.grid == "kgrid" else f"value at p = {self.p_target:g}"
        caption = (f"Standard deviation over seeds (ddof = 1) of each fold's {summarised}, averaged over "
                   "the folds; '--' with a single seed or no seed-averaged fold.")
        return ValueTable("Across-seed spread", "Method", "Dataset", [agg.METRIC_DISPLAY[m] for m in self.metrics],
                          groups, self.caption(caption), self.label("seed_spread"), fit_width=self.options.fit_width,
                          height_pt=self.height_pt, **self.layout)

    def stats_table(self) -> StatsTable:
        blocks = []
        for metric in self.metrics:
            c = self.comparisons.get(metric)
            if c is None:
                blocks.append(StatsBlock(agg.METRIC_DISPLAY[metric], metric in agg.LOWER_IS_BETTER, 0,
                                         None, None, None, None, None, []))
                continue
            fr = c.friedman
            bd_cd = self.bonferroni_dunn_cd(c)
            ranks = dict(zip(c.methods, c.avg_ranks))
            ref_rank = ranks[self.options.ref_method]
            rows = [StatsRow(self.name(p.method), p.gain, p.wins, p.ties, p.losses, p.wilcoxon.p_value,
                             p.holm_p, None if p.bayesian is None else p.bayesian.p_x_better,
                             wilcoxon_method=p.wilcoxon.method, beyond_bd_cd=abs(ranks[p.method] - ref_rank) >= bd_cd)
                    for p in c.pairwise]
            blocks.append(StatsBlock(agg.METRIC_DISPLAY[metric], c.lower_is_better, len(c.blocks),
                                     None if fr is None else fr.chi2, None if fr is None else fr.chi2_p,
                                     None if fr is None else fr.iman_davenport_f,
                                     None if fr is None else fr.iman_davenport_p, c.nemenyi_cd[SIG_ALPHA], rows,
                                     bonferroni_dunn_cd=bd_cd))
        caption = f"Statistical comparison over datasets. {self.operating_point()}"
        return StatsTable(blocks, self.name(self.options.ref_method), self.caption(caption), self.label("stats"),
                          alpha=SIG_ALPHA, cd_alpha=SIG_ALPHA, bayesian=self.options.bayesian_rope is not None,
                          fit_width=self.options.fit_width, height_pt=self.height_pt, **self.layout)

    @staticmethod
    def bonferroni_dunn_cd(c: Comparison) -> float:
        return bonferroni_dunn_cd(len(c.methods), len(c.blocks), SIG_ALPHA)

    def dataset_table(self) -> TextTable | None:
        """Characteristics of the datasets from the fold files used (``--folds-dir``), or None."""
        if self.options.folds_dir is None:
            return None
        summaries = [summarise_dataset(self.options.folds_dir, d, self.results.expected_folds[d])
                     for d in self.results.datasets]
        rows = [[self.name(s.name), s.domain or "--", str(s.n), str(s.d), str(s.n_labels), _span(s.n_train),
                 _span(s.n_test), f"{s.cardinality:.3f}", f"{s.density:.4f}", str(s.distinct_label_sets),
                 f"{s.zero_share:.3f}"] for s in summaries]
        header = ["Dataset", "Domain", "n", "d", "L", "Train", "Test", "Card.", "Dens.", "Distinct", "Zeros"]
        caption = (f"From the fold files used ({self.fold_counts()}): n instances, d features, L labels; train "
                   "and test sizes per fold (smallest-largest when they differ); label cardinality (mean "
                   "relevant labels per instance) and density (cardinality / L), distinct label sets and the "
                   "share of zero feature values, over the instances of the first fold.")
        return TextTable("Datasets", header, rows, "ll" + "r" * 9, self.caption(caption), self.label("datasets"),
                         fit_width=self.options.fit_width, height_pt=self.height_pt, **self.layout)

    def rank_table(self) -> RankTable:
        ranks = np.full((len(self.methods), len(self.metrics)), np.nan)
        friedman, iman = [], []
        for j, metric in enumerate(self.metrics):
            c = self.comparisons.get(metric)
            fr = None if c is None else c.friedman
            if c is not None:
                ranks[:, j] = c.avg_ranks
            friedman.append(None if fr is None else fr.chi2_p)
            iman.append(None if fr is None else fr.iman_davenport_p)
        return RankTable([self.name(m) for m in self.methods], [agg.METRIC_DISPLAY[m] for m in self.metrics],
                         ranks, self.caption(self.operating_point()), self.label("ranks"),
                         {"Friedman p": friedman, "Iman-Davenport p": iman}, fit_width=self.options.fit_width,
                         **self.layout)

    # -- outputs ------------------------------------------------------------------------------
    def score_tables(self) -> tuple[dict[str, ScoreTable], StatsTable, RankTable]:
        """The score table of every metric, of the running time (key ``time``) and of the tuning time
        (key ``tuning_time``, when a method was tuned), then the statistics and rank tables they feed
        (in this order: the metric tables make the comparisons)."""
        tables = {m: self.metric_table(m) for m in self.metrics}
        tables["time"] = self.time_table()
        tuning = self.tuning_time_table()
        if tuning is not None:
            tables["tuning_time"] = tuning
        return tables, self.stats_table(), self.rank_table()

    def write(self, explorer: ExplorerExtras | None = None) -> list[Path]:
        """Write every output; with ``explorer``, also the results explorer (``explorer_<grid>.html``)."""
        written = []
        means = self.means.sort_values(["dataset", "method", "metric"], kind="mergesort")
        csv_path = self.out / f"benchmark_means_{self.options.grid}.csv"
        columns = means[["dataset", "method", "metric", "mean", "std", "n_folds"]]
        written.append(atomic_write_text(csv_path, csv_safe_frame(columns).to_csv(index=False, lineterminator="\n")))
        datasets = self.dataset_table()
        if datasets is not None:
            written.append(atomic_write_text(self.out / "table_datasets.tex", render_text_table_latex(datasets)))
        tables, stats_table, rank_table = self.score_tables()
        if "tuning_time" not in tables:  # a table of an earlier report of tuned methods must not stay in main.tex
            (self.out / "table_tuning_time.tex").unlink(missing_ok=True)
        for key, table in tables.items():
            stem = agg.METRIC_TABLE_STEM.get(key, key)
            written.append(atomic_write_text(self.out / f"table_{stem}.tex", render_score_table_latex(table)))
        written.append(atomic_write_text(self.out / "table_stats.tex", render_stats_table_latex(stats_table)))
        written.append(atomic_write_text(self.out / "table_ranks.tex", render_rank_table_latex(rank_table)))
        spread = self.seed_spread_table() if self.options.seed_spread else None
        if spread is not None:
            written.append(atomic_write_text(self.out / "table_seed_spread.tex", render_value_table_latex(spread)))
        written.append(atomic_write_json(self.out / f"stats_{self.options.grid}.json", self.stats_json()))
        figures = [] if self.options.no_figures else self.figures()
        written += figures
        sections = [] if datasets is None else [render_text_table_markdown(datasets)]
        sections += [render_score_table_markdown(t) for t in tables.values()]
        sections += [render_rank_table_markdown(rank_table), render_stats_table_markdown(stats_table)]
        if spread is not None:
            sections.append(render_value_table_markdown(spread))
        written.append(atomic_write_text(self.out / "report.md", self.report(sections, figures)))
        written += self.document(figures)
        if explorer is not None:
            written.append(self.explorer(explorer, (tables, stats_table, rank_table)))
        return written

    def explorer(self, extras: ExplorerExtras, tables: tuple | None = None) -> Path:
        """Write the results explorer of this job (from ``tables``, what :meth:`score_tables` returned,
        or made now)."""
        scores, stats_table, rank_table = tables or self.score_tables()
        return write_explorer(self, scores, rank_table, stats_table, extras)

    def table_files(self) -> list[str]:
        """The table files this job writes, in the order main.tex inputs them."""
        names = ["datasets"] + [agg.METRIC_TABLE_STEM[m] for m in self.metrics] + ["time", "tuning_time", "ranks",
                                                                                   "stats", "seed_spread"]
        return [f"table_{n}.tex" for n in names]

    def document(self, figures: list[Path]) -> list[Path]:
        """figures.tex (a captioned float per figure), main.tex and, with --pdf, main.pdf."""
        written = []
        if figures:
            written.append(atomic_write_text(self.out / FIGURES, figures_tex(self.document_figures())))
        else:
            (self.out / FIGURES).unlink(missing_ok=True)
        grid = "k-grid" if self.options.grid == "kgrid" else f"p-grid at p = {self.p_target:g}"
        written.append(write_main_tex(self.out, title=f"Benchmark tables and figures ({grid})",
                                      page=self.options.page, table_order=self.table_files(),
                                      include=self.options.include_tables))
        if self.options.pdf:
            written.append(compile_pdf(self.out / "main.tex"))
        return written

    def document_figures(self) -> list[DocumentFigure]:
        """The figures of :meth:`figures` with their captions, for main.tex."""
        grid, folder = self.options.grid, "figures"
        names = ", ".join(agg.METRIC_DISPLAY[m] for m in self.curve_metrics())
        axis = "the number of selected features k" if grid == "kgrid" else "the percentage of selected features"
        reference = f"; dashed line: {BASELINE_NAME} (ML-kNN on every feature)" if not self.all_features.empty else ""
        out = [DocumentFigure(f"{folder}/curves_{grid}_{d}.pdf",
                              f"{self.name(d)}: {names} against {axis}, mean over the folds, band = ±1 sample "
                              f"std{reference}.", f"fig:curves_{grid}_{d}")
               for d in self.results.datasets if (self.out / folder / f"curves_{grid}_{d}.pdf").is_file()]
        if (self.out / folder / f"curves_{grid}_mean.pdf").is_file():
            out.append(DocumentFigure(f"{folder}/curves_{grid}_mean.pdf",
                                      f"{names} against {axis}: unweighted mean over the "
                                      f"{len(self.results.datasets)} datasets of the fold-mean curves{reference}.",
                                      f"fig:curves_{grid}_mean"))
        for metric, c in self.comparisons.items():
            reference_name = self.name(self.options.ref_method)
            ranks = f"{agg.METRIC_DISPLAY[metric]}: average ranks over {len(c.blocks)} datasets (1 = best)"
            out.append(DocumentFigure(
                f"{folder}/cd_{grid}_{metric}.pdf",
                f"{ranks}, Nemenyi's test, CD = {c.nemenyi_cd[SIG_ALPHA]:.3f} (alpha = {SIG_ALPHA:g}); methods "
                "joined by a bar do not differ significantly.", f"fig:cd_{grid}_{metric}"))
            out.append(DocumentFigure(
                f"{folder}/cd_bd_{grid}_{metric}.pdf",
                f"{ranks}, Bonferroni-Dunn test against {reference_name}, CD = {self.bonferroni_dunn_cd(c):.3f} "
                f"(alpha = {SIG_ALPHA:g}); methods outside the bar around {reference_name} differ significantly "
                "from it.", f"fig:cd_bd_{grid}_{metric}"))
        return out

    def stats_json(self) -> dict:
        return {"grid": self.options.grid, "p_target_used": self.p_target, "reference": self.options.ref_method,
                "notes": self.notes,
                "seed_averaged": {m: [{"seeds": None if seeds is None else list(seeds), "files": n}
                                      for seeds, n in runs.items()] for m, runs in self.seed_runs.items()},
                "degenerate_folds": [asdict(g) for g in self.degenerate],
                **({"warned_folds": [asdict(g) for g in self.warned]} if self.warned else {}),  # absent: none
                "metrics": {m: {**c.to_dict(), "datasets": list(c.blocks), "excluded_datasets": self.excluded[m]}
                            for m, c in self.comparisons.items()}}

    def report(self, sections: list[str], figures: list[Path]) -> str:
        """report.md: run summary, notes, seeds, degenerate selections, the tables and figure links."""
        a = self.options
        lines = [f"# Benchmark report ({a.grid})", "",
                 f"- results: {markdown_escape(Path(a.results_dir).name)}; methods: "
                 + ", ".join(markdown_escape(self.name(m)) for m in self.methods),
                 f"- reference: {markdown_escape(self.name(a.ref_method))}; datasets: {len(self.results.datasets)}; "
                 f"{self.fold_counts()}",
                 f"- operating point: {markdown_escape(self.operating_point())}", ""]
        if self.notes:
            lines += ["## Notes", ""] + [f"- {markdown_escape(n)}" for n in self.notes] + [""]
        if self.seed_runs:
            lines += ["## Seed-averaged methods", "", markdown_escape(self.seed_sentence()), ""]
        if self.degenerate:
            lines += self.degenerate_section()
        if self.warned:
            lines += self.warning_section()
        lines += ["## Tables", ""] + sections
        links = figure_links(figures, self.out)
        if links:
            lines += ["## Figures", ""] + links + [""]
        return "\n".join(lines)

    def degenerate_section(self) -> list[str]:
        """Markdown list of every fold with degenerate grid points."""
        rows = [[markdown_escape(self.name(g.method)), markdown_escape(self.name(g.dataset)), str(g.fold),
                 "; ".join(self._point_run(run) for run in _consecutive_runs(g.points)),
                 str(g.n_constant_features), "yes" if g.in_tables else "no"]
                for g in self.degenerate]
        header = "| Method | Dataset | Fold | Degenerate grid points | Constant features | Marked ‡ |"
        return (["## Degenerate selections", "",
                 "More than half of the top-k features are constant on the fold's training part although "
                 "non-constant features were left unselected. A table cell is marked ‡ when one of its folds "
                 "is degenerate at a grid point the cell summarises.", "", header, "|" + ":--|" * 6]
                + ["| " + " | ".join(r) + " |" for r in rows] + [""])

    def warning_section(self) -> list[str]:
        """Markdown list of every fold whose method call warned, with its distinct messages."""
        rows = [[markdown_escape(self.name(g.method)), markdown_escape(self.name(g.dataset)), str(g.fold), str(g.count),
                 "; ".join(f"{markdown_escape(text)} (×{n})" for text, n in g.messages)
                 + (f"; {g.unlisted} more distinct message(s)" if g.unlisted else "")]
                for g in self.warned]
        return (["## Numerical warnings", "",
                 "Warnings the method printed (MATLAB/Octave) or raised (NumPy/SciPy floating-point and linear-algebra "
                 "warnings) while ranking a fold's features, from the ranking records. The table cells of these "
                 f"methods and datasets are marked {FOOTNOTE_SYMBOLS['warned'][1]}.", "",
                 "| Method | Dataset | Fold | Warnings | Messages |", "|" + ":--|" * 5]
                + ["| " + " | ".join(r) + " |" for r in rows] + [""])

    def _point_run(self, run: list[tuple[int, float, int, int]]) -> str:
        """``k = 10: 8 constant`` for one point, ``k = 10–300: 30 points, 8–298 constant`` for a run."""
        (_, x0, k0, c0), (_, x1, k1, _) = run[0], run[-1]
        if self.options.grid == "kgrid":
            where = f"k = {k0}" if len(run) == 1 else f"k = {k0}–{k1}"
        else:
            where = f"p = {x0:g} (k = {k0})" if len(run) == 1 else f"p = {x0:g}–{x1:g} (k = {k0}–{k1})"
        if len(run) == 1:
            return f"{where}: {c0} constant"
        counts = [c for *_, c in run]
        return f"{where}: {len(run)} points, {min(counts)}–{max(counts)} constant"

    def figures(self) -> list[Path]:
        """Curves per dataset, the mean curve and one CD diagram per metric (PNG + PDF each)."""
        from . import figures as fig

        for metric in self.metrics:  # the statistics the CD diagrams draw (made with the tables, or now)
            if metric not in self.excluded:
                self.metric_table(metric)
        tasks = self._curve_tasks(fig.CurvePanel)
        width = {"width_in": fig.inches(self.options.page.text_width_pt)}
        tasks = [(func, args, {**kwargs, **width}) for func, args, kwargs in tasks]
        for metric, c in self.comparisons.items():
            ranks = {self.name(m): r for m, r in zip(c.methods, c.avg_ranks)}
            title = f"{agg.METRIC_DISPLAY[metric]} ({len(c.blocks)} datasets)"
            tasks.append((fig.plot_cd_diagram, (ranks, c.nemenyi_cd[SIG_ALPHA],
                                                 self.out / "figures" / f"cd_{self.options.grid}_{metric}"), {
                "alpha": SIG_ALPHA, "cliques": [[self.name(m) for m in g] for g in c.cliques[SIG_ALPHA]],
                "title": f"Nemenyi: {title}", **width}))
            tasks.append((fig.plot_cd_diagram, (ranks, self.bonferroni_dunn_cd(c),
                                                 self.out / "figures" / f"cd_bd_{self.options.grid}_{metric}"), {
                "alpha": SIG_ALPHA, "control": self.name(self.options.ref_method),
                "title": f"Bonferroni-Dunn vs {self.name(self.options.ref_method)}: {title}", **width}))
        workers = worker_count(self.options.jobs, len(tasks))
        if workers > 1:
            with ProcessPoolExecutor(workers) as pool:
                done = [pool.submit(func, *a, **kw) for func, a, kw in tasks]
                return [path for future in done for path in future.result()]
        return [path for func, a, kw in tasks for path in func(*a, **kw)]

    def _curve_tasks(self, panel_type) -> list[tuple]:
        from .figures import mpl_escape, plot_curve_panels

        grid, folder = self.options.grid, self.out / "figures"
        metrics = self.curve_metrics()
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
                panels.append(panel_type(agg.METRIC_DISPLAY[m], self._ylabel(m), series,
                                         reference=self.baseline_value(m, [dataset])))
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
            panels.append(panel_type(agg.METRIC_DISPLAY[m], self._ylabel(m), series,
                                     reference=self.baseline_value(m, self.results.datasets)))
        if x is None:
            self.notes.append("no grid point is shared by all datasets: mean curve figure skipped")
        else:
            tasks.append((plot_curve_panels, (x * scale, panels, folder / f"curves_{grid}_mean"),
                          {"xlabel": xlabel,
                           "suptitle": f"Unweighted mean over {len(self.results.datasets)} datasets"}))
        return tasks

    def curve_metrics(self) -> list[str]:
        return list(self.metrics) if self.options.all_curve_metrics else [m for m in agg.MAIN_METRICS if m in self.metrics]

    def baseline_value(self, metric: str, datasets: Sequence[str]) -> float | None:
        """Unweighted mean over ``datasets`` of the all-features fold means; None unless every one has it."""
        rows = self.all_features[(self.all_features["metric"] == metric) & self.all_features["dataset"].isin(datasets)]
        return float(rows["mean"].mean()) if len(rows) == len(datasets) else None

    @staticmethod
    def _ylabel(metric: str) -> str:
        """The y axis of a curve panel (the panel's title names the metric: a shorter label fits beside it)."""
        return f"{'lower' if metric in agg.LOWER_IS_BETTER else 'higher'} is better"


def _span(sizes: tuple[int, int]) -> str:
    return str(sizes[0]) if sizes[0] == sizes[1] else f"{sizes[0]}-{sizes[1]}"
