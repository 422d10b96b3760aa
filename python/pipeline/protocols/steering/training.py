"""Training, batched prediction and the single-sample latency protocol."""

from __future__ import annotations

import platform
import time
from typing import Callable

import numpy as np
import torch
from torch import nn

from .data import SequenceWindowDataset


def train_model(model: nn.Module, dataset: SequenceWindowDataset, train_indices: np.ndarray, *,
                epochs: int, seed: int, batch_size: int = 256, learning_rate: float = 1e-3,
                device: str = "cpu", on_batch: Callable[[], None] = lambda: None) -> list[float]:
    """Fit ``model`` by Adam on the MSE of samples ``train_indices``; return the loss per epoch.

    Batches are gathered with :meth:`SequenceWindowDataset.windows` (one indexing call per batch)
    and moved to ``device`` (where the model must already be); the shuffling order comes from
    ``seed`` only. ``on_batch`` is called after every optimiser step (progress bars).
    """
    rng = np.random.default_rng(seed)
    optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate)
    loss_fn = nn.MSELoss()
    history = []
    model.train()
    for _ in range(epochs):
        order = rng.permutation(np.asarray(train_indices))
        total = 0.0
        for start in range(0, order.size, batch_size):
            x, y = (t.to(device) for t in dataset.windows(order[start:start + batch_size]))
            optimiser.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimiser.step()
            total += loss.item() * y.shape[0]
            on_batch()
        history.append(total / max(1, order.size))
    return history


def predict(model: nn.Module, dataset: SequenceWindowDataset, indices: np.ndarray,
            batch_size: int = 1024, device: str = "cpu") -> np.ndarray:
    """Predictions ``(k,)`` float64 for samples ``indices`` in eval mode without gradients
    (inputs moved to ``device``, where the model must be)."""
    model.eval()
    indices = np.asarray(indices)
    out = []
    with torch.inference_mode():
        for start in range(0, indices.size, batch_size):
            x, _ = dataset.windows(indices[start:start + batch_size])
            out.append(model(x.to(device)).double().cpu().numpy())
    return np.concatenate(out) if out else np.empty(0)


def measure_latency(model: nn.Module, window: torch.Tensor, *, n_warmup: int = 20,
                    n_timed: int = 1000) -> dict:
    """Single-sample CPU latency: p50, p95 (linear interpolation), mean in ms, on one thread.

    ``window`` is one real test window ``(1, T, C)``. Protocol: eval mode, inference mode,
    ``torch.set_num_threads(1)`` (restored afterwards), ``n_warmup`` untimed calls, then
    ``n_timed`` calls timed with ``time.perf_counter_ns``.
    """
    if window.ndim != 3 or window.shape[0] != 1:
        raise ValueError(f"latency needs one window of shape (1, T, C), got {tuple(window.shape)}")
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        model.eval()
        with torch.inference_mode():
            for _ in range(n_warmup):
                model(window)
            elapsed = np.empty(n_timed)
            for i in range(n_timed):
                start = time.perf_counter_ns()
                model(window)
                elapsed[i] = time.perf_counter_ns() - start
        threads = torch.get_num_threads()
    finally:
        torch.set_num_threads(previous_threads)
    ms = elapsed / 1e6
    return {"p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
            "mean_ms": float(ms.mean()), "n_warmup": n_warmup, "n_timed": n_timed,
            "num_threads": threads, "cpu": platform.processor() or platform.machine()}
