"""Only regular files are read, and each within its size limit (issue 32, item 4): the one bounded
reader (pipeline.fileio) refuses a FIFO, a link to /dev/zero, a folder and an oversized file
without blocking and before reading, and every reader of a user's files goes through it: plug-in
folders (both front doors), code fingerprints (both front doors), suites and parameter files,
score tables, and the files a user hands to the protocols (HAR, steering, motion, forecasting).
Real FIFOs (os.mkfifo), real links to /dev/zero, real processes."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import tracemalloc
from pathlib import Path
from typing import Iterator

import pytest

from pipeline.cli import run_main
from pipeline.documents import read_document
from pipeline.errors import ConfigError, DataError
from pipeline.fileio import read_regular_file
from pipeline.kgrid import main as kgrid_main
from pipeline.limits import MAX_CODE_FILE_BYTES
from pipeline.methods.base import MethodSpec
from pipeline.runner.fingerprint import method_fingerprint
from pipeline.stats.__main__ import read_score_csv

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "paper_matlab_minmax"
#: A refusal takes milliseconds; a reader blocked on a FIFO never returns.
BLOCKED_AFTER_SECONDS = 30

HELPED_M = """function [ranking, info] = HELPED(X_train, Y_train, params, init)
  if nargin == 0
    ranking = struct();
    info = [];
    return
  end
  scores = helper(X_train);
  ranking = mlfs_rank_scores(scores, 'HELPED');
  info = struct();
end
"""


def _finished(function, *args, **kwargs):
    """(what ``function`` raised, or None), failing the test if it is still running after
    BLOCKED_AFTER_SECONDS (a daemon thread: a reader blocked on a FIFO cannot hold the session)."""
    outcome: list = []

    def call():
        try:
            function(*args, **kwargs)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 (handed to the test, which checks it)
            outcome.append(exc)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(BLOCKED_AFTER_SECONDS)
    assert not thread.is_alive(), f"{function.__name__} blocked"
    return outcome[0]


@pytest.fixture()
def special_files(tmp_path) -> Iterator[dict[str, Path]]:
    """A FIFO with no writer, a link to /dev/zero, a folder, a bound Unix socket and a 1 GB sparse
    regular file."""
    fifo, zero, folder, huge = tmp_path / "fifo", tmp_path / "zero", tmp_path / "folder", tmp_path / "huge"
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(tmp_path / "socket"))
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    folder.mkdir()
    with open(huge, "wb") as handle:
        handle.truncate(1 << 30)
    yield {"a FIFO (named pipe)": fifo, "a character device": zero, "a folder": folder, "huge": huge,
           "a socket": tmp_path / "socket"}
    listening.close()


def test_the_reader_refuses_what_is_not_a_regular_file_without_blocking_and_names_it(special_files):
    for kind in ("a FIFO (named pipe)", "a character device", "a folder", "a socket"):
        raised = _finished(read_regular_file, special_files[kind], "test file", 1 << 20, DataError)
        assert isinstance(raised, DataError), kind
        assert str(raised) == (f"{special_files[kind]}: test file is not a regular file "
                               f"(expected a regular file; found {kind})")
    raised = _finished(read_regular_file, special_files["huge"].with_name("absent"), "test file", 10, ConfigError)
    assert isinstance(raised, ConfigError) and str(raised).endswith("absent: test file not found")


def test_the_reader_refuses_an_oversized_file_from_its_size_before_reading_it(special_files, tmp_path):
    tracemalloc.start()
    raised = _finished(read_regular_file, special_files["huge"], "test file", 1 << 20, ConfigError)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert isinstance(raised, ConfigError)
    assert "test file too large (expected at most 1048576 bytes; found 1073741824 bytes)" in str(raised)
    assert peak < 200_000  # nothing of the 1 GB was read
    exact = tmp_path / "exact"
    exact.write_bytes(b"x" * 1000)
    assert read_regular_file(exact, "test file", 1000, ConfigError) == b"x" * 1000
    assert "too large" in str(_finished(read_regular_file, exact, "test file", 999, ConfigError))


def test_suites_and_parameter_files_that_are_fifos_or_devices_are_refused(special_files):
    for kind in ("a FIFO (named pipe)", "a character device"):
        raised = _finished(read_document, special_files[kind], "parameter file")
        assert isinstance(raised, ConfigError)
        assert f"parameter file is not a regular file (expected a regular file; found {kind})" in str(raised)


def test_a_score_table_that_is_a_fifo_or_a_device_is_refused(special_files):
    for kind in ("a FIFO (named pipe)", "a character device"):
        raised = _finished(read_score_csv, special_files[kind])
        assert isinstance(raised, DataError)
        assert f"score file is not a regular file (expected a regular file; found {kind})" in str(raised)


def _kgrid(tmp_path: Path, *args: str) -> int:
    return run_main(kgrid_main, ["--engine", "python", "--datasets", "demo", "--folds", "1", "--data-dir", str(DEMO),
                                 "--results-dir", str(tmp_path / "results"), "--k-max", "30", "--no-progress", *args])


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "oversized"])
def test_a_plugin_folder_with_a_fifo_or_a_device_or_a_huge_file_is_one_line_exit_2_before_any_work(
        tmp_path, capsys, kind):
    """Before: a FIFO helper.m blocked the run forever; a helper.m linked to /dev/zero took 1.5 GB
    and ended in MemoryError."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "HELPED.m").write_text(HELPED_M)
    helper = plugins / "helper.m"
    if kind == "fifo":
        os.mkfifo(helper)
    elif kind == "dev-zero":
        helper.symlink_to("/dev/zero")
    else:
        with open(helper, "wb") as handle:
            handle.truncate(MAX_CODE_FILE_BYTES + 1)
    outcome: list[int] = []
    assert _finished(lambda: outcome.append(_kgrid(tmp_path, "--methods", "VARIANCE", "--plugins", str(plugins)))) is None
    err = capsys.readouterr().err.strip().splitlines()
    expected = {"fifo": "is not a regular file (expected a regular file; found a FIFO (named pipe))",
                "dev-zero": "is not a regular file (expected a regular file; found a character device)",
                "oversized": f"plug-in file too large (expected at most {MAX_CODE_FILE_BYTES} bytes"}[kind]
    assert outcome == [2] and len(err) == 1 and f"{helper}: plug-in file" in err[0] and expected in err[0], err
    assert not (tmp_path / "results").exists()


def test_the_fingerprint_refuses_a_code_file_that_is_a_fifo(tmp_path):
    (tmp_path / "HELPED.m").write_text(HELPED_M)
    os.mkfifo(tmp_path / "helper.m")
    spec = MethodSpec(name="HELPED", matlab_function="HELPED", plugin_dir=str(tmp_path))
    raised = _finished(method_fingerprint, spec, "octave")
    assert isinstance(raised, ConfigError)
    assert str(raised) == (f"{tmp_path / 'helper.m'}: code file is not a regular file "
                           "(expected a regular file; found a FIFO (named pipe))")


@pytest.mark.octave
def test_run_suite_refuses_a_plugin_folder_with_a_fifo_and_the_octave_readers_too(tmp_path):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "HELPED.m").write_text(HELPED_M)
    os.mkfifo(plugins / "helper.m")
    (tmp_path / "fold0.mat").symlink_to("/dev/zero")

    def attempt(call: str) -> str:
        return f"try, {call}; disp('ran'); catch err, printf('%s | %s\\n', err.identifier, err.message); end; "

    script = (f"addpath(genpath('{REPO / 'matlab'}')); "
              + attempt(f"mlfs_code_fingerprint('HELPED', {{'{plugins}'}})")
              + attempt(f"run_suite('{tmp_path / 'results'}', '{DEMO}', {{'demo'}}, {{'HELPED'}}, 'folds', 1, "
                        f"'k_max', 30, 'plugins', {{'{plugins}'}}, 'verbose', false)")
              + attempt(f"mlfs_load_fold('{tmp_path / 'fold0.mat'}')"))
    done = subprocess.run(["octave-cli", "--no-gui", "--quiet", "--eval", script], capture_output=True, text=True,
                          timeout=120)  # before: blocked until the timeout
    fifo = "(expected a regular file; found a FIFO (named pipe))"
    assert done.stdout.splitlines() == [
        f"mlfs:file:notRegular | {plugins / 'helper.m'}: code file is not a regular file {fifo}",
        f"mlfs:file:notRegular | {plugins / 'helper.m'}: plug-in file is not a regular file {fifo}",
        f"mlfs:file:notRegular | {tmp_path / 'fold0.mat'}: fold file is not a regular file "
        "(expected a regular file; found a character device)"], done.stdout + done.stderr
    assert not (tmp_path / "results").exists()


def _protocol_reader(name: str):
    """The protocol reader ``name`` as a function of one path, and the suffix that path needs
    (imported here: the fast lane collects this file without the protocols' libraries)."""
    from pipeline.protocols.forecast.data import read_long_csv
    from pipeline.protocols.har.files import read_json, read_npy, read_npz
    from pipeline.protocols.load_limits import LoadLimits
    from pipeline.protocols.motion.loading import load_motion_results
    from pipeline.protocols.motion.sources import audio_from_folder
    from pipeline.protocols.steering.files import read_json_file, read_table

    return {"har .npy": (read_npy, ".npy"), "har .npz": (read_npz, ".npz"), "har JSON": (read_json, ".json"),
            "steering table": (lambda path: read_table(path, "a table"), ".csv"),
            "steering JSON": (read_json_file, ".json"),
            "motion results": (load_motion_results, ".npy"),
            "motion WAV": (lambda path: audio_from_folder(path.parent, 1, LoadLimits()), ".wav"),
            "forecast CSV": (lambda path: read_long_csv(path, "toy"), ".csv")}[name]


@pytest.mark.protocols
@pytest.mark.parametrize("reader", ["har .npy", "har .npz", "har JSON", "steering table", "steering JSON",
                                    "motion results", "motion WAV", "forecast CSV"])
def test_the_protocols_readers_refuse_a_fifo_or_a_device_without_blocking_and_name_it(tmp_path, reader):
    read, suffix = _protocol_reader(reader)
    for kind, make in (("a FIFO (named pipe)", os.mkfifo), ("a character device", lambda p: p.symlink_to("/dev/zero"))):
        folder = tmp_path / kind.split()[1]
        folder.mkdir()
        make(path := folder / f"input{suffix}")
        raised = _finished(read, path)
        assert isinstance(raised, DataError), (kind, raised)
        assert str(raised).startswith(f"{path}: "), str(raised)
        assert f"is not a regular file (expected a regular file; found {kind})" in str(raised), str(raised)
