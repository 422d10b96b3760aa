"""The analyses of Python sources that code fingerprints keep between processes (the cache folder,
``$MLFS_CACHE_DIR``): a kept one gives the fingerprint parsing gives, an edit is seen through it,
and a damaged entry or a folder that cannot be written costs time, never a wrong fingerprint."""

from __future__ import annotations

import json

import pytest

from pipeline.limits import MAX_CACHE_ENTRY_BYTES
from pipeline.runner import fingerprint

MODULE = "experiment/run.py"  # a closure of about a hundred modules
SMALL = "evaluation/mlknn.py"  # of eight


def fresh_fingerprint(module: str = MODULE) -> str:
    fingerprint._analysed.cache_clear()  # the in-process memo would answer without the cache
    return fingerprint.python_fingerprint(module)["sha256"]


def entries(cache):
    return sorted((cache / "python-analysis").rglob("*.json"))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFS_CACHE_DIR", str(tmp_path / "cache"))
    yield tmp_path / "cache"
    fingerprint._analysed.cache_clear()


def test_a_kept_analysis_gives_the_fingerprint_parsing_gives(cache, monkeypatch, tmp_path):
    parsed = fresh_fingerprint()
    kept = entries(cache)
    assert len(kept) > 50 and all(json.loads(p.read_text())["sha256"] for p in kept)

    def no_parsing(*_args, **_kwargs):
        raise AssertionError("parsed although the analysis is kept")

    with monkeypatch.context() as patched:
        patched.setattr(fingerprint.ast, "parse", no_parsing)
        assert fresh_fingerprint() == parsed
    monkeypatch.setenv("MLFS_CACHE_DIR", str(tmp_path / "another"))
    assert fresh_fingerprint() == parsed  # cold again


def test_an_edit_is_seen_through_the_cache_and_a_comment_is_not(cache):
    source = b"from .x import y\n\ndef f():\n    return 1\n"
    digest, imports = fingerprint._python_analysis(source)
    assert fingerprint._python_analysis(source) == (digest, imports) and imports == [(1, "x", ["y"])]
    assert fingerprint._python_analysis(source.replace(b"1", b"2"))[0] != digest
    assert fingerprint._python_analysis(source + b"# a comment\n")[0] == digest
    assert len(entries(cache)) == 3  # one per source, the commented one included


@pytest.mark.parametrize("damage", [
    b"", b"not json", b"[]", b'{"sha256": "abc", "relative_imports": []}',
    b'{"sha256": "' + b"0" * 64 + b'"}',
    b'{"sha256": "' + b"0" * 64 + b'", "relative_imports": [[0, "x", ["y"]]]}',
    b'{"sha256": "' + b"0" * 64 + b'", "relative_imports": [[1, 5, ["y"]]]}',
    b'{"sha256": "' + b"0" * 64 + b'", "relative_imports": [[1, "x", "y"]]}',
    b'{"sha256": "' + b"0" * 64 + b'", "relative_imports": [[true, "x", ["y"]]]}',
    b"[" * 100_000, b'{"sha256": "' + b"0" * 64 + b'", "relative_imports": []}' + b" " * (MAX_CACHE_ENTRY_BYTES + 1),
], ids=["empty", "not-json", "a-list", "short-digest", "no-imports", "level-0", "module-a-number", "names-a-string",
        "level-a-bool", "deep", "over-the-limit"])
def test_a_damaged_entry_is_analysed_again_and_rewritten(cache, damage):
    parsed = fresh_fingerprint(SMALL)
    for entry in entries(cache):
        entry.write_bytes(damage)
    assert fresh_fingerprint(SMALL) == parsed
    assert all(json.loads(p.read_text())["relative_imports"] is not None for p in entries(cache))


def test_a_cache_folder_that_cannot_be_written_costs_only_time(cache, tmp_path, monkeypatch):
    parsed = fresh_fingerprint(SMALL)
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv("MLFS_CACHE_DIR", str(blocked / "cache"))
    assert fresh_fingerprint(SMALL) == parsed
    assert blocked.read_text() == ""
