"""The label table of the open-set metric: training-label names and their synonym groups.

A text-aligned model predicts one of its training labels; the open-set metric counts the
prediction right when it falls in the same synonym group as the true activity. The table is a
JSON file (the project's ``label_groups.json`` by default, or one the user supplies)::

    {"training_labels": ["climbing_stairs", "jogging", ...],        # sorted, unique
     "groups": {"running": ["running", "jogging"], ...},           # the default (fine) table
     "groups_simple": {"stairs": [...], ...},                      # optional coarse table
     "description": "free text"}                                   # optional

Every name is a non-empty string without surrounding spaces or control characters. A label
belongs to at most one group of a table; a label in no group is its own group.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Mapping, Sequence

from ...errors import ConfigError
from ...limits import HAR_MAX_LABEL_CHARS
from .files import read_json

DEFAULT_TABLE = "label_groups.json"
# tables shipped with the package, by the name --label-table accepts
SHIPPED_TABLES = {"default": DEFAULT_TABLE, "basicmotions": "label_groups_basicmotions.json"}
REQUIRED_KEYS = ("training_labels", "groups")
OPTIONAL_KEYS = ("groups_simple", "description")


@dataclass(frozen=True)
class LabelGroups:
    """Synonym groups: each label maps to the group listing it, else to itself."""

    label_to_group: Mapping[str, str]

    @classmethod
    def from_groups(cls, groups: Mapping[str, Sequence[str]]) -> "LabelGroups":
        """Reverse ``{group: [labels]}``; a label listed twice keeps its first group."""
        reverse: dict[str, str] = {}
        for group, members in groups.items():
            for label in members:
                reverse.setdefault(label, group)
        return cls(label_to_group=reverse)

    def group(self, label: str) -> str:
        return self.label_to_group.get(label, label)


@dataclass(frozen=True)
class LabelVocabulary:
    """The sorted training labels of the text-aligned models and the synonym groups in use.

    ``source`` names the table (``"default"`` or the file name), ``sha256`` fingerprints its
    content and ``table`` says which groups were taken (``"groups"`` or ``"groups_simple"``), so a
    result records exactly which table scored it.
    """

    training_labels: tuple[str, ...]
    groups: LabelGroups
    source: str = "<memory>"
    sha256: str = ""
    table: str = "groups"

    def provenance(self) -> dict:
        return {"source": self.source, "sha256": self.sha256, "groups": self.table,
                "n_training_labels": len(self.training_labels)}


def load_label_vocabulary(path: str | Path | None = None, coarse: bool = False) -> LabelVocabulary:
    """Read and validate a label table: a JSON file, or a shipped table by name (:data:`SHIPPED_TABLES`;
    ``path=None`` is ``default``, the project's ``label_groups.json``).

    ``coarse=True`` takes ``groups_simple`` (all stairs together, postural transitions together)
    instead of ``groups``; a table without ``groups_simple`` is then an error.
    """
    name = "default" if path is None else str(path)
    if name in SHIPPED_TABLES and not Path(name).is_file():
        text = resources.files(__package__).joinpath(SHIPPED_TABLES[name]).read_text(encoding="utf-8")
        document, source, file = json.loads(text), name, SHIPPED_TABLES[name]
    else:
        document, source, file = read_json(path), Path(path).name, str(path)
    return parse_label_table(document, file, coarse, source)


def parse_label_table(document: object, file: str, coarse: bool = False, source: str = "<memory>") -> LabelVocabulary:
    """Validate a parsed label table (see the module docstring) and build the vocabulary.

    Raises ConfigError naming ``file``, the offending field and what was found.
    """
    if not isinstance(document, dict):
        raise ConfigError("a label table is a JSON object", file=file, expected="{training_labels, groups, ...}",
                          found=type(document).__name__)
    unknown = sorted(set(document) - set(REQUIRED_KEYS + OPTIONAL_KEYS))
    missing = [key for key in REQUIRED_KEYS if key not in document]
    if unknown or missing:
        raise ConfigError("label table keys", file=file, expected=f"{', '.join(REQUIRED_KEYS)} and optionally "
                          f"{', '.join(OPTIONAL_KEYS)}", found=f"missing {missing}, unknown {unknown}")
    labels = _names(document["training_labels"], file, "training_labels")
    if len(labels) < 2 or labels != sorted(set(labels)):
        raise ConfigError("training labels must be at least two sorted, unique names (argmax ties go to the "
                          "first)", file=file, field="training_labels", found=_first_disorder(labels))
    key = "groups_simple" if coarse else "groups"
    if key not in document:
        raise ConfigError("the coarse groups were asked for but the table has none", file=file, field=key)
    for name in ("groups", "groups_simple"):
        if name in document:
            _check_groups(document[name], file, name)
    if not isinstance(document.get("description", ""), str):
        raise ConfigError("the description is free text", file=file, field="description", expected="a string")
    digest = hashlib.sha256(json.dumps(document, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    return LabelVocabulary(training_labels=tuple(labels), groups=LabelGroups.from_groups(document[key]),
                           source=source, sha256=digest, table=key)


def _names(value: object, file: str, field: str) -> list[str]:
    """A JSON list of label names, each checked by :func:`_check_name`."""
    if not isinstance(value, list) or not value:
        raise ConfigError("must be a non-empty list of names", file=file, field=field, found=type(value).__name__)
    return [_check_name(item, file, field) for item in value]


def _check_name(value: object, file: str, field: str) -> str:
    if (not isinstance(value, str) or not value or value != value.strip() or len(value) > HAR_MAX_LABEL_CHARS
            or not value.isprintable()):
        raise ConfigError("a label name is a non-empty printable string without surrounding spaces", file=file,
                          field=field, expected=f"at most {HAR_MAX_LABEL_CHARS} characters", found=repr(value)[:80])
    return value


def _first_disorder(labels: list[str]) -> str:
    if len(labels) < 2:
        return f"{len(labels)} name(s)"
    pair = next((p for p in zip(labels, labels[1:]) if p[0] >= p[1]), None)
    return f"{pair[0]!r} before {pair[1]!r}"


def _check_groups(groups: object, file: str, field: str) -> None:
    """``{group name: [unique labels]}`` with every label in at most one group."""
    if not isinstance(groups, dict):
        raise ConfigError("groups must be an object {group: [labels]}", file=file, field=field,
                          found=type(groups).__name__)
    owner: dict[str, str] = {}
    for group, members in groups.items():
        _check_name(group, file, f"{field}.{group}")
        for label in _names(members, file, f"{field}.{group}"):
            if label in owner:
                raise ConfigError("a label belongs to one group only", file=file, field=f"{field}.{group}",
                                  found=f"{label!r} also in group {owner[label]!r}")
            owner[label] = group
