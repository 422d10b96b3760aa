"""DAGFS: directed-label-transfer, rarity-aware group-sparse feature selection (the proposed method).

Follows the reference implementation ``src/mlfs/dagfs_v2.py`` of ``gatrunfio/dagfs``
(docs/methods/DAGFS.md, with the line numbers) exactly: the parity-relevant details — eps
placements, the +1 inside the label support, the unweighted lift mean, top-K on the biased graph
with stable ties, eps added to the row norm before doubling, the ``max(Q, eps)`` floor — are kept
on purpose. Departures from the reference, all of them guards: inputs are validated (finite X,
{0,1} labels, by the harness) and the lifted + unpaired mode, whose 2d-long "ranking" is not a
feature ranking, is rejected by :func:`feature_scores` (it stays available through :func:`dagfs`
for diagnostics).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..definitions import method_definition
from ..errors import ConfigError
from ..rankings import rank_scores
from .base import MethodSpec

EPS = np.finfo(np.float64).eps


#: The paper's fixed setting, from ``definitions/DAGFS.json`` (the method's one definition).
_DEFAULTS = method_definition("DAGFS").defaults


@dataclass(frozen=True)
class DAGFSParams:
    """DAGFS hyper-parameters; the defaults are the paper's fixed setting (``definitions/DAGFS.json``)."""

    alpha: float = _DEFAULTS["alpha"]
    beta: float = _DEFAULTS["beta"]
    max_iter: int = _DEFAULTS["max_iter"]
    rarity_gamma: float = _DEFAULTS["rarity_gamma"]
    tau_dir: float = _DEFAULTS["tau_dir"]
    topK: int = _DEFAULTS["topK"]
    kappa: float = _DEFAULTS["kappa"]
    s_max: float = _DEFAULTS["s_max"]
    seed: int = _DEFAULTS["seed"]
    W0: np.ndarray | None = None
    transfer_graph: str = _DEFAULTS["transfer_graph"]
    feature_lift: str = _DEFAULTS["feature_lift"]
    paired_penalty: bool = _DEFAULTS["paired_penalty"]


def _instance_weights(Y: np.ndarray, p: DAGFSParams) -> tuple[np.ndarray, np.ndarray]:
    """Return the label support f (L,) (with its +1) and the instance weights w (n,)."""
    support = Y.sum(axis=0) + 1.0
    q = support ** (-p.rarity_gamma)
    prior = q / (q.sum() + EPS)
    s = 1.0 + p.kappa * (Y @ prior)
    s = np.minimum(s, p.s_max)
    s = s / (s.mean() + EPS)
    return support, np.sqrt(s)


def _transfer_graph(Ys: np.ndarray, support: np.ndarray, p: DAGFSParams) -> np.ndarray:
    """Directed, top-K sparsified, row-normalised label transfer graph C (L, L)."""
    norms = np.linalg.norm(Ys, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        S = (Ys.T @ Ys) / (np.outer(norms, norms) + EPS)
    S = np.where(np.isfinite(S), S, 0.0)
    S = np.maximum(S, 0.0)
    np.fill_diagonal(S, 0.0)
    ratio = np.outer(support, np.ones_like(support)) / np.outer(np.ones_like(support), support)
    ratio = np.where(np.isfinite(ratio), ratio, 1.0)
    C = S * ratio ** p.tau_dir
    n_labels = C.shape[0]
    if 0 < p.topK < n_labels:
        order = np.argsort(-C, axis=1, kind="stable")
        keep = np.zeros_like(C, dtype=bool)
        np.put_along_axis(keep, order[:, : p.topK], True, axis=1)
        C = np.where(keep, C, 0.0)
    return C / (C.sum(axis=1, keepdims=True) + EPS)


def _lift(X: np.ndarray, mode: str) -> np.ndarray:
    if mode == "none":
        return X
    centred = X - X.mean(axis=0, keepdims=True)
    return np.hstack([np.maximum(centred, 0.0), np.maximum(-centred, 0.0)])


def _group_weights(W: np.ndarray, d: int, paired: bool) -> np.ndarray:
    """δ (d',): 1 / (2 (‖group‖ + eps)) for each row of W."""
    if paired:
        g = np.sqrt((W[:d] ** 2).sum(axis=1) + (W[d:] ** 2).sum(axis=1)) + EPS
        g = np.concatenate([g, g])
    else:
        g = np.linalg.norm(W, axis=1) + EPS
    return 1.0 / (2.0 * g)


def _normalise_params(params) -> DAGFSParams:
    if params is None:
        p = DAGFSParams()
    elif isinstance(params, DAGFSParams):
        p = params
    elif isinstance(params, dict):
        p = DAGFSParams(**params)
    else:
        raise ConfigError(f"DAGFS params must be None, a dict or DAGFSParams, not {type(params).__name__}")
    graph = str(p.transfer_graph).lower().strip()
    lift = str(p.feature_lift).lower().strip()
    if graph != "directed":
        raise ValueError(f"transfer_graph must be 'directed', got {p.transfer_graph!r}")
    if lift not in ("none", "center_split"):
        raise ValueError(f"feature_lift must be 'none' or 'center_split', got {p.feature_lift!r}")
    return DAGFSParams(**{**asdict(p), "transfer_graph": graph, "feature_lift": lift, "W0": p.W0})


def dagfs(X, Y, params=None) -> tuple[np.ndarray, np.ndarray, dict]:
    """Run DAGFS on training data, as the reference does (a ranking of the lifted rows included).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Non-negative training features (min–max scaled in the benchmark).
    Y : array-like of shape (n, L)
        Training labels in {0, 1}.
    params : None, dict or DAGFSParams
        Hyper-parameters (a dict with an unknown key raises TypeError, as in the reference).

    Returns
    -------
    ranking_1based : int64 ndarray of shape (d,) (or (2d,) in lifted + unpaired mode)
    W : float64 ndarray of shape (d', L), non-negative
    info : dict with ``feature_lift``, ``transfer_graph``, ``paired_penalty``, ``scores``
    """
    p = _normalise_params(params)
    W, scores, info = _fit(np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64), p)
    return rank_scores(scores, "DAGFS"), W, {**info, "scores": scores}


def _fit(X: np.ndarray, Y: np.ndarray, p: DAGFSParams) -> tuple[np.ndarray, np.ndarray, dict]:
    """The multiplicative updates on float64 X (n, d), Y (n, L): W (d', L), the row scores, info."""
    n, d = X.shape
    support, w = _instance_weights(Y, p)
    Ys = Y * w[:, None]
    C = _transfer_graph(Ys, support, p)
    I_minus_C = np.eye(C.shape[0]) - C
    M = I_minus_C @ I_minus_C.T
    M = (M + M.T) / 2.0
    M_pos = (np.abs(M) + M) / 2.0
    M_neg = (np.abs(M) - M) / 2.0
    Xs = _lift(X, p.feature_lift) * w[:, None]
    G = Xs.T @ Xs
    H = Xs.T @ Ys
    lifted = p.feature_lift == "center_split"
    paired = lifted and bool(p.paired_penalty)
    if p.W0 is not None:
        W = np.array(p.W0, dtype=np.float64, copy=True)
        if W.shape != H.shape:
            raise ValueError(f"W0 must have shape {H.shape}, got {W.shape}")
    else:
        W = np.random.default_rng(p.seed).random(H.shape)
    for _ in range(int(p.max_iter)):
        delta = _group_weights(W, d, paired)
        numerator = H + p.alpha * (W @ M_neg)
        denominator = G @ W + p.alpha * (W @ M_pos) + p.beta * (delta[:, None] * W)
        W = W * numerator / np.maximum(denominator, EPS)
    if paired:
        scores = np.sqrt((W[:d] ** 2).sum(axis=1) + (W[d:] ** 2).sum(axis=1))
    else:
        scores = np.linalg.norm(W, axis=1)
    info = {"feature_lift": p.feature_lift, "transfer_graph": p.transfer_graph,
            "paired_penalty": bool(p.paired_penalty)}
    return W, scores, info


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict,
                   init: dict | None = None) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`).

    ``init['W0']`` (d', L), when given, overrides the seeded start. Returns the (d,) scores and
    info (``feature_lift``, ``transfer_graph``, ``paired_penalty``, ``W_sum``).
    """
    if params["feature_lift"].lower().strip() != "none" and not params["paired_penalty"]:
        raise ConfigError("DAGFS with feature_lift='center_split' and paired_penalty=false ranks 2d lifted "
                          "rows, not features; use paired_penalty=true or feature_lift='none'")
    if init is not None and "W0" in init:
        params = {**params, "W0": init["W0"]}
    W, scores, info = _fit(X, Y, _normalise_params(params))
    return scores, {**info, "W_sum": float(W.sum())}


SPEC = MethodSpec.shipped(
    "DAGFS",
    scores=feature_scores,
    summary="directed label transfer + rarity-aware group sparsity (proposed method, Python only)",
)
