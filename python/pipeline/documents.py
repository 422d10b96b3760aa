"""Strict reading of the JSON and YAML documents every tool reads (suites, parameter files, display
maps, result files read back, protocol configurations).

A document is refused, with one :class:`~pipeline.errors.PipelineError` line naming the file, where
in it, what was expected and what was found, when

* it is not a regular file (a FIFO, a device, a folder), is larger than its limit (checked
  before a byte is read: :func:`~pipeline.fileio.read_regular_file`) or is not UTF-8;
* it nests deeper than :attr:`DocumentLimits.max_depth` levels (checked on the raw text for JSON and
  on the event stream for YAML, before any recursive step runs);
* a mapping repeats a key (the parsers' default is to keep the last value silently);
* an integer has more than :attr:`DocumentLimits.max_int_digits` digits, a number is not finite
  (``NaN``, ``Infinity``, ``.inf``, ``1e999``), or a string (key or value) is longer than
  :attr:`DocumentLimits.max_string_chars` characters;
* YAML: a number is written in a form YAML 1.1 and YAML 1.2 read differently (see
  :data:`_YAML_NUMBERS`): ``042`` (octal 34 in 1.1, 42 in 1.2), ``1:30`` (base 60: 90 in 1.1, text
  in 1.2), ``1_000``, ``0b101``, ``0x1F``, ``08``;
* YAML: a tag is written (``!!python/object``, ``!!binary``, ``!!str``, ...) or the aliases expand
  to more than :attr:`DocumentLimits.max_values` values (the "billion laughs" bomb is refused from
  its events, before anything is built).

What a document must contain is the business of its schema, applied by the caller.
"""

from __future__ import annotations

import json
import math
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import yaml

from .definitions import definitions
from .errors import ConfigError, DataError, PipelineError
from .fileio import read_regular_file
from .validation import OUT_OF_RANGE, shorten

if TYPE_CHECKING:
    from pydantic import ValidationError


@dataclass(frozen=True)
class DocumentLimits:
    """Bounds of one kind of document (the defaults suit hand-written configuration files)."""

    max_bytes: int = 1 << 20
    max_depth: int = 32
    max_int_digits: int = 24
    max_string_chars: int = 10_000
    max_values: int = 100_000


#: Hand-written configuration files (suites, parameter files, display maps, protocol configurations).
CONFIG_LIMITS = DocumentLimits()
#: Files a run writes and reads back (metrics, ranking records, sidecars, run records): longer
#: lists (a metric per grid point), the same digit bound; the size, depth and longest text are
#: those of definitions.json, which MATLAB/Octave checks too.
RESULT_LIMITS = DocumentLimits(max_bytes=definitions()["result_files"]["max_bytes"],
                               max_depth=definitions()["result_files"]["max_depth"],
                               max_string_chars=definitions()["result_files"]["max_string_chars"],
                               max_values=10_000_000)

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


class _Refusal(Exception):
    """A document refused by a parser hook; becomes the caller's error class with the file named."""

    def __init__(self, message: str, field: str | None = None, expected: object = None, found: object = None):
        super().__init__(message)
        self.message, self.field, self.expected, self.found = message, field, expected, found


class _Refused:
    """A value a parser hook stood in for, refused by :func:`_check_values` where it is; shown as
    written (a key named by it is named so)."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text


class _TooManyDigits(_Refused):
    pass


class _NonFinite(_Refused):
    pass


class _AmbiguousNumber(_Refused):
    """A plain scalar YAML 1.1 reads as a number and YAML 1.2 otherwise (``042``, ``1:30``, ``1_000``)."""


def read_document(path: str | Path, what: str, *, limits: DocumentLimits = CONFIG_LIMITS,
                  kind: str | None = None, error: type[PipelineError] = ConfigError) -> Any:
    """Parse the JSON or YAML file ``path`` (``kind`` "json"/"yaml"; default from its suffix:
    ``.json`` is JSON, anything else YAML) within ``limits``; ``error`` (naming ``what`` and the
    file) for anything this module refuses."""
    path = Path(path)
    raw = read_regular_file(path, what, limits.max_bytes, error)
    kind = kind or ("json" if path.suffix.lower() == ".json" else "yaml")
    return parse_document(raw, what, kind=kind, limits=limits, error=error, file=path)


def parse_document(raw: bytes | str, what: str, *, kind: str, limits: DocumentLimits = CONFIG_LIMITS,
                   error: type[PipelineError] = ConfigError, file: str | Path | None = None) -> Any:
    """Parse ``raw`` (the bytes or text of a document of ``kind`` "json" or "yaml"); see
    :func:`read_document`."""
    if len(raw) > limits.max_bytes:
        raise error(f"{what} too large", file=file, expected=f"at most {limits.max_bytes} bytes",
                    found=f"{len(raw)} bytes")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise error(f"cannot read {what}: not UTF-8 text (byte {exc.start})", file=file) from None
    parse = _parse_json if kind == "json" else _parse_yaml
    try:
        document = parse(text, limits)
        _check_values(document, limits)
    except _Refusal as refusal:
        raise error(refusal.message, file=file, field=refusal.field, expected=refusal.expected,
                    found=refusal.found) from None
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise error(f"cannot parse {what}: {_parse_problem(exc)}", file=file) from None
    return document


def _parse_problem(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else problem


# --- JSON -------------------------------------------------------------------------------------

def _parse_json(text: str, limits: DocumentLimits) -> Any:
    _check_json_depth(text, limits.max_depth)
    return json.loads(text, object_pairs_hook=_json_object, parse_constant=_NonFinite,
                      parse_int=_bounded_int(limits.max_int_digits), parse_float=_finite_float)


def _check_json_depth(text: str, max_depth: int) -> None:
    """Refuse nesting deeper than ``max_depth`` from the raw text (brackets outside strings)."""
    raw = _JSON_STRING.sub(b'""', text.encode("utf-8"))
    codes = np.frombuffer(raw, dtype=np.uint8)
    steps = np.zeros(codes.size, dtype=np.int32)
    steps[(codes == ord("[")) | (codes == ord("{"))] = 1
    steps[(codes == ord("]")) | (codes == ord("}"))] = -1
    depth = np.cumsum(steps)
    if depth.size and depth.max() > max_depth:
        at = int(np.argmax(depth > max_depth))
        line = raw[:at].count(b"\n") + 1
        raise _Refusal("nested too deeply", field=f"line {line}",
                       expected=f"at most {max_depth} nesting level(s)")


def _json_object(pairs: list[tuple[str, Any]]) -> dict:
    document: dict = {}
    for key, value in pairs:
        if key in document:
            raise _Refusal("a key is repeated (only one value can hold)", field=key)
        document[key] = value
    return document


def _bounded_int(max_digits: int) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        return _TooManyDigits(text) if len(text.lstrip("-")) > max_digits else int(text)
    return parse


def _finite_float(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


# --- YAML -------------------------------------------------------------------------------------

class _StrictLoader(yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader):  # type: ignore[misc]
    """The safe loader with repeated keys refused and integers and floats bounded."""

    max_int_digits = CONFIG_LIMITS.max_int_digits

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                repeated = key in seen
            except TypeError:
                raise _Refusal("a key is not a plain value", field=f"line {key_node.start_mark.line + 1}",
                               expected="a name") from None
            if repeated:
                raise _Refusal(f"a key is repeated (line {key_node.start_mark.line + 1}; only one value can hold)",
                               field=str(key))
            seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        digits = re.sub(r"[^0-9a-fA-F]", "", str(node.value))
        if len(digits) > self.max_int_digits:
            return _TooManyDigits(str(node.value))
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node):
        value = super().construct_yaml_float(node)
        return value if math.isfinite(value) else _NonFinite(str(node.value))


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)
_StrictLoader.add_constructor("tag:yaml.org,2002:map", _StrictLoader.construct_yaml_map)

_AMBIGUOUS_NUMBER_TAG = "tag:mlfs-bench,2026:ambiguous-number"
#: Numbers as both YAML 1.1 (PyYAML's resolvers) and YAML 1.2 read them: decimal integers without
#: a leading zero, and decimal fractions (with a signed exponent, as YAML 1.1 requires); ``.inf``
#: and ``.nan`` resolve too so that they are refused as not finite. Then every other scalar YAML
#: 1.1 would read as a number (octal ``0``-prefixed, base 60 ``:``, ``_`` separators, ``0b``,
#: ``0x``) and leading-zero decimals (``08``: text in 1.1, 8 in 1.2): refused, since its meaning
#: depends on the YAML version the writer had in mind. Tried in this order, first match wins.
_YAML_NUMBERS = (
    ("tag:yaml.org,2002:int", r"^[-+]?(?:0|[1-9][0-9]*)$"),
    ("tag:yaml.org,2002:float", r"^(?:[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?|\.[0-9]+(?:[eE][-+][0-9]+)?"
                                r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    (_AMBIGUOUS_NUMBER_TAG, r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-9_]+|[-+]?0x[0-9a-fA-F_]+"
                            r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
                            r"|[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)$"),
)
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
for _tag, _pattern in _YAML_NUMBERS:
    _StrictLoader.add_implicit_resolver(_tag, re.compile(_pattern), list("-+0123456789."))
_StrictLoader.add_constructor(_AMBIGUOUS_NUMBER_TAG, lambda loader, node: _AmbiguousNumber(str(node.value)))


def _parse_yaml(text: str, limits: DocumentLimits) -> Any:
    _check_yaml_events(text, limits)
    loader = _StrictLoader(text)
    loader.max_int_digits = limits.max_int_digits
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _check_yaml_events(text: str, limits: DocumentLimits) -> None:
    """Refuse tags, nesting deeper than ``max_depth`` and aliases expanding beyond ``max_values``
    values, from the parser's events (nothing is composed or built yet)."""
    sizes: dict[str, int] = {}
    open_nodes: list[list] = []  # [anchor, values inside] per open sequence/mapping
    total = 0
    for event in yaml.parse(text, Loader=_StrictLoader):
        line = f"line {event.start_mark.line + 1}"
        if getattr(event, "tag", None) is not None and not isinstance(event, yaml.DocumentStartEvent):
            raise _Refusal("YAML tags are not allowed", field=line, found=_cut(event.tag))
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            open_nodes.append([event.anchor, 1])
            if len(open_nodes) > limits.max_depth:
                raise _Refusal("nested too deeply", field=line,
                               expected=f"at most {limits.max_depth} nesting level(s)")
            continue
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            anchor, count = open_nodes.pop()
        elif isinstance(event, yaml.ScalarEvent):
            anchor, count = event.anchor, 1
        elif isinstance(event, yaml.AliasEvent):
            anchor, count = None, sizes.get(event.anchor, 1)
        else:
            continue
        if anchor is not None:
            sizes[anchor] = count
        if open_nodes:
            open_nodes[-1][1] += count
        else:
            total += count
        if max(total, open_nodes[-1][1] if open_nodes else 0) > limits.max_values:
            raise _Refusal(f"holds more than {limits.max_values} values once its aliases are expanded",
                           field=line, expected=f"at most {limits.max_values} values")


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


# --- values -----------------------------------------------------------------------------------

#: Values the parsers give that :func:`_check_scalar` always accepts (its refusals are of their own types,
#: and of strings): a result file's curves, thousands of numbers, are passed over without naming each one's path.
_PLAIN_TYPES = frozenset({float, int, bool, type(None)})


def _check_values(document: Any, limits: DocumentLimits) -> None:
    """Refuse over-long integers, non-finite numbers and over-long strings, naming their path."""
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                _check_scalar(key, _join(where, key), limits)
                if type(item) not in _PLAIN_TYPES:
                    stack.append((item, _join(where, key)))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(value) if type(item) not in _PLAIN_TYPES)
        else:
            _check_scalar(value, where, limits)


def _check_scalar(value: Any, where: str, limits: DocumentLimits) -> None:
    field = where or None
    if isinstance(value, _TooManyDigits):
        raise _Refusal("integer too long", field=field, expected=f"at most {limits.max_int_digits} digits",
                       found=f"{len(value.text)} characters")
    if isinstance(value, _NonFinite):
        raise _Refusal("not a finite number", field=field, expected="a finite number", found=value.text)
    if isinstance(value, _AmbiguousNumber):
        raise _Refusal("a number written as YAML 1.1 and YAML 1.2 read differently (a leading zero, "
                       "':' base 60, '_' separators, 0b or 0x)", field=field,
                       expected="decimal digits without a leading zero, or quotes for text", found=value.text)
    if isinstance(value, str) and len(value) > limits.max_string_chars:
        raise _Refusal("text too long", field=field, expected=f"at most {limits.max_string_chars} characters",
                       found=f"{len(value)} characters")


def _join(where: str, key: Any) -> str:
    key = _cut(str(key))
    return f"{where}.{key}" if where else key


# --- schemas ----------------------------------------------------------------------------------

def schema_error(exc: "ValidationError", data: Any, model: type | None = None, *, file: str | Path | None = None,
                 error: type[PipelineError] = ConfigError) -> PipelineError:
    """The first problem of a pydantic validation of ``data`` as one :class:`PipelineError` line:
    the field's path (``folds.count``), what was expected (every alternative of a union) and what
    was found (cut by the error class)."""
    problems = exc.errors(include_url=False)
    first = problems[0]
    loc = _data_path(data, first["loc"])
    where = ".".join(str(part) for part in loc) or None
    kind, found = first["type"], first.get("input")
    if kind == "extra_forbidden":
        allowed = _allowed_keys(model, loc[:-1]) if model is not None else None
        return error("unknown key", file=file, field=where, expected=allowed and f"one of {allowed}")
    if kind == "missing":
        return error("required key missing", file=file, field=where)
    if kind == OUT_OF_RANGE:
        return error("out of range", file=file, field=where, expected=first["msg"], found=found)
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return error("must be a mapping", file=file, field=where, expected="key: value pairs",
                     found=type(found).__name__)
    alternatives = [_expected(p["msg"]) for p in problems if _data_path(data, p["loc"]) == loc]
    return error("invalid value", file=file, field=where, expected=" or ".join(dict.fromkeys(alternatives)),
                 found=shorten(found, 100) if isinstance(found, str) else found)


def refusal(key: str, message: str, found: Any) -> "ValidationError":
    """A validation error at ``key`` below what is being validated (a field's entry, or a field of
    the model a model validator checks), for a rule a type cannot state: raised inside a pydantic
    validator, it reads as any other through :func:`schema_error` (``expected`` is ``message``)."""
    from pydantic import ValidationError
    from pydantic_core import InitErrorDetails, PydanticCustomError
    error = PydanticCustomError("value_error", "Value error, {reason}", {"reason": message})
    return ValidationError.from_exception_data("document", [InitErrorDetails(type=error, loc=(key,), input=found)])


def missing(key: str) -> "ValidationError":
    """A required-key error at ``key`` for a key that only some settings require (see :func:`refusal`)."""
    from pydantic import ValidationError
    from pydantic_core import InitErrorDetails
    return ValidationError.from_exception_data("document", [InitErrorDetails(type="missing", loc=(key,), input={})])


def _expected(message: str) -> str:
    return message.removeprefix("Input should be ").removeprefix("Value error, ")


def _data_path(data: Any, loc: tuple) -> tuple:
    """The part of pydantic's ``loc`` that indexes ``data`` (dropping the tags of union members;
    a missing key, the last part, is kept)."""
    path = []
    for i, part in enumerate(loc):
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        elif isinstance(data, dict) and i == len(loc) - 1:
            pass
        else:
            continue
        path.append(part)
    return tuple(path)


def _allowed_keys(model: type, loc: tuple) -> list[str] | None:
    """The keys the model allows at ``loc`` (walking nested models and mappings of models)."""
    from pydantic import BaseModel
    current: Any = model
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            current = None if field is None else field.annotation
        else:
            args = [a for a in typing.get_args(current) if a is not type(None)]
            current = args[-1] if args else None
        current = _model_in(current)
    return sorted(current.model_fields) if current is not None and hasattr(current, "model_fields") else None


def _model_in(annotation: Any) -> Any:
    """``annotation`` itself, or the model inside an ``X | None``."""
    if hasattr(annotation, "model_fields"):
        return annotation
    for arg in typing.get_args(annotation):
        if hasattr(arg, "model_fields"):
            return arg
    return annotation


def read_result_file(path: str | Path, what: str) -> Any:
    """A JSON file a run wrote and now reads back (metrics, ranking record, sidecar), within
    :data:`RESULT_LIMITS`; :class:`~pipeline.errors.DataError` naming ``what`` otherwise."""
    return read_document(path, what, limits=RESULT_LIMITS, kind="json", error=DataError)
