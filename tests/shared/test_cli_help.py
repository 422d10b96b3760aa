"""Every core command's ``--help`` reads cleanly: each option says its default at most once, never
"(default: None)", and the words a user relies on are there.

The help texts are part of the user's manual (README points to them), so they are checked like it.
"""

from __future__ import annotations

import importlib
import re

import pytest

# (module, arguments before --help)
COMMANDS = [("pipeline.kgrid", []), ("pipeline.pgrid", []), ("pipeline.evaluate", []), ("pipeline.tables", []),
            ("pipeline.stats.__main__", []), ("pipeline.export_splits", []), ("pipeline.datasets", []),
            ("pipeline.datasets", ["fetch"]), ("pipeline.datasets", ["info"]), ("pipeline.paper.__main__", ["run"]),
            ("pipeline.paper.__main__", ["status"]), ("pipeline.paper.__main__", ["sbatch"]),
            ("pipeline.results.__main__", ["export"]), ("pipeline.results.__main__", ["merge"]),
            ("pipeline.report.__main__", ["html"])]
OPTION_LINE = re.compile(r"^  -")


def help_text(module: str, before: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as info:
        importlib.import_module(module).main([*before, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


def option_blocks(text: str) -> list[str]:
    """The help of each option: its line and the indented lines that continue it."""
    blocks: list[str] = []
    open_block = False
    for line in text.splitlines():
        if OPTION_LINE.match(line):
            blocks.append(line)
            open_block = True
        elif open_block and line.startswith("    ") and line.strip():
            blocks[-1] += " " + line.strip()
        else:  # an empty line or a heading ends the block
            open_block = False
    return blocks


@pytest.mark.parametrize("module,before", COMMANDS, ids=[" ".join([m, *b]) for m, b in COMMANDS])
def test_each_option_states_its_default_at_most_once(module, before, capsys):
    text = help_text(module, before, capsys)
    assert "(default: None)" not in text
    blocks = option_blocks(text)
    assert blocks, "no options found"
    for block in blocks:
        assert len(re.findall(r"\bdefault\b", block)) <= 1, block


def test_evaluate_says_it_never_recomputes_a_ranking(capsys):
    text = " ".join(help_text("pipeline.evaluate", [], capsys).split())
    assert "rankings are the given ones, never recomputed" in text
    assert "--engine" not in text and "--params" not in text


def test_the_block_splitter_sees_a_doubled_default():
    text = "options:\n  --jobs JOBS  workers (default: 1)\n              more (default: 1)\n  --x  y\n"
    assert option_blocks(text)[0].count("default") == 2 and len(option_blocks(text)) == 2
