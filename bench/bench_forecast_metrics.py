"""Benchmark: vectorised forecast metrics vs a per-series Python loop and vs fev's metric classes.

Scores MASE, WQL and SQL of Gaussian seasonal-naive forecasts on (a) the real M4 hourly data
(414 series, H = 48, Chronos window; staged in ../shared/data/forecast) and (b) a synthetic set of
20,000 series (length 300-700, H = 24, m = 24, 2 % missing targets). Prints absolute times, the
speed-up of ``pipeline.protocols.forecast.metrics`` over the peers measured in the same run, and
the largest relative difference between the implementations.

Peer requirement (optional): ``fev==0.10.0``. It pins ``huggingface_hub<2``, which conflicts with
the project's transformers, so install it in a separate environment, e.g.
``python3 -m venv --system-site-packages /tmp/benchvenv && /tmp/benchvenv/bin/pip install fev==0.10.0``
and run this script with that interpreter. Without fev the fev column is reported as unavailable.
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
from pipeline.protocols.forecast.windows import make_windows  # noqa: E402

LEVELS = list(M.DEFAULT_QUANTILES)
REPEATS = 3


def vectorised(y, q, contexts, m):
    scale = M.seasonal_error(contexts, m, "fev")
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


def fev_available() -> bool:
    return importlib.util.find_spec("fev") is not None


def timed(function, *args):
    best, result = np.inf, None
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def real_m4_hourly():
    dataset = read_m4_hourly(REPO.parent / "shared" / "data" / "forecast" / "m4_hourly")
    (window,) = make_windows(dataset.series, offset=-48, prediction_length=48)
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
    if fev_available():
        t_fev, fev_scores = timed(with_fev, y, q, contexts, m)
        print(f"  fev 0.10 metrics    {t_fev * 1e3:9.1f} ms   ratio fev/ours  = {t_fev / t_vec:6.1f}x   "
              f"max rel diff = {max(abs(ours[k] / fev_scores[k] - 1) for k in ours):.1e}")
    else:
        print("  fev metrics         unavailable (pip install fev==0.10.0 in a separate venv, see docstring)")
    print("  scores: " + ", ".join(f"{k}={v:.6f}" for k, v in ours.items()))


def main():
    print(f"best of {REPEATS} runs each")
    run_case("M4 hourly (real, Chronos window)", *real_m4_hourly())
    run_case("synthetic", *synthetic())


if __name__ == "__main__":
    main()
