"""Export stratified, train-only-scaled folds of registered datasets as MATLAB .mat files.

Examples:

    python -m pipeline.export_splits --datasets emotions yeast --split-mode holdout --folds 5
    python -m pipeline.export_splits --dataset demo --split-mode kfold --folds 5 \\
        --output-dir data/paper_matlab_minmax

Writes <output-dir>/<DATASET>/fold<i>.mat (X_train, Y_train, X_test, Y_test) and a JSON
sidecar fold<i>.json per fold (seed, split settings, row indices, SHA-256 of the sources and of
the fold file, library versions). The same arguments give byte-identical files on every run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from tqdm import tqdm

from .cli import run_main
from .data.export import ExportSettings, export_dataset
from .data.registry import REAL_DATASETS, REGISTRY, DatasetSpec, get_spec, load_dataset, require_files
from .data.scaling import SCALERS
from .data.splits import SPLIT_MODES
from .errors import ConfigError, DataError

DEFAULT_OUTPUT_DIR = Path("data/paper_matlab_minmax")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.export_splits",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Datasets: " + ", ".join(REGISTRY) + ". Details: docs/data.md.")
    parser.add_argument("--datasets", "--dataset", nargs="+", metavar="NAME",
                        help=f"datasets to export (default: the {len(REAL_DATASETS)} real datasets)")
    parser.add_argument("--data-root", type=Path, default=None,
                        help="folder with the raw dataset files, or with <DATASET>/train.npz and test.npz "
                             "(the paper exporter's CSR layout) (default: $MLFS_SHARED_DATA/mlc or "
                             "../shared/data/mlc; mlc-large for the larger sets); not needed for 'demo'")
    parser.add_argument("--output-dir", type=Path, default=DEFAULT_OUTPUT_DIR,
                        help=f"where <DATASET>/fold<i>.mat go (default: {DEFAULT_OUTPUT_DIR})")
    parser.add_argument("--split-mode", choices=SPLIT_MODES, default="holdout",
                        help="holdout = the reference's repeated stratified holdout (default); "
                             "kfold = stratified k-fold cross-validation")
    parser.add_argument("--folds", type=int, default=5,
                        help="number of folds (kfold) or holdout repeats (default: 5)")
    parser.add_argument("--seed", type=int, default=0,
                        help="base seed; holdout repeat f uses seed+f (default: 0)")
    parser.add_argument("--test-size", type=float, default=None,
                        help="holdout test fraction (default: the dataset's predefined "
                             "n_test/n, as the reference; for the larger sets, which have no "
                             "predefined split, the declared 0.3)")
    parser.add_argument("--scaler", choices=SCALERS, default="minmax",
                        help="feature scaling fitted on each training part (default: minmax)")
    parser.add_argument("--clip-test", action="store_true",
                        help="clip min-max scaled values to [0, 1] (off by default, as the reference)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    names = args.datasets or list(REAL_DATASETS)
    specs = [get_spec(name) for name in names]
    if args.test_size is not None and args.split_mode == "kfold":
        raise ConfigError("--test-size applies to --split-mode holdout only", field="--test-size")
    data_root = args.data_root  # None: each dataset's collection folder
    plan = [(dataset_spec, _settings(args, dataset_spec)) for dataset_spec in specs]  # fail before any work on bad input
    for dataset_spec in specs:
        require_files(dataset_spec.name, data_root)
    _check_output_dir(args.output_dir)
    with tqdm(total=len(specs) * args.folds, unit="fold", disable=args.no_progress or None) as bar:
        for dataset_spec, settings in plan:
            bar.set_description(dataset_spec.name)
            dataset = load_dataset(dataset_spec.name, data_root)
            try:
                paths = export_dataset(dataset, args.output_dir, settings,
                                       on_fold=lambda _index: bar.update(1))
            except OSError as exc:  # a full disk, a read-only folder, ...
                raise DataError(f"cannot write the folds: {exc.strerror}",
                                file=exc.filename or args.output_dir) from None
            tqdm.write(f"{dataset_spec.name}: {len(paths)} folds in {paths[0].parent}")
    return 0


def _check_output_dir(output_dir: Path) -> None:
    """ConfigError if ``output_dir``, or the nearest part of it that exists, is not a directory."""
    existing = next(p for p in (output_dir, *output_dir.parents) if p.exists())
    if not existing.is_dir():
        raise ConfigError("the output directory is, or lies inside, a file", file=existing,
                          field="--output-dir", expected="a directory (or a path to create one)")


def _settings(args: argparse.Namespace, dataset_spec: DatasetSpec) -> ExportSettings:
    """Validated settings; a holdout without ``--test-size`` uses the dataset's ``n_test / n``."""
    test_size = None
    if args.split_mode == "holdout":
        test_size = args.test_size if args.test_size is not None else dataset_spec.reference_test_size
    return ExportSettings(mode=args.split_mode, n_folds=args.folds, seed=args.seed,
                          test_size=test_size, scaler=args.scaler,
                          clip_test=args.clip_test).validate()


if __name__ == "__main__":
    raise SystemExit(run_main(main))
