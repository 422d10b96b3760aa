"""Downstream classifiers for metrics 3-5, one per baseline (described in ``docs/har.md``).

Every classifier has ``fit(x_train, y_train, x_val, y_val) -> self``, ``predict(x) -> (n,)`` and
``describe() -> dict`` (recorded in the output JSON). ``input_kind`` says what rows it eats:

* ``"pooled"``     -- ``(n, D)`` vectors (a sequence embedding is averaged over time first);
* ``"sequence"``   -- ``(n, T, D)`` sequence embeddings;
* ``"subwindows"`` -- ``(m, 20, D)`` sub-windows re-cut from ``(n, 120, D)`` (LiMU-BERT GRU).

The neural ones share one loop: cross-entropy, Adam, shuffled mini-batches, ``torch.manual_seed``
before construction, keep the weights of the strictly best validation accuracy.
"""

from __future__ import annotations

import copy
import math
import warnings
from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.svm import SVC
from torch import nn

from ...errors import ConfigError
from .splits import SEED

CLASSIFIER_KINDS = ("linear", "gru", "svm_rbf", "transformer_ft")
SVM_C_GRID = [1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1e3, 1e4]
SVM_SMALL_C = 1e5
# A larger training set is cut to a stratified sample of this many rows for the grid search of C and
# the refit of the chosen C: a bound on their cost, not a limit on the input; recorded as max_search_rows.
SVM_SEARCH_ROWS = 10_000


@dataclass(frozen=True)
class TrainingConfig:
    """Mini-batch training settings. ``epochs`` is the test-size knob (protocol value: 100)."""

    epochs: int = 100
    batch_size: int = 512
    lr: float = 1e-3
    seed: int = SEED

    def __post_init__(self) -> None:
        for name in ("epochs", "batch_size"):
            if int(getattr(self, name)) < 1:
                raise ConfigError("must be a positive integer", field=name, found=getattr(self, name))
        if not self.lr > 0:
            raise ConfigError("learning rate must be positive", field="lr", found=self.lr)


class LinearProbe(nn.Module):
    """``Linear(D, C)`` with dropout p=0.3 on the input embedding during training only."""

    def __init__(self, emb_dim: int, n_classes: int):
        super().__init__()
        self.fc = nn.Linear(emb_dim, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(F.dropout(x, 0.3, training=self.training))


class GRUClassifier(nn.Module):
    """LiMU-BERT ``gru_v2``: GRU(D->20, 2 layers) -> GRU(20->10) -> last step -> dropout 0.5 -> Linear."""

    def __init__(self, emb_dim: int, n_classes: int):
        super().__init__()
        self.gru1 = nn.GRU(emb_dim, 20, num_layers=2, batch_first=True)
        self.gru2 = nn.GRU(20, 10, num_layers=1, batch_first=True)
        self.fc = nn.Linear(10, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden, _ = self.gru1(x)
        hidden, _ = self.gru2(hidden)
        return self.fc(F.dropout(hidden[:, -1, :], 0.5, training=self.training))


def sinusoidal_positions(length: int, width: int) -> torch.Tensor:
    """Fixed positional table ``(length, width)``: sin on even dims, cos on odd dims."""
    position = torch.arange(length, dtype=torch.float32)[:, None]
    frequency = torch.exp(torch.arange(0, width, 2, dtype=torch.float32) * (-math.log(10000.0) / width))
    table = torch.zeros(length, width)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table


class TransformerFT(nn.Module):
    """CrossHAR ``Transformer_ft``: Linear(D->100) + positions -> 1 encoder layer -> mean -> Linear."""

    def __init__(self, emb_dim: int, n_classes: int, max_length: int = 120, width: int = 100):
        super().__init__()
        self.embed = nn.Linear(emb_dim, width)
        self.register_buffer("positions", sinusoidal_positions(max_length, width))
        layer = nn.TransformerEncoderLayer(d_model=width, nhead=4, dim_feedforward=2048, dropout=0.1,
                                           activation="relu", norm_first=False, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.fc = nn.Linear(width, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.embed(x) + self.positions[: x.shape[1]]
        return self.fc(self.encoder(hidden).mean(dim=1))


_NETWORKS = {"linear": (LinearProbe, "pooled"), "gru": (GRUClassifier, "subwindows"),
             "transformer_ft": (TransformerFT, "sequence")}


def input_kind(kind: str) -> str:
    """What rows classifier ``kind`` eats: ``pooled``, ``sequence`` or ``subwindows``."""
    return _NETWORKS[kind][1] if kind in _NETWORKS else "pooled"


class NeuralClassifier:
    """Train one of the torch networks with the common best-by-validation-accuracy loop."""

    def __init__(self, kind: str, n_classes: int, config: TrainingConfig):
        self.kind = kind
        self.n_classes = n_classes
        self.config = config
        self.network_class, self.input_kind = _NETWORKS[kind]
        self.model: nn.Module | None = None
        self.best_val_accuracy = 0.0

    def fit(self, x_train: np.ndarray, y_train: np.ndarray, x_val: np.ndarray, y_val: np.ndarray) -> "NeuralClassifier":
        torch.manual_seed(self.config.seed)
        model = self.network_class(x_train.shape[-1], self.n_classes)
        optimizer = torch.optim.Adam(model.parameters(), lr=self.config.lr)
        order_rng = torch.Generator().manual_seed(self.config.seed)
        inputs = torch.as_tensor(x_train, dtype=torch.float32)
        targets = torch.as_tensor(y_train, dtype=torch.long)
        best_state, self.best_val_accuracy = None, 0.0
        for _ in range(self.config.epochs):
            model.train()
            for batch in torch.randperm(len(inputs), generator=order_rng).split(self.config.batch_size):
                optimizer.zero_grad()
                F.cross_entropy(model(inputs[batch]), targets[batch]).backward()
                optimizer.step()
            accuracy = float(np.mean(self._predict_with(model, x_val) == y_val))
            if accuracy > self.best_val_accuracy:
                self.best_val_accuracy, best_state = accuracy, copy.deepcopy(model.state_dict())
        if best_state is not None:
            model.load_state_dict(best_state)
        self.model = model
        return self

    def _predict_with(self, model: nn.Module, x: np.ndarray) -> np.ndarray:
        model.eval()
        with torch.no_grad():
            logits = torch.cat([model(chunk) for chunk in torch.as_tensor(x, dtype=torch.float32).split(4096)])
        return logits.argmax(dim=1).numpy()

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self._predict_with(self.model, x)

    def describe(self) -> dict:
        return {"type": self.kind, **asdict(self.config), "optimizer": "adam", "selection": "val_accuracy"}

    def fit_details(self) -> dict:
        return {"best_val_accuracy": 100.0 * self.best_val_accuracy}


class SvmRbfClassifier:
    """MOMENT's SVM-RBF (TS2Vec ``fit_svm``): grid search over C unless the training set is tiny."""

    input_kind = "pooled"

    def __init__(self, n_classes: int):
        self.n_classes = n_classes
        self.estimator: SVC | None = None
        self.branch = ""

    def fit(self, x_train: np.ndarray, y_train: np.ndarray, x_val=None, y_val=None) -> "SvmRbfClassifier":
        n_train_classes = len(np.unique(y_train))
        if len(y_train) // n_train_classes < 5 or len(y_train) < 50:
            self.branch = "single_svc"
            self.estimator = SVC(C=SVM_SMALL_C, gamma="scale").fit(x_train, y_train)
            return self
        self.branch = "grid_search"
        if len(y_train) > SVM_SEARCH_ROWS:
            stratify = y_train if np.unique(y_train, return_counts=True)[1].min() >= 2 else None
            x_train, _, y_train, _ = train_test_split(x_train, y_train, train_size=SVM_SEARCH_ROWS,
                                                      random_state=0, stratify=stratify)
        search = GridSearchCV(SVC(kernel="rbf", gamma="scale", max_iter=10_000_000), {"C": SVM_C_GRID}, cv=5)
        with warnings.catch_warnings():
            # Tiny classes only make StratifiedKFold warn; the protocol accepts that.
            warnings.filterwarnings("ignore", message=".*least populated class.*")
            search.fit(x_train, y_train)
        self.estimator = search.best_estimator_
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.estimator.predict(x)

    def describe(self) -> dict:
        return {"type": "svm_rbf", "C_grid": SVM_C_GRID, "small_train_C": SVM_SMALL_C, "gamma": "scale",
                "cv": 5, "max_search_rows": SVM_SEARCH_ROWS}

    def fit_details(self) -> dict:
        details = {"svm_branch": self.branch}
        if self.branch == "grid_search":
            details["svm_C"] = float(self.estimator.C)
        return details


def make_classifier(kind: str, n_classes: int, config: TrainingConfig):
    """Return an unfitted classifier of ``kind`` (one of :data:`CLASSIFIER_KINDS`)."""
    if kind == "svm_rbf":
        return SvmRbfClassifier(n_classes)
    if kind in _NETWORKS:
        return NeuralClassifier(kind, n_classes, config)
    raise ConfigError("unknown classifier", field="classifier", expected=list(CLASSIFIER_KINDS), found=kind)
