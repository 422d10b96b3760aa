"""Dataset sources are read within bounds (issue 32, item 4): a download from a mirror serving an
endless body stops at the size limit and leaves nothing behind (a real local HTTP server), an ARFF
value ``inf``, ``1e999`` or ``nan`` is one line naming the file, the attribute and the data row,
a fold whose X is stored as compressed uint8 zeros is refused from its header before anything is
inflated, and a fold or source file that is a FIFO or a link to /dev/zero is refused without
blocking."""

from __future__ import annotations

import http.server
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
import scipy.io

from hostile_mat import peak_bytes
from pipeline import datasets as datasets_cli
from pipeline import export_splits as export_cli
from pipeline.cli import run_main
from pipeline.data.download import fetch_dataset
from pipeline.data.folds import load_fold, sha256_file
from pipeline.data.readers import read_mulan
from pipeline.data.registry import get_spec
from pipeline.errors import DataError
from pipeline.limits import MAX_DATASET_FILE_BYTES_VARIABLE

LIMIT = 5_000_000  # the download limit of these tests (the default is 64 MiB)



class _Mirror(http.server.BaseHTTPRequestHandler):
    """Serves the files of ``folder`` by name, and an endless body of zeros for any other name
    (as a mirror serving /dev/zero), counting what it sent."""

    folder: Path
    sent = 0

    def do_GET(self):  # noqa: N802 (the http.server name)
        path = self.folder / self.path.rsplit("/", 1)[-1]
        self.send_response(200)
        self.end_headers()
        try:
            if path.is_file():
                self.wfile.write(path.read_bytes())
                return
            block = bytes(1 << 16)
            while True:
                self.wfile.write(block)
                type(self).sent += len(block)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
            pass

    def log_message(self, *args):
        pass


@pytest.fixture()
def http_mirror(mlc_dir, tmp_path):
    """(base URL, folder): a real HTTP server on localhost serving the folder, which holds
    emotions' two ARFF files but not its XML (served as an endless body)."""
    folder = tmp_path / "served"
    folder.mkdir()
    for name in ("emotions-train.arff", "emotions-test.arff"):
        shutil.copy(mlc_dir / name, folder)
    handler = type("Mirror", (_Mirror,), {"folder": folder, "sent": 0})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder, handler
    server.shutdown()
    server.server_close()


def test_an_endless_download_stops_at_the_limit_and_leaves_no_partial_file(http_mirror, tmp_path, monkeypatch):
    """Before: the whole body was gathered in memory (1.9 GB, then MemoryError)."""
    url, _, handler = http_mirror
    monkeypatch.setenv(MAX_DATASET_FILE_BYTES_VARIABLE, str(LIMIT))
    dest = tmp_path / "dest"
    peak, raised = peak_bytes(fetch_dataset, "emotions", dest, mirror=url)
    assert isinstance(raised, DataError)
    assert str(raised) == (f"{url}/emotions.xml: download larger than the dataset file size limit: stopped "
                           f"(expected at most {LIMIT} bytes (set {MAX_DATASET_FILE_BYTES_VARIABLE} to raise the "
                           f"limit); found more than {LIMIT} bytes)")
    assert peak < 4_000_000  # about one 1 MiB block at a time, not the 5 MB received
    # the two ARFF files were verified and placed; of the XML neither a file nor a temporary is left
    assert sorted(p.name for p in dest.iterdir()) == ["emotions-test.arff", "emotions-train.arff"]
    for source in get_spec("emotions").files[:2]:
        assert sha256_file(dest / source.name) == source.sha256


def test_the_fetch_command_refuses_an_endless_download_with_one_line(http_mirror, tmp_path, monkeypatch, capsys):
    url, _, _ = http_mirror
    monkeypatch.setenv(MAX_DATASET_FILE_BYTES_VARIABLE, str(LIMIT))
    code = run_main(datasets_cli.main, ["fetch", "emotions", "--dest", str(tmp_path / "d"), "--mirror", url,
                                        "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "emotions.xml: download larger than" in err, err
    assert not (tmp_path / "d" / "emotions.xml").exists()
    assert [p.name for p in (tmp_path / "d").iterdir() if p.name.startswith(".")] == []


def test_a_download_of_exactly_the_limit_passes(http_mirror, mlc_dir, tmp_path, monkeypatch):
    url, folder, _ = http_mirror
    shutil.copy(mlc_dir / "emotions.xml", folder)
    largest = max((folder / source.name).stat().st_size for source in get_spec("emotions").files)
    monkeypatch.setenv(MAX_DATASET_FILE_BYTES_VARIABLE, str(largest))
    paths = fetch_dataset("emotions", tmp_path / "ok", mirror=url)
    assert [sha256_file(p) for p in paths] == [source.sha256 for source in get_spec("emotions").files]
    monkeypatch.setenv(MAX_DATASET_FILE_BYTES_VARIABLE, str(largest - 1))
    with pytest.raises(DataError, match="download larger than the dataset file size limit"):
        fetch_dataset("emotions", tmp_path / "short", mirror=url)


def _emotions_with(tmp_path: Path, mlc_dir: Path, value: str) -> Path:
    """A copy of emotions' files whose training ARFF has ``value`` as the 5th feature of data row 2."""
    root = tmp_path / "root"
    root.mkdir()
    for name in ("emotions-train.arff", "emotions-test.arff", "emotions.xml"):
        shutil.copy(mlc_dir / name, root)
    path = root / "emotions-train.arff"
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip().lower() == "@data") + 3
    cells = lines[at].split(",")
    cells[4] = value
    lines[at] = ",".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    return root


@pytest.mark.parametrize("value, shown", [("inf", "inf"), ("1e999", "inf"), ("-1e999", "-inf"), ("nan", "nan")])
def test_a_non_finite_arff_value_names_the_file_attribute_and_row(tmp_path, mlc_dir, value, shown):
    root = _emotions_with(tmp_path, mlc_dir, value)
    with pytest.raises(DataError) as info:
        read_mulan([root / "emotions-train.arff", root / "emotions-test.arff"], root / "emotions.xml")
    assert str(info.value) == (f"{root / 'emotions-train.arff'}, field 'Mean_Acc1298_Mean_Mem40_MFCC_1': non-finite "
                               "feature value (inf, nan, or beyond the float range as 1e999) (expected finite "
                               f"numbers; found {shown} in data row 2, 1 in all)")


def test_the_export_command_refuses_1e999_with_one_line(tmp_path, mlc_dir, capsys):
    """Before: a traceback from scikit-learn's scaler (ValueError: Input X contains infinity)."""
    root = _emotions_with(tmp_path, mlc_dir, "1e999")
    code = run_main(export_cli.main, ["--datasets", "emotions", "--data-root", str(root), "--output-dir",
                                      str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "emotions-train.arff, field 'Mean_Acc1298_Mean_Mem40_MFCC_1': non-finite feature value" in err
    assert not (tmp_path / "out").exists()


def test_a_source_file_or_fold_that_is_a_fifo_or_a_device_is_refused(tmp_path, mlc_dir):
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(mlc_dir / "emotions-test.arff", root)
    os.mkfifo(root / "emotions-train.arff")
    (root / "emotions.xml").symlink_to("/dev/zero")
    with pytest.raises(DataError, match=r"emotions\.xml: Mulan label XML is not a regular file .*a character device"):
        read_mulan([root / "emotions-train.arff"], root / "emotions.xml")
    shutil.copy(mlc_dir / "emotions.xml", tmp_path)
    with pytest.raises(DataError, match=r"emotions-train\.arff: ARFF file is not a regular file .*a FIFO"):
        read_mulan([root / "emotions-train.arff"], tmp_path / "emotions.xml")
    folds = tmp_path / "folds" / "demo"
    folds.mkdir(parents=True)
    os.mkfifo(folds / "fold0.mat")
    (folds / "fold1.mat").symlink_to("/dev/zero")
    with pytest.raises(DataError, match=r"fold0\.mat: fold file is not a regular file .*a FIFO"):
        load_fold(folds / "fold0.mat")
    with pytest.raises(DataError, match=r"fold1\.mat: fold file is not a regular file .*a character device"):
        load_fold(folds / "fold1.mat")
    with pytest.raises(DataError, match=r"fold0\.mat: file is not a regular file"):
        sha256_file(folds / "fold0.mat")


def test_a_fold_storing_x_as_compressed_uint8_zeros_is_refused_before_inflating(tmp_path):
    """A real file written by SciPy (compressed, X_train of class uint8): 4 MB of zeros in a few KB,
    32 MB once converted to float64. Refused from its header under a lower limit, with almost
    nothing allocated; accepted, and all zeros, under a higher one."""
    rng = np.random.default_rng(0)
    path = tmp_path / "fold0.mat"
    scipy.io.savemat(path, {"X_train": np.zeros((4000, 1000), np.uint8), "Y_train": np.zeros((4000, 2), np.uint8),
                            "X_test": rng.random((5, 1000)), "Y_test": np.ones((5, 2))}, do_compression=True)
    assert path.stat().st_size < 100_000
    peak, raised = peak_bytes(load_fold, path, max_bytes=10_000_000)
    assert isinstance(raised, DataError)
    assert "field 'X_train': arrays larger than the size limit (expected at most 10000000 bytes" in str(raised)
    assert "found 32104080 bytes declared (X_train 4000x1000, Y_train 4000x2" in str(raised)
    assert peak < 500_000  # nothing of the 4 MB was inflated
    fold = load_fold(path, max_bytes=40_000_000)
    assert fold.X_train.shape == (4000, 1000) and not fold.X_train.any()
