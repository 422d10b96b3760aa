"""What a value may be, declared once: the :class:`Interval` of a method parameter, a command-line
option or a suite key, and the one helper that shortens a value for a message.

An interval is read from a declaration (:meth:`Interval.from_declaration`), the form
``definitions.json`` and a plug-in's ``mlfs_parameter`` use, which the MATLAB/Octave side reads too
(``mlfs_check_param_ranges``): ``{"low": 0, "high": 1, "low_open": false, "high_open": true}``
with any key left out (no bound, a closed bound) or ``{"choices": ["fast", "faithful"]}``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Mapping

from .errors import ConfigError

#: The keys of a declaration, the fields of an :class:`Interval`.
DECLARATION_KEYS = ("low", "high", "low_open", "high_open", "choices")
#: The pydantic error type of a value outside an :class:`Interval` (its message is the interval).
OUT_OF_RANGE = "out_of_range"
#: Longest text of a value an error message shows.
SHOWN_CHARS = 80


@dataclass(frozen=True)
class Interval:
    """A range of numbers (``low_open``/``high_open`` exclude the bound; None = unbounded) or a
    list of choices. ``spelled_as_span`` writes a two-sided range as the command lines always
    have, "a number in (0, 1]", instead of "> 0 and <= 1"."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    spelled_as_span: bool = False

    def __post_init__(self):
        if self.choices and (self.low is not None or self.high is not None):
            raise ConfigError("a range is either bounds or choices", found=repr(self))
        if not self.choices and self.low is None and self.high is None:
            raise ConfigError("a range needs a bound or choices", found=repr(self))
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise ConfigError("a range's lower bound must be below its upper bound", found=repr(self))

    @classmethod
    def from_declaration(cls, declaration: Mapping[str, Any], where: str) -> "Interval":
        """The interval a declaration (module docstring) describes; ConfigError naming ``where``
        for unknown keys, non-numeric bounds or flags that are not true/false."""
        if not isinstance(declaration, Mapping):
            raise ConfigError("a range must be a mapping", field=where, expected=f"keys among {list(DECLARATION_KEYS)}",
                              found=shorten(declaration))
        unknown = sorted(set(declaration) - set(DECLARATION_KEYS))
        if unknown:
            raise ConfigError(f"unknown key(s) {unknown} in a range", field=where,
                              expected=f"keys among {list(DECLARATION_KEYS)}")
        for bound in ("low", "high"):
            value = declaration.get(bound)
            if value is not None and not is_finite_number(value):
                raise ConfigError(f"the {bound} bound of a range must be a finite number", field=where,
                                  found=shorten(value))
        for flag in ("low_open", "high_open"):
            if not isinstance(declaration.get(flag, False), bool):
                raise ConfigError(f"{flag} of a range must be true or false", field=where,
                                  found=shorten(declaration[flag]))
        choices = declaration.get("choices") or ()
        if isinstance(choices, str) or not all(isinstance(choice, str) for choice in choices):
            raise ConfigError("the choices of a range must be a list of texts", field=where, found=shorten(choices))
        try:
            return cls(low=declaration.get("low"), high=declaration.get("high"),
                       low_open=declaration.get("low_open", False), high_open=declaration.get("high_open", False),
                       choices=tuple(choices))
        except ConfigError as exc:
            raise ConfigError(f"{exc.message}", field=where) from None

    def admits(self, value: Any) -> bool:
        """Whether ``value`` is one of the choices, or a number (not a bool, not NaN) within the bounds."""
        if self.choices:
            return isinstance(value, str) and value in self.choices
        if not is_number(value) or (isinstance(value, float) and math.isnan(value)):
            return False
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        below = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return above and below

    def just_outside(self, default: Any) -> Any:
        """A value of ``default``'s type just outside this range (a text that is no choice), for
        checking that a method refuses it."""
        if self.choices:
            return "mlfs_check_not_a_choice"
        whole = is_integer(default)
        if self.low is not None:  # an integer is rounded away from the range (a bound may be 1.5)
            value = self.low if self.low_open else self.low - 1
            return math.floor(value) if whole else float(value)
        value = self.high if self.high_open else self.high + 1
        return math.ceil(value) if whole else float(value)

    def pydantic_field(self) -> Any:
        """The pydantic check of this range, for ``Annotated`` types of a schema, so a suite key and an
        option share one declaration and one message: an error of type ``out_of_range`` whose message is
        this range (:func:`pipeline.documents.schema_error` reads it as "out of range (expected ...)")."""
        from pydantic import AfterValidator  # here: the command lines that never build a schema start faster
        from pydantic_core import PydanticCustomError

        if self.choices:
            raise ConfigError("choices become a Literal type in a schema, not a range check", found=repr(self))

        def within(value: Any) -> Any:
            if not self.admits(value):
                raise PydanticCustomError(OUT_OF_RANGE, "{expected}", {"expected": str(self)})
            return value
        return AfterValidator(within)

    def __str__(self) -> str:
        if self.choices:
            return f"one of {list(self.choices)}"
        if self.spelled_as_span and self.low is not None and self.high is not None:
            return (f"a number in {'(' if self.low_open else '['}{_number(self.low)}, "
                    f"{_number(self.high)}{')' if self.high_open else ']'}")
        low = "" if self.low is None else f"{'>' if self.low_open else '>='} {self.low:g}"
        high = "" if self.high is None else f"{'<' if self.high_open else '<='} {self.high:g}"
        return " and ".join(part for part in (low, high) if part)


def is_integer(value: Any) -> bool:
    """Whether ``value`` is an integer (a NumPy one too), not a bool."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (an integer too, NaN and infinities too), not a bool."""
    return isinstance(value, Real) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    """Whether ``value`` is a real number, not a bool, NaN, an infinity or an int beyond the floats."""
    if not is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def option_range(low: float, high: float, low_open: bool = False) -> Interval:
    """The range of a numeric command-line option, spelled "a number in [low, high]"."""
    return Interval(low=low, high=high, low_open=low_open, spelled_as_span=True)


def shorten(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` for a message, a text cut to its first ``limit`` characters (anything else
    to ``limit`` characters of its ``repr``) saying how long it was, so a huge value given by
    mistake (a whole file pasted into a field) stays one short line."""
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
