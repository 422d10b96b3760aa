"""Convert a pickled result file to the pickle-free ``.npz`` format.

``python -m pipeline.protocols.motion.convert results.npy results.npz``

The input is read with the restricted unpickler (see :mod:`.loading`) and validated; the output
holds plain arrays only (``motion``, ``lengths``, ``gt_motion``, ``audio_{i}``, ``audio_sr``) and is
loaded with ``allow_pickle=False``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from ...cli import run_main
from ...errors import ConfigError
from ..user_files import output_file
from ..load_limits import add_limit_arguments, limits_from_arguments
from .loading import load_motion_results, save_npz


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.protocols.motion.convert",
                                     description="Convert .npy/.pkl motion results to .npz.")
    parser.add_argument("source", type=Path, help=".npy dict or .pkl result file")
    parser.add_argument("target", type=Path, help="output .npz")
    add_limit_arguments(parser)
    args = parser.parse_args(argv)
    if args.target.suffix.lower() != ".npz":
        raise ConfigError("output must end in .npz", field="target", found=str(args.target))
    output_file(args.target, "target")
    results = load_motion_results(args.source, limits_from_arguments(args))
    save_npz(results, args.target)
    print(f"wrote {args.target}: {results.motion.shape[0]} motions, "
          f"{sum(clip is not None for clip in results.audio)} with audio")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
