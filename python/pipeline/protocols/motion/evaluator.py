"""Learned-embedding FID (the original CLoSD script's FID): the HumanML3D "T2M" evaluator.

The evaluator embeds 263-d motions with a strided 1-D convolution ("movement encoder", 4 frames →
1 step) followed by a bidirectional GRU ("motion encoder") whose final hidden states give a 512-d
embedding. The layer layout below matches the published checkpoint
(``t2m/text_mot_match/model/finest.tar``: keys ``movement_encoder`` and ``motion_encoder``), which is
loaded with ``torch.load(weights_only=True)`` (no arbitrary unpickling) and ``strict=True``.
Nothing is downloaded: without a checkpoint the learned FID is reported as null.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np

from ...errors import DataError
from ...fileio import open_regular_file
from .loading import FEATURE_DIM

UNIT_LENGTH = 4           # frames per movement step (two stride-2 convolutions)
CONTACT_DIMS = 4          # foot contacts, dropped before encoding
MOVEMENT_DIM, HIDDEN_DIM, EMBEDDING_DIM = 512, 1024, 512


def _build_encoders():
    import torch
    from torch import nn

    class MovementEncoder(nn.Module):
        """(B, T, 259) → (B, T/4, 512) with two stride-2 convolutions and a linear head."""

        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.Conv1d(FEATURE_DIM - CONTACT_DIMS, MOVEMENT_DIM, 4, 2, 1), nn.Dropout(0.2),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv1d(MOVEMENT_DIM, MOVEMENT_DIM, 4, 2, 1), nn.Dropout(0.2),
                nn.LeakyReLU(0.2, inplace=True))
            self.out_net = nn.Linear(MOVEMENT_DIM, MOVEMENT_DIM)

        def forward(self, motions):
            return self.out_net(self.main(motions.permute(0, 2, 1)).permute(0, 2, 1))

    class MotionEncoder(nn.Module):
        """(B, S, 512) movement steps + valid step counts → (B, 512) embeddings (BiGRU)."""

        def __init__(self):
            super().__init__()
            self.input_emb = nn.Linear(MOVEMENT_DIM, HIDDEN_DIM)
            self.gru = nn.GRU(HIDDEN_DIM, HIDDEN_DIM, batch_first=True, bidirectional=True)
            self.output_net = nn.Sequential(
                nn.Linear(HIDDEN_DIM * 2, HIDDEN_DIM), nn.LayerNorm(HIDDEN_DIM),
                nn.LeakyReLU(0.2, inplace=True), nn.Linear(HIDDEN_DIM, EMBEDDING_DIM))
            self.hidden = nn.Parameter(torch.randn((2, 1, HIDDEN_DIM), requires_grad=True))

        def forward(self, steps, step_counts):
            packed = nn.utils.rnn.pack_padded_sequence(self.input_emb(steps), step_counts.cpu(),
                                                       batch_first=True, enforce_sorted=False)
            _, last = self.gru(packed, self.hidden.repeat(1, steps.shape[0], 1))
            return self.output_net(torch.cat([last[0], last[1]], dim=-1))

    return MovementEncoder(), MotionEncoder()


class T2MEmbedder:
    """Embed 263-d motions with a local T2M evaluator checkpoint.

    Parameters
    ----------
    checkpoint : path
        ``finest.tar`` with ``movement_encoder`` and ``motion_encoder`` state dicts.
    mean, std : ndarray (263,)
        The evaluator's own normalisation (``Comp_v6_KLD01/meta/{mean,std}.npy``), applied to
        de-normalised features.
    device : str
        Torch device, e.g. ``"cpu"``.
    """

    def __init__(self, checkpoint: str | Path, mean: np.ndarray, std: np.ndarray,
                 device: str = "cpu", batch_size: int = 256):
        import torch

        checkpoint = Path(checkpoint)
        if not checkpoint.is_file():
            raise DataError("evaluator checkpoint not found: expected the HumanML3D T2M "
                            "text_mot_match finest.tar", file=checkpoint)
        try:
            self.device = torch.device(device)
            with open_regular_file(checkpoint, "evaluator checkpoint", None, DataError) as handle:
                state = torch.load(handle, map_location=self.device, weights_only=True)
        except (pickle.UnpicklingError, RuntimeError, ValueError, OSError) as exc:
            raise DataError(f"cannot load as a weights-only torch checkpoint ({exc})",
                            file=checkpoint) from exc
        self.movement, self.motion = _build_encoders()
        for name, module in (("movement_encoder", self.movement), ("motion_encoder", self.motion)):
            if not isinstance(state, dict) or name not in state:
                raise DataError("missing state dict", file=checkpoint, field=name,
                                expected="keys movement_encoder and motion_encoder")
            try:
                module.load_state_dict(state[name], strict=True)
            except RuntimeError as exc:
                raise DataError(f"layout does not match the T2M evaluator: {exc}",
                                file=checkpoint, field=name) from exc
            module.to(self.device).eval()
        self.mean, self.std, self.batch_size = mean, std, batch_size

    def transform(self, features: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Embeddings (N, 512) of de-normalised features (N, T, 263) with valid lengths (N,)."""
        import torch

        normalized = ((features - self.mean) / self.std)[..., :-CONTACT_DIMS].astype(np.float32)
        steps = np.maximum(lengths // UNIT_LENGTH, 1)
        out = []
        with torch.no_grad():
            for start in range(0, len(features), self.batch_size):
                chunk = slice(start, start + self.batch_size)
                movements = self.movement(torch.from_numpy(normalized[chunk]).to(self.device))
                counts = torch.from_numpy(np.minimum(steps[chunk], movements.shape[1]))
                out.append(self.motion(movements, counts).cpu().numpy().astype(np.float64))
        return np.concatenate(out)
