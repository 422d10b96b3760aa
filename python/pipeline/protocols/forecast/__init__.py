"""forecast protocol: time-series foundation-model forecasting benchmark (spec §4).

Layers: :mod:`.data` (local Arrow/CSV datasets), :mod:`.convert` and :mod:`.download` (getting data
into that layout), :mod:`.windows`, :mod:`.seasonality`, :mod:`.metrics`, :mod:`.aggregate`,
:mod:`.forecasters` / :mod:`.chronos_models` / :mod:`.models` (models), :mod:`.benchmarks` (one
adapter per suite), :mod:`.runner` and :mod:`.outputs`; CLI in ``__main__``.
"""
