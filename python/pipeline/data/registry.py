"""The benchmark's datasets: canonical shapes, files, sources, and loading.

Seventeen real multi-label sets (nine Yahoo web-page sets, six Mulan sets, and bibtex and Corel5k
in the CLML layout), fourteen larger sets in the MLC-toolbox layout (:data:`LARGE_DATASETS`, staged
in ``../shared/data/mlc-large``) plus ``demo``, a small synthetic set generated in code
(:mod:`pipeline.data.synthetic`). :func:`load_dataset` reads a dataset from a data root and checks
its shape against the registry. A data root holds either the registry's files (flat layout: the
layout of ``../shared/data/mlc``, and what ``python -m pipeline.datasets fetch`` writes) or, per
dataset, the paper exporter's CSR layout ``<root>/<name>/train.npz`` and ``test.npz``
(:mod:`pipeline.data.npz`).

Row order: the predefined **training rows first, then the test rows** (Mulan ``-train.arff`` then
``-test.arff``; Yahoo ``train_data`` then ``test_data``). This is the order the reference exporter
joined its inputs in, and the order of the Zhang-style ``.mat`` copies. The full Mulan files
(``<name>.arff``) are not read: they order rows differently, scene has none, and genbase's full
file holds a slightly different multiset of rows than train + test. The CLML files store no split:
their rows are used in file order, and ``n_train``/``n_test`` are Mulan's predefined split sizes,
which only set the default hold-out test fraction. The MLC-toolbox files store no split either:
rows in file order, and the hold-out test fraction is declared here
(:data:`DECLARED_TEST_SIZE`); their ``n_train``/``n_test`` are the nominal split it gives. The NPZ
layout's rows are ``train.npz``'s, then ``test.npz``'s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, DataError
from ..names import validate_name
from .dataset import Dataset
from .folds import sha256_file
from .npz import NPZ_CSR, npz_files, read_npz_pair
from .readers import RawData, read_clml_mat, read_mlc_toolbox_mat, read_mulan, read_yahoo_mat
from .synthetic import DEMO_SHAPE, make_demo_dataset

YAHOO_MAT = "yahoo-mat"
MULAN_ARFF = "mulan-arff"
CLML_MAT = "clml-mat"
MLC_TOOLBOX_MAT = "mlc-toolbox-mat"
SYNTHETIC = "synthetic"

#: Folder names under ``$MLFS_SHARED_DATA`` where each collection's files are staged.
SMALL_COLLECTION = "mlc"
LARGE_COLLECTION = "mlc-large"
#: Hold-out test fraction of the sets that store no split and have no Mulan split sizes (the
#: MLC-toolbox files): the benchmark's own declaration, a 70/30 hold-out.
DECLARED_TEST_SIZE = 0.3

_PMLFS = ("https://raw.githubusercontent.com/peipeilihfut/PMLFS_Partial-Multi-Label-Feature-Selection/"
          "88e0711cfc9fca90abbbc77bf8528617bb1f7645/data/")
_MLASLCS = "https://raw.githubusercontent.com/li9i/mlaslcs/088ae02c572fae6ef7ea9f1bc274aca2f075da38/datasets/"
_CLML = "https://raw.githubusercontent.com/SaltedPerson/CLML/9a275b6785c1aba2909a037c4c155eb31e7f33ad/data/"
_MLC_TOOLBOX = ("https://raw.githubusercontent.com/KKimura360/MLC_toolbox/"
                "e7987792cc26a81028395a0761b65b2bc89364bd/dataset/matfile/")
_ROW_ORDER = {YAHOO_MAT: "predefined train rows, then test rows",
              MULAN_ARFF: "predefined train rows, then test rows",
              CLML_MAT: "file order (the file stores no split)",
              MLC_TOOLBOX_MAT: "file order (the file stores no split)",
              NPZ_CSR: "train.npz rows, then test.npz rows"}


@dataclass(frozen=True)
class SourceFile:
    """One file of a dataset: its local name, where to download it, and its SHA-256."""

    name: str
    url: str
    sha256: str


@dataclass(frozen=True)
class DatasetSpec:
    """Registry entry: canonical shape and files of a dataset.

    Attributes
    ----------
    name : str
    n, d, n_labels : int
        Instances (train + test), features, labels.
    n_train, n_test : int
        The predefined split; ``n_test / n`` is the reference exporter's holdout test fraction.
        For the CLML files, which store no split, Mulan's predefined split sizes.
    cardinality : float
        Mean number of relevant labels per instance (from the data README).
    format : str
        ``"yahoo-mat"``, ``"mulan-arff"``, ``"clml-mat"`` or ``"synthetic"``.
    files : tuple of SourceFile
        Files read by :func:`load_dataset`, in reading order.
    sparse : bool
        Whether the ARFF files use the sparse ``{index value}`` row syntax.
    drop_attributes : tuple of str
        Attributes removed on reading (identifiers).
    domain : str
        What the instances are (the dataset table of a paper shows it).
    collection : str
        The folder under ``$MLFS_SHARED_DATA`` holding its files (the default data root).
    declared_test_size : float or None
        Hold-out test fraction declared for a set with no predefined split sizes; None when
        ``n_test / n`` is the predefined split's.
    """

    name: str
    n: int
    d: int
    n_labels: int
    n_train: int
    n_test: int
    cardinality: float
    format: str
    files: tuple[SourceFile, ...] = ()
    sparse: bool = False
    drop_attributes: tuple[str, ...] = ()
    domain: str = ""
    collection: str = SMALL_COLLECTION
    declared_test_size: float | None = None

    @property
    def reference_test_size(self) -> float:
        """The default hold-out test fraction: the declared one, else the predefined split's ``n_test / n``."""
        return self.declared_test_size if self.declared_test_size is not None else self.n_test / self.n


def _yahoo(name: str, remote: str, d: int, n_labels: int, card: float, sha: str) -> DatasetSpec:
    return DatasetSpec(name, 5000, d, n_labels, 2000, 3000, card, YAHOO_MAT,
                       (SourceFile(f"{name}.mat", _PMLFS + remote, sha),), domain="text (web pages)")


def _mulan(name: str, n_train: int, n_test: int, d: int, n_labels: int, card: float,
           shas: tuple[str, str, str], **extra) -> DatasetSpec:
    names = (f"{name}-train.arff", f"{name}-test.arff", f"{name}.xml")
    files = tuple(SourceFile(f, _MLASLCS + f, sha) for f, sha in zip(names, shas))
    return DatasetSpec(name, n_train + n_test, d, n_labels, n_train, n_test, card, MULAN_ARFF,
                       files, **extra)


def _clml(name: str, remote: str, n_train: int, n_test: int, d: int, n_labels: int, card: float,
          sha: str, domain: str) -> DatasetSpec:
    return DatasetSpec(name, n_train + n_test, d, n_labels, n_train, n_test, card, CLML_MAT,
                       (SourceFile(f"{name}.mat", _CLML + remote, sha),), domain=domain)


def _mlc_toolbox(name: str, n: int, d: int, n_labels: int, card: float, sha: str, domain: str) -> DatasetSpec:
    n_test = round(n * DECLARED_TEST_SIZE)
    return DatasetSpec(name, n, d, n_labels, n - n_test, n_test, card, MLC_TOOLBOX_MAT,
                       (SourceFile(f"{name}.mat", f"{_MLC_TOOLBOX}{name}.mat", sha),), domain=domain,
                       collection=LARGE_COLLECTION, declared_test_size=DECLARED_TEST_SIZE)


_SPECS = (
    _yahoo("Arts", "arts.mat", 462, 26, 1.636,
           "978dfa84613f4bacf801f5292a31c7e8a40696b34a9c4c5b3514830d61f160d5"),
    _yahoo("Business", "Business.mat", 438, 30, 1.588,
           "b91c9069b80ce0e56ec4b018714d252c19c3fe7cfeec70038088647e1c39b00e"),
    _yahoo("Education", "education.mat", 550, 33, 1.461,
           "d5f9ddaa63060f0a5fc6e5699b687aba7c2c277784761957c517ca0f6355718e"),
    _yahoo("Entertainment", "Entertainment.mat", 640, 21, 1.420,
           "624bd824ec67786119fe58302a2983a57865f9dcf21d9ba0b8f40469f647a231"),
    _yahoo("Health", "Health.mat", 612, 32, 1.662,
           "c60fc9fb960bd77a09961d84b29e9fa73a25445452742d5c784ffeae7f64075b"),
    _yahoo("Recreation", "recreation.mat", 606, 22, 1.423,
           "1832f4983d4758184fbcda96804d0b1e4cd5e221f956b2ec0776170b516c2177"),
    _yahoo("Reference", "ref.mat", 793, 33, 1.169,
           "01abf568b544e57f0218209e100a9e4bcd3c0940945b295c110913ef42b445c2"),
    _yahoo("Science", "science.mat", 743, 40, 1.451,
           "05a3d13b24a9024a2cedd43a97b85d955a0ccefd428b78f718babe80feb86121"),
    _yahoo("Social", "social.mat", 1047, 39, 1.283,
           "374d81bd3de6b3e95f4ce2ded61dac6c0298dce866690b73ebb871b5beb2b012"),
    _mulan("emotions", 391, 202, 72, 6, 1.869,
           ("bbe704106c79bb8fb99c1d1d2e9bde081d6a2daeb01f100862f11fd91a3c1f98",
            "f13d4b746b7b5c8eb484bd751d6ac463d4560dff998a93516a5c1fe35daf6c8f",
            "b20042828c32a6ca0a871c10a298c1b7b17fd2c453e944c1673d9e9b9bda1e68"), domain="music"),
    _mulan("enron", 1123, 579, 1001, 53, 3.378,
           ("2988cefc1cdf7a8004a20ef84615cc8fa1b5d7434c16687283b41454e2d9d194",
            "2f3aad54a8f54caaab4ab01246fe9dd385ba944a2633028f52747b57eac5474e",
            "fe1374ff3352b22b1268af09ae6b1d6d1f68efca6f21a3a73fe1f1cde60aa448"), sparse=True,
           domain="text (e-mail)"),
    _mulan("genbase", 463, 199, 1185, 27, 1.252,
           ("37670db2c2b308a1c163d05501819526f1d65d659638ddfb76812d4ce384b5c6",
            "0e988520bedab39aa3f23f08f646c769bcdb6f9119ee298fd92b37127b226a36",
            "198e8a1d7070e9603119e02e626cedc589db7577339b307b06f5192047b69eb9"),
           drop_attributes=("protein",), domain="biology (proteins)"),
    _mulan("medical", 333, 645, 1449, 45, 1.245,
           ("c764f45756ab1c553b8b4eaaf5605a5610a43bbbcf37492d0f1a12bf9c9e2244",
            "6be472e75a6c0b0916187f343a398011b1b26f8f0ddc682c575312ad3532f6c4",
            "c8d92eaab5adc877a8dfcd7132ce8c7498c5d518abe82e5778f993ea7e63bed9"), sparse=True,
           domain="text (clinical)"),
    _mulan("scene", 1211, 1196, 294, 6, 1.074,
           ("b0557a75da7e4b93c83ab686adc6aae9c674cba7466f2cddd7b9594153b99a06",
            "77d0f5ca0a48c1d787574f497a1619c405cf58c41436647960515e989faca418",
            "c9fad799756d99421a12d512848a1ffe640cceedb689a10c3e2241b7daaf5e80"), domain="images"),
    _mulan("yeast", 1500, 917, 103, 14, 4.237,
           ("e759dc991ff54694a4ff9c4314f3be0d6fd2b1994a4b563f57e416394c6aebbd",
            "4aaac102bff9669a765bf0b378602e5cc8c3b181048282e2f003117b496d552a",
            "45fc49ccfd0e1a45788924f40577ac4c5b1b2cb12748b0f03339ed8cdeb9bf1d"), domain="biology (genes)"),
    _clml("bibtex", "bibtex.mat", 4880, 2515, 1836, 159, 2.402,
          "56a905781b5b38c8d6e7803e91ff940f5b558e1e0289872f54d268e948114b75", "text (tags)"),
    _clml("Corel5k", "core15k.mat", 4500, 500, 499, 374, 3.522,
          "3312f551c4dd53a1869814e36262dfeed8e27671aca0f22d86458f0428639ed4", "images"),
)

#: The larger sets (``../shared/data/mlc-large/README.md``: shapes, cardinalities, SHA-256).
_LARGE_SPECS = (
    _mlc_toolbox("20NG", 19300, 1006, 20, 1.029,
                 "c4601854d61d3275aa97f99e8154329b286d6a3bc2f9b031b0e1c44e97e7264d", "text (news)"),
    _mlc_toolbox("CAL500", 502, 68, 174, 26.044,
                 "82ab708be3d945a7995849f184b24d73808c3188081574ebf7f64b0d40e23894", "music"),
    _mlc_toolbox("birds", 645, 260, 19, 1.014,
                 "67f64847ed41fe7712ac1d98b3dacea9b0c096dcd957051ed159c6c4039cb5ca", "audio (birds)"),
    _mlc_toolbox("corel16k1", 13766, 500, 153, 2.859,
                 "2412babc3b217db8e00aaaa15942c4afdfb3f4e1a3da447d5cdaa893f6f32eb7", "images"),
    _mlc_toolbox("corel16k2", 13761, 500, 164, 2.882,
                 "eb7bfd435b5091eabb5f0f0a13d4ebff777f2995163842f3974ecd99c9d0e882", "images"),
    _mlc_toolbox("delicious", 16105, 500, 983, 19.020,
                 "f2853b2b220aea96bce7830d14b47e000c8ac5b6c5261d49ee89ae1ad67f387a", "text (bookmarks)"),
    _mlc_toolbox("flags", 194, 19, 7, 3.392,
                 "8d3fb965cb5be5743586eceb1196f8dc5a0f732fab6d599692acef96997f6d24", "images (flags)"),
    _mlc_toolbox("languagelog", 1460, 1004, 75, 15.936,
                 "8e59d37c26017e0ac44f07928bbf03a228051e1c3e2e2d2652985269d376563f", "text (blog)"),
    _mlc_toolbox("rcv1s1", 6000, 944, 101, 2.880,
                 "b2ee886a52fc33753a246afd5025e5e1bc91be8bc95533798e9abf87974f8495", "text (news)"),
    _mlc_toolbox("rcv1s2", 6000, 944, 101, 2.634,
                 "dcf47e73085ddc9ecd845c7574fe7762559db66dcdd6dd47a2864424ddda28b6", "text (news)"),
    _mlc_toolbox("rcv1s3", 6000, 944, 101, 2.614,
                 "09acb20453492a62b34fdd41190551a00caf21851fb4d63aa1f81d58a301640a", "text (news)"),
    _mlc_toolbox("rcv1s4", 6000, 944, 101, 2.267,
                 "983864d627187b91177958308aed1c5f27fa89aaa77c1389d1987b8418183053", "text (news)"),
    _mlc_toolbox("rcv1s5", 6000, 944, 101, 2.625,
                 "d7353bc859b4e604f3d0645e9a73b6417f2becc38c35eaa483348e08001e9312", "text (news)"),
    _mlc_toolbox("tmc2007-500", 28596, 500, 22, 2.220,
                 "ec5f8b08d794b5bcfe18ef629f9647ae8aa9d2a6eae4efce12de5c7a404d42bd", "text (aviation reports)"),
)

#: The demo set's shape: the generator's defaults (:func:`pipeline.data.synthetic.make_demo_dataset`),
#: 320 / 80 being the nominal split of its default 0.2 hold-out fraction.
DEMO_SPEC = DatasetSpec("demo", *DEMO_SHAPE, 320, 80, float("nan"), SYNTHETIC, domain="synthetic")

REGISTRY: dict[str, DatasetSpec] = {dataset_spec.name: dataset_spec
                                    for dataset_spec in (*_SPECS, *_LARGE_SPECS, DEMO_SPEC)}
#: Names of the 17 real datasets of the paper, in registry order (Yahoo, then Mulan, then CLML).
REAL_DATASETS: tuple[str, ...] = tuple(dataset_spec.name for dataset_spec in _SPECS)
#: Names of the 14 larger sets (MLC-toolbox layout), in registry order.
LARGE_DATASETS: tuple[str, ...] = tuple(dataset_spec.name for dataset_spec in _LARGE_SPECS)


def default_data_root(name: str | None = None) -> Path:
    """The folder of dataset ``name``'s collection (default: the 17's) under ``$MLFS_SHARED_DATA``
    if that variable is set, else under ``../shared/data`` (from the cwd): ``.../mlc`` or
    ``.../mlc-large``."""
    collection = get_spec(name).collection if name is not None else SMALL_COLLECTION
    return Path(os.environ.get("MLFS_SHARED_DATA", "../shared/data")) / collection


def get_spec(name: str) -> DatasetSpec:
    """Registry entry for ``name``; ConfigError listing the known names if it is unknown."""
    validate_name(name, "dataset")
    if name not in REGISTRY:
        raise ConfigError(f"unknown dataset {name!r}", field="dataset",
                          expected=f"one of {', '.join(REGISTRY)}")
    return REGISTRY[name]


def load_dataset(name: str, data_root: str | Path | None = None) -> Dataset:
    """Load a registered dataset and check its shape against the registry.

    Parameters
    ----------
    name : str
        A registry name (``list(REGISTRY)``); ``"demo"`` is generated and needs no files.
    data_root : path, optional
        Folder holding the dataset's files under their registry names (flat layout), or its
        ``<name>/train.npz`` and ``test.npz``; default :func:`default_data_root` of ``name``.

    Returns
    -------
    Dataset
        X (n, d) float64 and Y (n, L) uint8; train rows then test rows (CLML and MLC-toolbox:
        file order).

    Raises
    ------
    ConfigError
        Unknown dataset name.
    DataError
        A file is missing or malformed, or the shape differs from the registry.
    """
    dataset_spec = get_spec(name)
    if dataset_spec.format == SYNTHETIC:
        return make_demo_dataset()[0]
    paths = require_files(name, data_root)
    layout = NPZ_CSR if _in_npz_layout(name, _root(name, data_root)) else dataset_spec.format
    raw = read_npz_pair(*paths) if layout == NPZ_CSR else _read_raw(dataset_spec, paths)
    _check_shape(dataset_spec, raw, paths[0])
    provenance = {"format": layout,
                  "row_order": _ROW_ORDER[layout],
                  "source_files": [{"name": p.name, "sha256": sha256_file(p)} for p in paths]}
    return Dataset(name=name, X=raw.X, Y=raw.Y, label_names=raw.label_names,
                   provenance=provenance)


def require_files(name: str, data_root: str | Path | None = None) -> list[Path]:
    """Paths of dataset ``name``'s files in ``data_root`` (default :func:`default_data_root` of
    ``name``): its NPZ pair ``<name>/train.npz, test.npz`` if the root has a folder ``<name>``,
    else its registry files (flat layout); DataError for the first missing one.

    A synthetic dataset has no files and gives an empty list.
    """
    root = _root(name, data_root)
    if _in_npz_layout(name, root):
        paths, remedy = npz_files(name, root), f"the folder {root / name} selects the NPZ layout: put both there"
    else:
        paths = [root / f.name for f in get_spec(name).files]
        remedy = f"download it with `python -m pipeline.datasets fetch {name} --dest {root}`"
    for path in paths:
        if not path.is_file():
            raise DataError(f"file of dataset {name!r} not found ({remedy})", file=path)
    return paths


def _root(name: str, data_root: str | Path | None) -> Path:
    return Path(data_root) if data_root is not None else default_data_root(name)


def _in_npz_layout(name: str, root: Path) -> bool:
    """Whether ``root`` holds dataset ``name`` in the NPZ layout: a folder named after it (the
    flat layout holds files only)."""
    return get_spec(name).format != SYNTHETIC and (root / name).is_dir()


def _read_raw(dataset_spec: DatasetSpec, paths: list[Path]) -> RawData:
    if dataset_spec.format == YAHOO_MAT:
        return read_yahoo_mat(paths[0])
    if dataset_spec.format == CLML_MAT:
        return read_clml_mat(paths[0])
    if dataset_spec.format == MLC_TOOLBOX_MAT:
        return read_mlc_toolbox_mat(paths[0])
    return read_mulan(paths[:2], paths[2], drop_attributes=dataset_spec.drop_attributes)


def _check_shape(dataset_spec: DatasetSpec, raw: RawData, path: Path) -> None:
    expected = (dataset_spec.n, dataset_spec.d, dataset_spec.n_labels)
    found = (raw.X.shape[0], raw.X.shape[1], raw.Y.shape[1])
    if found != expected:
        raise DataError(f"dataset {dataset_spec.name!r} does not have its registered shape", file=path,
                        field="(n, d, L)", expected=expected, found=found)
