"""Every option of every protocol command explains itself: it has a help
text, and an option that takes a value and is not required states its default in it.

The parsers are collected from the commands' own ``main`` (argparse's ``parse_args`` is stopped
before it parses), then walked through their sub-commands, so an option added later is checked
without editing this file.
"""

from __future__ import annotations

import argparse
import importlib
import re

import pytest

pytestmark = pytest.mark.protocols  # the HAR and steering commands import torch
PROTOCOL_MODULES = ["pipeline.protocols.motion.cli", "pipeline.protocols.motion.convert",
                    "pipeline.protocols.har.cli", "pipeline.protocols.steering.__main__",
                    "pipeline.protocols.forecast.__main__"]
DEFAULT = re.compile(r"\bdefault\b")


class _Collected(Exception):
    def __init__(self, parser: argparse.ArgumentParser):
        self.parser = parser


def command_parser(module: str, monkeypatch) -> argparse.ArgumentParser:
    """The parser ``module.main`` builds, taken when it starts parsing."""
    def collect(self, *args, **kwargs):
        raise _Collected(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", collect)
    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", collect)
    with pytest.raises(_Collected) as info:
        importlib.import_module(module).main([])
    return info.value.parser


def walk(parser: argparse.ArgumentParser, path: str):
    """(command path, action, required) for every argument of ``parser`` and of its sub-commands;
    an option of a required group of alternatives counts as required."""
    alternatives = {id(action) for group in parser._mutually_exclusive_groups if group.required
                    for action in group._group_actions}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from walk(sub, f"{path} {name}")
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield path, action, action.required or id(action) in alternatives


def help_text(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The option's help as ``--help`` prints it (``%(default)s`` and the like expanded)."""
    return parser._get_formatter()._expand_help(action) if action.help else ""


def takes_a_value(action: argparse.Action) -> bool:
    return action.nargs != 0 and not isinstance(action, (argparse._StoreConstAction, argparse._CountAction))


def problems(module: str, parser: argparse.ArgumentParser) -> list[str]:
    found = []
    for path, action, required in walk(parser, module):
        name = "/".join(action.option_strings) or action.dest
        text = help_text(parser, action)
        if not text.strip():
            found.append(f"{path} {name}: no help text")
        elif len(DEFAULT.findall(text)) > 1:
            found.append(f"{path} {name}: states its default more than once: {text!r}")
        elif "(default: None)" in text:
            found.append(f"{path} {name}: says '(default: None)'")
        elif action.option_strings and takes_a_value(action) and not required \
                and not DEFAULT.search(text):
            found.append(f"{path} {name}: does not state its default: {text!r}")
    return found


@pytest.mark.parametrize("module", PROTOCOL_MODULES)
def test_every_option_has_a_help_text_with_its_default(module, monkeypatch):
    parser = command_parser(module, monkeypatch)
    assert list(walk(parser, module)), "no options found"
    assert problems(module, parser) == []


def test_the_check_sees_an_option_without_its_default():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers().add_parser("run")
    sub.add_argument("--lr", type=float, default=1e-3, help="learning rate")
    sub.add_argument("--epochs", type=int, default=3, help="epochs (default %(default)s)")
    sub.add_argument("--quiet", action="store_true", help="print less")
    sub.add_argument("--seed", type=int)
    either = sub.add_mutually_exclusive_group(required=True)
    either.add_argument("--a", help="one input")
    either.add_argument("--b", help="the other input")
    assert problems("demo", parser) == ["demo run --lr: does not state its default: 'learning rate'",
                                        "demo run --seed: no help text"]
