"""Benchmark: vectorised forecast metrics vs a per-series loop and vs fev's and GluonTS's metrics.

Scores MASE, WQL and SQL of Gaussian seasonal-naive forecasts on (a) the real M4 hourly data
(414 series, H = 48, Chronos window; staged in ../shared/data/forecast) and (b) a synthetic set of
20,000 series (length 300-700, H = 24, m = 24, 2 % missing targets). Prints absolute times, the
speed-up of ``pipeline.protocols.forecast.metrics`` over the peers measured in the same run, and
the largest relative difference between the implementations.

Peer requirements (optional): ``fev==0.10.0`` and ``gluonts==0.17.0``. fev pins
``huggingface_hub<2``, which conflicts with the project's transformers, so install both beside the
project instead of into it, keeping the project's numerical packages::

    pip install --target /tmp/benchpkgs fev==0.10.0 gluonts==0.17.0
    rm -rf /tmp/benchpkgs/{numpy,pandas,scipy,pyarrow}*
    PYTHONPATH=python:/tmp/benchpkgs python bench/bench_forecast_metrics.py

A peer that is not installed is reported as unavailable. The GluonTS peer computes the
seasonal errors one series at a time with ``gluonts.ev.ts_stats.seasonal_error`` (as its
``evaluate_forecasts`` does) and the metrics with ``gluonts.ev.metrics``.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from pipeline.protocols.forecast import metrics as M  # noqa: E402
from pipeline.protocols.forecast.convert import read_m4_hourly  # noqa: E402
from pipeline.protocols.forecast.forecasters import SeasonalNaiveForecaster  # noqa: E402
from pipeline.protocols.forecast.windows import backtest_windows  # noqa: E402

LEVELS = list(M.DEFAULT_QUANTILES)
REPEATS = 3


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


def timed(function, *args):
    best, result = np.inf, None
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def real_m4_hourly():
    dataset = read_m4_hourly(REPO.parent / "shared" / "data" / "forecast" / "m4_hourly")
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


def run_case(name, y, contexts, m):
    q = SeasonalNaiveForecaster(m).predict_quantiles(contexts, y.shape[1], LEVELS)
    t_vec, ours = timed(vectorised, y, q, contexts, m)
    t_loop, loop = timed(per_series_loop, y, q, contexts, m)
    print(f"\n{name}: N={len(contexts)}, H={y.shape[1]}, m={m}, context points={sum(map(len, contexts)):,}")
    print(f"  vectorised (ours)   {t_vec * 1e3:9.1f} ms")
    print(f"  per-series loop     {t_loop * 1e3:9.1f} ms   ratio loop/ours = {t_loop / t_vec:6.1f}x   "
          f"max rel diff = {max(abs(ours[k] / loop[k] - 1) for k in ours):.1e}")
    peers = (("fev 0.10 metrics", "fev", with_fev, "fev"), ("GluonTS 0.17 ev", "gluonts", with_gluonts, "gluonts"))
    for label, module, function, edge in peers:
        if not available(module):
            print(f"  {label:<19} unavailable (see the docstring)")
            continue
        t_peer, peer = timed(function, y, q, contexts, m)
        reference = vectorised(y, q, contexts, m, edge)
        print(f"  {label:<19} {t_peer * 1e3:9.1f} ms   ratio peer/ours = {t_peer / t_vec:6.1f}x   "
              f"max rel diff = {max(abs(reference[k] / peer[k] - 1) for k in reference):.1e}")
    print("  scores: " + ", ".join(f"{k}={v:.6f}" for k, v in ours.items()))


def main():
    print(f"best of {REPEATS} runs each")
    run_case("M4 hourly (real, Chronos window)", *real_m4_hourly())
    run_case("synthetic", *synthetic())


if __name__ == "__main__":
    main()
