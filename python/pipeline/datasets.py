"""List, describe and download the registered multi-label datasets.

Examples:

    python -m pipeline.datasets list
    python -m pipeline.datasets info emotions --data-root ../shared/data/mlc
    python -m pipeline.datasets info delicious
    python -m pipeline.datasets fetch emotions Arts tmc2007-500 --dest data/raw
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Sequence

from tqdm import tqdm

from .cli import run_main
from .data.download import fetch_dataset, source_url
from .data.registry import (CLML_MAT, LARGE_DATASETS, MLC_TOOLBOX_MAT, REAL_DATASETS, REGISTRY, DatasetSpec,
                            default_data_root, get_spec, load_dataset, require_files)
from .errors import DataError

_TABLE_HEADER = ("dataset", "format", "n", "train", "test", "d", "L", "card.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.datasets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Details: docs/data.md.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="print the registry as a shape table")
    info = commands.add_parser("info", help="show a dataset's registry entry and, if its files "
                                            "are present, statistics computed from them")
    info.add_argument("name", metavar="NAME", help="a registered dataset")
    info.add_argument("--data-root", type=Path, default=None,
                      help="folder with the raw files, or with <NAME>/train.npz and test.npz (default: "
                           "$MLFS_SHARED_DATA/mlc or ../shared/data/mlc; mlc-large for the larger sets)")
    fetch = commands.add_parser("fetch", help="download datasets' files (from the addresses `info` prints) "
                                              "and verify their SHA-256")
    fetch.add_argument("names", nargs="+", metavar="NAME",
                       help=f"registered real datasets, 'all' for the paper's {len(REAL_DATASETS)}, or "
                            f"'large' for the {len(LARGE_DATASETS)} larger sets")
    fetch.add_argument("--dest", type=Path, required=True, help="destination folder (flat layout)")
    fetch.add_argument("--mirror", default=None,
                       help="base URL holding the same file names (e.g. file:///path/to/copy)")
    fetch.add_argument("--force", action="store_true",
                       help="download even if a file with the right checksum is present")
    fetch.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "list":
        print(_format_table([_row(dataset_spec) for dataset_spec in REGISTRY.values()]))
    elif args.command == "info":
        _print_info(get_spec(args.name), args.data_root or default_data_root(args.name))
    else:
        _fetch(args)
    return 0


def _row(dataset_spec: DatasetSpec) -> tuple:
    card = "-" if math.isnan(dataset_spec.cardinality) else f"{dataset_spec.cardinality:.3f}"
    return (dataset_spec.name, dataset_spec.format, dataset_spec.n, dataset_spec.n_train, dataset_spec.n_test, dataset_spec.d, dataset_spec.n_labels, card)


def _format_table(rows: list[tuple]) -> str:
    cells = [tuple(str(v) for v in row) for row in [_TABLE_HEADER, *rows]]
    widths = [max(len(row[j]) for row in cells) for j in range(len(_TABLE_HEADER))]
    lines = ["  ".join(v.ljust(w) if j < 2 else v.rjust(w) for j, (v, w) in enumerate(zip(row, widths)))
             for row in cells]
    return "\n".join(lines)


def _print_info(dataset_spec: DatasetSpec, data_root: Path) -> None:
    print(_format_table([_row(dataset_spec)]))
    for source in dataset_spec.files:
        print(f"file {source.name}: {source_url(source)} (sha256 {source.sha256})")
    if dataset_spec.drop_attributes:
        print(f"dropped attributes: {', '.join(dataset_spec.drop_attributes)}")
    if dataset_spec.format == CLML_MAT:
        print("rows in file order: the file stores no split; train/test are Mulan's predefined "
              "split sizes, used only for the default hold-out test fraction")
    if dataset_spec.format == MLC_TOOLBOX_MAT:
        print("rows in file order: the file stores no split; train/test are the nominal split of the "
              f"declared hold-out test fraction {dataset_spec.declared_test_size}")
    try:
        require_files(dataset_spec.name, data_root)
    except DataError:
        print(f"files not found in {data_root}: run `python -m pipeline.datasets fetch "
              f"{dataset_spec.name} --dest {data_root}`")
        return
    dataset = load_dataset(dataset_spec.name, data_root)
    Y = dataset.Y
    print(f"loaded: n={dataset.n_samples} d={dataset.n_features} L={dataset.n_labels} "
          f"cardinality={dataset.cardinality:.3f} density={Y.mean():.4f} "
          f"features in [{dataset.X.min():.4g}, {dataset.X.max():.4g}] "
          f"zero share={float((dataset.X == 0).mean()):.3f} "
          f"labels without positives={int((Y.sum(axis=0) == 0).sum())}")


def _fetch(args: argparse.Namespace) -> None:
    names = {"all": list(REAL_DATASETS), "large": list(LARGE_DATASETS)}.get(" ".join(args.names), args.names)
    specs = [get_spec(name) for name in names]
    total = sum(len(dataset_spec.files) for dataset_spec in specs)
    with tqdm(total=total, unit="file", disable=args.no_progress or None) as bar:
        for dataset_spec in specs:
            bar.set_description(dataset_spec.name)
            fetch_dataset(dataset_spec.name, args.dest, mirror=args.mirror, force=args.force,
                          on_file=lambda _source: bar.update(1))
    print(f"{len(specs)} dataset(s) in {args.dest}, checksums verified")


if __name__ == "__main__":
    raise SystemExit(run_main(main))
