"""The eight compared architectures M1-M8 (table in ``docs/steering.md``).

Every model maps a window ``(batch, 50, 5)`` (50 time steps of 5 features) to one normalised
steering torque per window, shape ``(batch,)``. The parameter counts follow PyTorch conventions and
match the recomputed column of the documented table exactly (see ``MODEL_SPECS``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from ...errors import ConfigError

WINDOW_LENGTH = 50
N_FEATURES = 5


class LastStepMLP(nn.Module):
    """M1: an MLP on the last time step only, 5 -> 64 -> 64 -> 1 with ReLU."""

    def __init__(self, n_features: int = N_FEATURES, hidden: int = 64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x[:, -1, :]).squeeze(-1)


class FlatWindowMLP(nn.Module):
    """M2: an MLP on the flattened window, 250 -> 128 -> 64 -> 1 with ReLU."""

    def __init__(self, window: int = WINDOW_LENGTH, n_features: int = N_FEATURES):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(window * n_features, 128), nn.ReLU(),
                                 nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)


class SimpleAttention(nn.Module):
    """A learned score per time step, ``Linear(H, 1)``, softmax over time, weighted sum of states."""

    def __init__(self, hidden: int):
        super().__init__()
        self.score = nn.Linear(hidden, 1)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        weights = torch.softmax(self.score(states), dim=1)           # (batch, T, 1)
        return (weights * states).sum(dim=1)


class AdditiveAttention(nn.Module):
    """Bahdanau attention: ``v^T tanh(W_q q + W_k h_t)`` with the last state as query q."""

    def __init__(self, hidden: int):
        super().__init__()
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, 1)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        query = self.query(states[:, -1:, :])                         # (batch, 1, H)
        weights = torch.softmax(self.v(torch.tanh(query + self.key(states))), dim=1)
        return (weights * states).sum(dim=1)


class DotProductAttention(nn.Module):
    """Scaled dot-product attention without learned projections (adds no parameters).

    Query = last hidden state, keys = values = all hidden states, scores divided by sqrt(H).
    """

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        query = states[:, -1:, :]                                      # (batch, 1, H)
        scores = (states * query).sum(dim=-1, keepdim=True) / math.sqrt(states.shape[-1])
        return (torch.softmax(scores, dim=1) * states).sum(dim=1)


_ATTENTION = {"simple": SimpleAttention, "additive": AdditiveAttention,
              "dot": lambda hidden: DotProductAttention()}


class LSTMRegressor(nn.Module):
    """M3-M8: a stacked LSTM, optional attention over its states, then ``Linear(H, 1)``.

    Without attention the head reads the last hidden state of the top layer.
    """

    def __init__(self, hidden: int, layers: int, attention: str | None = None,
                 n_features: int = N_FEATURES):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, num_layers=layers, batch_first=True)
        self.attention = None if attention is None else _ATTENTION[attention](hidden)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        states, _ = self.lstm(x)                                       # (batch, T, H)
        summary = states[:, -1, :] if self.attention is None else self.attention(states)
        return self.head(summary).squeeze(-1)


@dataclass(frozen=True)
class ModelSpec:
    """A zoo entry: how to build the model, its recomputed parameter count and the stated one."""

    model_id: str
    description: str
    expected_params: int
    stated: str


MODEL_SPECS = {
    "M1": ModelSpec("M1", "MLP on last step 5-64-64-1", 4_609, "4.6K"),
    "M2": ModelSpec("M2", "MLP on flattened window 250-128-64-1", 40_449, "40K"),
    "M3": ModelSpec("M3", "LSTM 64x3", 84_801, "85K"),
    "M4": ModelSpec("M4", "LSTM 64x3 + simple attention", 84_866, "85K"),
    "M5": ModelSpec("M5", "LSTM 128x5", 597_633, "598K"),
    "M6": ModelSpec("M6", "LSTM 128x5 + simple attention", 597_762, "598K"),
    "M7": ModelSpec("M7", "LSTM 128x5 + additive attention", 630_786, "631K"),
    "M8": ModelSpec("M8", "LSTM 128x5 + scaled dot-product attention", 597_633, "598K"),
}

_BUILDERS = {
    "M1": lambda: LastStepMLP(),
    "M2": lambda: FlatWindowMLP(),
    "M3": lambda: LSTMRegressor(64, 3),
    "M4": lambda: LSTMRegressor(64, 3, "simple"),
    "M5": lambda: LSTMRegressor(128, 5),
    "M6": lambda: LSTMRegressor(128, 5, "simple"),
    "M7": lambda: LSTMRegressor(128, 5, "additive"),
    "M8": lambda: LSTMRegressor(128, 5, "dot"),
}


def build_model(model_id: str, seed: int) -> nn.Module:
    """A freshly initialised model ``model_id`` (M1-M8), its weights drawn from ``seed`` only."""
    if model_id not in _BUILDERS:
        raise ConfigError(f"unknown model id {model_id!r}", expected=f"one of {sorted(_BUILDERS)}")
    with torch.random.fork_rng(devices=[]):  # leave the caller's global generator untouched
        torch.manual_seed(seed)
        return _BUILDERS[model_id]()


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters, ``sum(p.numel())`` over parameters with ``requires_grad``."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def parameter_efficiency(accuracy_percent: float, n_params: int) -> float:
    """``PE = accuracy_% / (n_params / 1e5)``; M1 (4,609 parameters) at 80 % gives 1735.7."""
    return accuracy_percent / (n_params / 1e5)
