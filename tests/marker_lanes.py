"""Reading a ``-m`` expression before collection: which marked folders it deselects whole.

A uniquely named module (not a conftest), so that tests/shared/test_marker_lanes.py can import it.
"""

from __future__ import annotations

import itertools
import re

from _pytest.mark.expression import Expression  # pytest's own -m evaluator, so both always agree

#: A name in a ``-m`` expression, as pytest's expression scanner reads one.
MARK_EXPRESSION_NAME = re.compile(r"(?:\w|:|\+|-|\.|\[|\]|\\|/)+")
#: A name followed by an opening parenthesis: a marker with arguments, ``slow(reason="x")``.
MARKER_WITH_ARGUMENTS = re.compile(rf"({MARK_EXPRESSION_NAME.pattern})\s*\(")
EXPRESSION_KEYWORDS = {"and", "or", "not"}
#: Beyond this many names, trying every combination of markers is not worth it: collect.
MAX_ENUMERATED_MARKERS = 10


def deselects_every_test_marked(expression: str, marker: str) -> bool:
    """Whether the ``-m`` expression is false for every test that carries ``marker``, whatever
    other markers it has.

    The expression is tried on every combination of the other names it mentions (the only markers
    its value can depend on). An expression this cannot read (marker arguments, too many names)
    is taken to select something, so the folder is collected as usual.
    """
    if not expression or set(MARKER_WITH_ARGUMENTS.findall(expression)) - EXPRESSION_KEYWORDS:
        return False
    names = sorted(set(MARK_EXPRESSION_NAME.findall(expression)) - EXPRESSION_KEYWORDS - {marker})
    if len(names) > MAX_ENUMERATED_MARKERS:
        return False
    compiled = Expression.compile(expression)
    for present in itertools.product((False, True), repeat=len(names)):
        markers = {marker, *itertools.compress(names, present)}
        if compiled.evaluate(lambda name, **kwargs: name in markers):
            return False
    return True
