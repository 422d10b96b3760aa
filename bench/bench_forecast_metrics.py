"""Benchmark: vectorised forecast metrics vs a per-series loop and vs fev's and GluonTS's metrics.

Scores MASE, WQL and SQL of Gaussian seasonal-naive forecasts on (a) the real M4 hourly data
(414 series, H = 48, Chronos window; staged in ../shared/data/forecast) and (b) a synthetic set of
20,000 series (length 300-700, H = 24, m = 24, 2 % missing targets). Prints absolute times, the
speed-up of ``pipeline.protocols.forecast.metrics`` over the peers measured in the same run, and
the largest relative difference between the implementations.

Peer requirements (optional): ``fev==0.10.0`` and ``gluonts==0.17.0``. fev pins
``huggingface_hub<2``, which conflicts with the project's transformers, so install both beside the
project instead of into it and name that folder with ``--peers-dir`` (it is searched after the
project's own packages, so the project's NumPy, pandas, SciPy and pyarrow are the ones used)::

    pip install --target /tmp/benchpkgs fev==0.10.0 gluonts==0.17.0
    python bench/bench_forecast_metrics.py --peers-dir /tmp/benchpkgs

A peer that is not installed is reported as unavailable and left out of the record. Each
implementation runs ``--repeats`` times (default 3); the figures go to bench/results.json. The GluonTS peer computes the
seasonal errors one series at a time with ``gluonts.ev.ts_stats.seasonal_error`` (as its
``evaluate_forecasts`` does) and the metrics with ``gluonts.ev.metrics``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from pipeline.cli import run_main  # noqa: E402
from pipeline.protocols.forecast import metrics as M  # noqa: E402
from pipeline.protocols.forecast.convert import read_m4_hourly  # noqa: E402
from pipeline.protocols.forecast.forecasters import SeasonalNaiveForecaster  # noqa: E402
from pipeline.protocols.forecast.windows import backtest_windows  # noqa: E402
from record import BenchRun, measure, shared_data  # noqa: E402

LEVELS = list(M.DEFAULT_QUANTILES)


def vectorised(y, q, contexts, m, edge="fev"):
    scale = M.seasonal_error(contexts, m, edge)
    return {"MASE": M.mase(y, q[:, 4], scale), "WQL": M.wql(y, q, LEVELS), "SQL": M.sql(y, q, LEVELS, scale)}


def per_series_loop(y, q, contexts, m):
    """The straightforward implementation: one series at a time, pooled sums at the end."""
    abs_scaled, quantile_scaled, count = 0.0, 0.0, 0
    loss_per_level, abs_target = np.zeros(len(LEVELS)), 0.0
    tau = np.asarray(LEVELS)[:, None]
    for i, context in enumerate(contexts):
        valid = ~np.isnan(y[i])
        target, quantiles = y[i, valid], q[i][:, valid]
        loss = 2 * np.abs((target - quantiles) * ((target <= quantiles) - tau))
        loss_per_level += loss.sum(axis=1)
        abs_target += np.abs(target).sum()
        diffs = np.abs(context[m:] - context[:-m]) if len(context) > m else np.array([])
        diffs = diffs[~np.isnan(diffs)]
        scale = diffs.mean() if diffs.size else np.nan
        if np.isfinite(scale) and scale > 0:
            abs_scaled += np.abs(target - quantiles[4]).sum() / scale
            quantile_scaled += loss.mean(axis=0).sum() / scale
            count += valid.sum()
    return {"MASE": abs_scaled / count, "WQL": float(np.mean(loss_per_level / abs_target)),
            "SQL": quantile_scaled / count}


def with_fev(y, q, contexts, m):
    from fev.metrics import get_metric

    arguments = dict(y_true=y[:, :, None], y_pred=q[:, 4][:, :, None],
                     y_past=np.concatenate(contexts)[:, None], y_past_lengths=np.array([len(c) for c in contexts]),
                     q_pred=q.transpose(0, 2, 1)[:, :, None, :], seasonality=m, quantile_levels=LEVELS)
    return {name: get_metric(name).compute(**arguments) for name in ("MASE", "WQL", "SQL")}


def with_gluonts(y, q, contexts, m):
    from gluonts.ev.metrics import MASE, AverageMeanScaledQuantileLoss, MeanWeightedSumQuantileLoss
    from gluonts.ev.ts_stats import seasonal_error

    data = {"label": np.ma.masked_invalid(y),
            "seasonal_error": np.stack([seasonal_error(np.ma.masked_invalid(c), m) for c in contexts])}
    data.update({str(level): q[:, k] for k, level in enumerate(LEVELS)})
    scores = {}
    for name, definition in (("MASE", MASE()), ("WQL", MeanWeightedSumQuantileLoss(LEVELS)),
                             ("SQL", AverageMeanScaledQuantileLoss(LEVELS))):
        evaluator = definition(axis=None)
        evaluator.update(data)
        scores[name] = float(evaluator.get())
    return scores


def available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def real_m4_hourly():
    dataset = read_m4_hourly(shared_data("forecast") / "m4_hourly")
    (window,) = backtest_windows(dataset.series, offset=-48, prediction_length=48)
    return window.targets, window.contexts, 24


def synthetic(n=20_000, h=24, m=24, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(300, 700, size=n)
    t = np.arange(lengths.max() + h)
    contexts, targets = [], []
    for length in lengths:
        values = 50 + 10 * np.sin(2 * np.pi * t[: length + h] / m) + rng.normal(0, 2, length + h)
        contexts.append(values[:length])
        targets.append(values[length:])
    y = np.array(targets)
    y[rng.random(y.shape) < 0.02] = np.nan
    return y, contexts, m


def run_case(run: BenchRun, repeats: int, name: str, y, contexts, m) -> None:
    q = SeasonalNaiveForecaster(m).predict_quantiles(contexts, y.shape[1], LEVELS)
    ours, scores = measure(vectorised, y, q, contexts, m, repeats=repeats, warm_up=True)
    loop, loop_scores = measure(per_series_loop, y, q, contexts, m, repeats=repeats, warm_up=True)
    peers = {"per-series loop": loop}
    print(f"{name}: max rel diff loop vs ours {max(abs(scores[k] / loop_scores[k] - 1) for k in scores):.1e}")
    for label, module, function, edge in (("fev 0.10 metrics", "fev", with_fev, "fev"),
                                          ("GluonTS 0.17 ev", "gluonts", with_gluonts, "gluonts")):
        if not available(module):
            print(f"  {label}: unavailable (see the docstring)")
            continue
        peers[label], peer_scores = measure(function, y, q, contexts, m, repeats=repeats,
                                                    warm_up=True)
        reference = vectorised(y, q, contexts, m, edge)
        print(f"  max rel diff {label} vs ours: {max(abs(reference[k] / peer_scores[k] - 1) for k in reference):.1e}")
    print("  scores: " + ", ".join(f"{k}={v:.6f}" for k, v in scores.items()))
    run.figure(f"MASE + WQL + SQL, {name}: N {len(contexts):,}, H {y.shape[1]}, m {m}, "
               f"{sum(map(len, contexts)):,} context points", ours.scaled(1e3), "ms",
               peers={label: seconds.scaled(1e3) for label, seconds in peers.items()})


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each implementation (default 3)")
    parser.add_argument("--peers-dir", type=Path, default=None,
                        help="folder where fev and GluonTS are installed beside the project")
    args = parser.parse_args(argv)
    if args.peers_dir is not None:
        sys.path.append(str(args.peers_dir))
    with BenchRun(__file__) as run:
        run_case(run, args.repeats, "M4 hourly (real, Chronos window)", *real_m4_hourly())
        run_case(run, args.repeats, "synthetic series (2 % missing targets)", *synthetic())


if __name__ == "__main__":
    sys.exit(run_main(main))
