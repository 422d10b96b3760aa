"""Size limits on the input files of the protocols, checked before anything is allocated from them:
the ``--max-bytes`` and ``--max-elements`` options, whose defaults are in :mod:`pipeline.limits`."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ..errors import ConfigError
from ..limits import DEFAULT_PROTOCOL_MAX_BYTES, DEFAULT_PROTOCOL_MAX_ELEMENTS, format_memory_size


@dataclass(frozen=True)
class LoadLimits:
    """How much one input file may make the loader build.

    Attributes
    ----------
    max_bytes : int
        Largest data a file may hold or declare: the file size of ``.npy``/``.pkl`` files, the sum
        of the uncompressed members of an ``.npz``. Real files of 1,000 motions with audio are
        about 1.2 GB; the default is :data:`~pipeline.limits.DEFAULT_PROTOCOL_MAX_BYTES` (8 GiB).
    max_elements : int
        Largest number of Python objects one pickled value may stand for once its shared
        references are expanded (NumPy arrays, strings and numbers count one each). Result files
        of dicts, arrays and audio lists stay far below the default
        (:data:`~pipeline.limits.DEFAULT_PROTOCOL_MAX_ELEMENTS`, 10 million); a pickle of
        nested lists that share one another is refused as soon as it exceeds it.
    """

    max_bytes: int = DEFAULT_PROTOCOL_MAX_BYTES
    max_elements: int = DEFAULT_PROTOCOL_MAX_ELEMENTS

    def __post_init__(self):
        for name in ("max_bytes", "max_elements"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError("must be a positive integer", field=f"--{name.replace('_', '-')}",
                                  found=value)


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--max-bytes`` and ``--max-elements`` (the :class:`LoadLimits` of the input file)."""
    parser.add_argument("--max-bytes", dest="max_bytes", type=int, default=DEFAULT_PROTOCOL_MAX_BYTES,
                        help="largest data an input file may hold or declare (default "
                             f"{format_memory_size(DEFAULT_PROTOCOL_MAX_BYTES)})")
    parser.add_argument("--max-elements", dest="max_elements", type=int,
                        default=DEFAULT_PROTOCOL_MAX_ELEMENTS,
                        help="largest number of objects a pickled value may expand to "
                             f"(default {DEFAULT_PROTOCOL_MAX_ELEMENTS:,})")


def limits_from_arguments(args: argparse.Namespace) -> LoadLimits:
    return LoadLimits(max_bytes=args.max_bytes, max_elements=args.max_elements)
