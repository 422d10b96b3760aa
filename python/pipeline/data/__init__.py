"""Data layer: dataset readers and registry, downloader, synthetic demo data, fold export and loading.

Modules (import them directly; this package imports nothing so that ``pipeline.data.folds`` stays
cheap to import):

* :mod:`~pipeline.data.folds` -- ``Fold``, ``load_fold``, ``save_fold``, ``fold_path``,
  ``list_fold_indices``, ``discover_datasets``, ``sha256_file``, ``max_feature_magnitude``.
* :mod:`~pipeline.data.registry` -- ``REGISTRY``, ``REAL_DATASETS``, ``DatasetSpec``,
  ``LARGE_DATASETS``, ``get_spec``, ``load_dataset``, ``default_data_root``.
* :mod:`~pipeline.data.dataset` -- ``Dataset``, a whole dataset in memory.
* :mod:`~pipeline.data.readers` -- Mulan ARFF + XML, Yahoo, CLML and MLC-toolbox ``.mat`` readers.
* :mod:`~pipeline.data.npz` -- the paper exporter's CSR layout (``<root>/<name>/train.npz``, ``test.npz``).
* :mod:`~pipeline.data.matheader` -- MAT v5 variable headers read without loading the data, and
  the size limit (``MLFS_MAX_FOLD_BYTES``).
* :mod:`~pipeline.data.synthetic` -- ``make_demo_dataset`` (planted relevant features).
* :mod:`~pipeline.data.splits` -- seeded iterative stratification (kfold, repeated holdout).
* :mod:`~pipeline.data.scaling` -- train-only scalers (minmax, zscore, none).
* :mod:`~pipeline.data.export` -- ``ExportSettings``, ``export_dataset`` (fold files + sidecars).
* :mod:`~pipeline.data.matfile` -- deterministic MAT v5 writing.
* :mod:`~pipeline.data.download` -- ``fetch_dataset`` with SHA-256 verification.

See docs/data.md.
"""
