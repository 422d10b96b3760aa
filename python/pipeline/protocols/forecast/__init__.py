"""forecast protocol: time-series foundation-model forecasting benchmark (docs/forecast.md).

Layers: :mod:`.limits` (size limits), :mod:`.data` / :mod:`.arrow_data` (local Arrow/CSV datasets),
:mod:`.convert` and :mod:`.download` (getting data into that layout), :mod:`.windows`,
:mod:`.seasonality`, :mod:`.metrics`, :mod:`.aggregate`, :mod:`.forecasters` /
:mod:`.chronos_models` / :mod:`.models` (models), :mod:`.benchmarks` (one adapter per suite),
:mod:`.runner`, :mod:`.outputs`, :mod:`.compare` and :mod:`.reference` (published results),
:mod:`.environment`; CLI in ``__main__``.
"""
