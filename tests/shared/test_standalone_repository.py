"""The repository stands alone: no tracked file cites a document outside it, and the paths the
documentation names exist.

The first version was written from specifications that are not part of the repository; a reader of
a clone has only what is tracked here, so every fact must live in the repository's own docs.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEXT_SUFFIXES = {".py", ".m", ".md", ".yaml", ".yml", ".j2", ".toml", ".txt", ".cfg", ".json", ".sh", ""}

#: What cites an outside specification: its folder, its file names, its sections ("spec §3.3",
#: "§3.3"), or the document itself ("the spec", "the spec's", "(spec").
OUTSIDE_CITATIONS = re.compile(
    r"shared/specs|shared/DESIGN|dagfs-and-pipeline\.md|baselines-part[12]\.md|specs/protocols\.md"
    r"|\bspec\s*§|§\s*\d|\bspec [0-9A-Z][0-9.]|\(spec\b|\bthe spec\b|\bspec's\b|\bthe specification\b",
    re.IGNORECASE)
#: Repository files named in the documentation (backticked or linked; folders may be outputs).
NAMED_PATH = re.compile(r"[`(]((?:docs|paper|bench|python|matlab|tests|scripts|\.ci)/[A-Za-z0-9_./-]+"
                        r"\.(?:md|py|m|yaml|yml|json|j2|csv|txt|toml))[`)#]")


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True)
    return [REPO / line for line in out.stdout.splitlines()
            if Path(line).suffix in TEXT_SUFFIXES and (REPO / line).is_file()]


def test_no_tracked_file_cites_a_document_outside_the_repository():
    found = []
    for path in tracked_files():
        if path == Path(__file__).resolve():
            continue  # this file names the patterns it looks for
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            match = OUTSIDE_CITATIONS.search(line)
            if match:
                found.append(f"{path.relative_to(REPO)}:{number}: {match.group(0)!r} in {line.strip()[:100]}")
    assert not found, "citations of documents outside the repository:\n" + "\n".join(found)


def test_paths_named_in_the_documentation_exist():
    missing = []
    for path in tracked_files():
        if path.suffix != ".md":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for named in NAMED_PATH.findall(line):
                target = named.rstrip(".")
                if any(ch in target for ch in "<*{") or (REPO / target).exists() or (path.parent / target).exists():
                    continue
                missing.append(f"{path.relative_to(REPO)}:{number}: {target}")
    assert not missing, "paths the docs name but the repository lacks:\n" + "\n".join(missing)


@pytest.mark.parametrize("text", ["see ../shared/specs/protocols.md", "conventions: spec §3.3", "as §3.6 says",
                                  "the spec's golden values", "(spec baselines-part1 §1.4)", "as in the spec"])
def test_the_check_catches_citations(text):
    assert OUTSIDE_CITATIONS.search(text)


@pytest.mark.parametrize("text", ["method_spec = get_method(name)", "a MethodSpec", "dataset_spec.name",
                                  "spectral clustering", "specifies the grid"])
def test_the_check_leaves_ordinary_words_alone(text):
    assert not OUTSIDE_CITATIONS.search(text)
