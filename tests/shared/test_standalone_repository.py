"""The repository stands alone: no tracked file cites a document outside it, and the repository
files that tracked files name exist.

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

#: What cites an outside specification: its folder, its file names, its sections, or the document
#: itself. (Spelled in pieces so that this file does not match the patterns it holds.)
_SPEC, _SHARED = "spe" + "c", "sha" + "red"
OUTSIDE_CITATIONS = re.compile(
    rf"{_SHARED}/{_SPEC}s|{_SHARED}/DESIGN|dagfs-and-pipeline\.md|baselines-part[12]\.md|{_SPEC}s/protocols\.md"
    rf"|\b{_SPEC}\s*§|§\s*\d|\b{_SPEC} [0-9A-Z][0-9.]|\({_SPEC}\b|\bthe {_SPEC}\b|\b{_SPEC}'s\b"
    rf"|\bthe {_SPEC}ification\b",
    re.IGNORECASE)
#: Repository files named in a tracked text file, as a word of their own (folders may be outputs).
NAMED_PATH = re.compile(r"(?:^|(?<=[\s`('\"]))((?:docs|paper|bench|python|matlab|tests|scripts|\.ci)/"
                        r"[A-Za-z0-9_./-]+\.(?:md|py|m|yaml|yml|json|j2|csv|txt|toml))"
                        r"(?=$|[\s`)'\",:;#]|\.(?:\s|$))")
#: Upper-case stand-ins for any name, as in ``matlab/baselines/METHOD.m``.
PLACEHOLDERS = {"METHOD", "DATASET", "NAME"}


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True)
    return [REPO / line for line in out.stdout.splitlines()
            if Path(line).suffix in TEXT_SUFFIXES and (REPO / line).is_file()]


def test_no_tracked_file_cites_a_document_outside_the_repository():
    found = []
    for path in tracked_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            match = OUTSIDE_CITATIONS.search(line)
            if match:
                found.append(f"{path.relative_to(REPO)}:{number}: {match.group(0)!r} in {line.strip()[:100]}")
    assert not found, "citations of documents outside the repository:\n" + "\n".join(found)


def names_a_placeholder(target: str) -> bool:
    return any(ch in target for ch in "<*{") or Path(target).stem in PLACEHOLDERS


def test_paths_named_in_tracked_files_exist():
    missing = []
    for path in tracked_files():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            for named in NAMED_PATH.findall(line):
                target = named.rstrip(".")
                if names_a_placeholder(target) or (REPO / target).exists() or (path.parent / target).exists():
                    continue
                missing.append(f"{path.relative_to(REPO)}:{number}: {target}")
    assert not missing, "paths tracked files name but the repository lacks:\n" + "\n".join(missing)


_GONE = "no_such_file"  # spelled apart so that this file names no missing path itself


@pytest.mark.parametrize("line,named", [
    (f"records, as bench/{_GONE}.py does,", [f"bench/{_GONE}.py"]),
    (f"depend on the BLAS (see docs/{_GONE}.md).", [f"docs/{_GONE}.md"]),
    ("`docs/paper.md`: the suite file", ["docs/paper.md"]),
    ("results_dir/docs/x.md and mydocs/y.md", []),
])
def test_named_paths_are_found_as_words(line, named):
    assert NAMED_PATH.findall(line) == named


@pytest.mark.parametrize("text", [f"see ../{_SHARED}/{_SPEC}s/protocols.md", f"conventions: {_SPEC} \u00a73.3",
                                  "as \u00a73.6 says", f"the {_SPEC}'s golden values",
                                  f"({_SPEC} baselines-part1 \u00a71.4)", f"as in the {_SPEC}"])
def test_the_check_catches_citations(text):
    assert OUTSIDE_CITATIONS.search(text)


@pytest.mark.parametrize("text", ["method_spec = get_method(name)", "a MethodSpec", "dataset_spec.name",
                                  "spectral clustering", "specifies the grid"])
def test_the_check_leaves_ordinary_words_alone(text):
    assert not OUTSIDE_CITATIONS.search(text)
