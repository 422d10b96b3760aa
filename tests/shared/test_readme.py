"""README.md is the user's manual: the commands it shows are accepted by the commands' own parsers,
its table of contents leads to its sections, and it points to every page of docs/.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SHELL_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)
#: The commands a user runs first; the README must show each of them.
MAIN_COMMANDS = {"pipeline.paper", "pipeline.datasets", "pipeline.export_splits", "pipeline.kgrid", "pipeline.pgrid",
                 "pipeline.evaluate", "pipeline.tables", "pipeline.methods"}
#: Commands that are packages: their command line is their ``__main__`` module.
PACKAGE_COMMANDS = {"pipeline.paper", "pipeline.methods", "pipeline.stats", "pipeline.report"}


class Parsed(Exception):
    """Raised in place of running a command once its arguments have parsed."""


def readme_commands() -> list[list[str]]:
    """Each ``python -m pipeline...`` command of the README's shell blocks, as its argument list."""
    commands = []
    for block in SHELL_BLOCK.findall(README.read_text(encoding="utf-8")):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words[:2] == ["python", "-m"] and words[2].startswith("pipeline."):
                commands.append(words[2:])
    return commands


def test_the_readme_shows_every_main_command():
    assert MAIN_COMMANDS <= {command[0] for command in readme_commands()}


@pytest.mark.parametrize("command", readme_commands(), ids=" ".join)
def test_each_readme_command_parses(command, monkeypatch):
    parse_args = argparse.ArgumentParser.parse_args

    def parse_then_stop(parser, args=None, namespace=None):
        raise Parsed(parse_args(parser, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    module, arguments = command[0], command[1:]
    main = importlib.import_module(f"{module}.__main__" if module in PACKAGE_COMMANDS else module).main
    with pytest.raises(Parsed):  # argparse's own error (SystemExit 2) fails the test with its message
        main(arguments)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_table_of_contents_lists_every_section_in_order():
    text = README.read_text(encoding="utf-8")
    sections = [github_anchor(h) for h in re.findall(r"^## (.+)$", text, re.MULTILINE) if h != "Contents"]
    contents = text.split("## Contents", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"\]\(#([^)]+)\)", contents) == sections


def test_the_readme_points_to_every_page_of_docs():
    text = README.read_text(encoding="utf-8")
    pages = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))
    assert [page for page in pages if f"`{page}`" not in text] == []
    assert "`docs/methods/`" in text and "`docs/plugin_example/`" in text
