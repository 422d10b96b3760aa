"""A Jinja2 environment for LaTeX templates.

LaTeX uses ``{ } %`` heavily, so the templates use ``\\VAR{...}`` for expressions,
``\\BLOCK{...}`` for statements and ``\\#{...}`` for comments. Every string that comes from data
(method, dataset, model names) must go through the ``latex`` filter, which escapes LaTeX specials.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import jinja2

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    # the typewriter font's own ASCII glyphs: the default OT1 text font sets \textasciitilde and
    # \textasciicircum as accents, which the PDF's text gives as ˜ and ˆ (a display name a^^5ce was lost)
    "~": r"{\ttfamily\char126}",
    "^": r"{\ttfamily\char94}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # a cell that starts with [ or * right after a row's \\ would be read as its optional
    # argument (vertical space) or its star; braces keep them text everywhere
    "[": "{[}",
    "]": "{]}",
    "*": "{*}",
}
#: Pairs of characters TeX fonts join into another glyph (-- en dash, `` '' quotes, !` ?` inverted
#: marks, ,, low quotes): an empty group between them keeps both characters.
_LIGATURE_PAIRS = frozenset({"--", "``", "''", "!`", "?`", ",,"})
#: Typographic characters beyond Latin-1 that pdflatex sets: dashes and curly quotes as written
#: (its UTF-8 input maps them to \textendash and its kin), the others as commands.
_TYPOGRAPHY = {
    "\u2013": "\u2013", "\u2014": "\u2014", "\u2018": "\u2018", "\u2019": "\u2019", "\u201c": "\u201c", "\u201d": "\u201d",
    "\u2026": r"\dots{}", "\u2020": r"\dag{}", "\u2021": r"\ddag{}", "\u2022": r"\ensuremath{\bullet}",
    "\u2212": r"\ensuremath{-}", "\u00b1": r"\ensuremath{\pm}", "\u00d7": r"\ensuremath{\times}",
    "\u2264": r"\ensuremath{\le}", "\u2265": r"\ensuremath{\ge}",
}
#: Latin-1 letters the default OT1 font encoding has no glyph for (T1 has): eth and thorn.
_NOT_IN_OT1 = frozenset("\u00d0\u00f0\u00de\u00fe")

TEMPLATE_DIR = Path(__file__).parent / "templates"


def latex_escape(text: object) -> str:
    """Escape ``str(text)`` so that pdflatex prints it literally, whatever it holds.

    LaTeX specials are escaped, brackets and stars braced, ligatures broken. Control characters
    and every line, paragraph or other separator (U+2028, U+2029, ...) become spaces: a blank line
    would end the paragraph inside a table cell or a caption. Format characters (zero-width, bidi
    controls, soft hyphen) and combining marks are dropped. Dashes, curly quotes and a few signs
    (± × − … † ‡ • ≤ ≥) are set as such. Other characters beyond Latin-1, which pdflatex's default
    UTF-8 input cannot typeset, are written as their ASCII compatibility decomposition (``ﬁ`` as
    ``fi``, ``ő`` as ``o``) or else as ``?``.
    """
    out = []
    previous = ""
    for ch in str(text):
        if previous + ch in _LIGATURE_PAIRS:
            out.append("{}")
        out.append(_LATEX_SPECIALS.get(ch) or _typeset_character(ch))
        previous = ch
    return "".join(out)


def _typeset_character(ch: str) -> str:
    """``ch`` as pdflatex can typeset it with its default (OT1/T1, UTF-8) set-up."""
    if " " <= ch <= "~":
        return ch
    if ch in _TYPOGRAPHY:
        return _TYPOGRAPHY[ch]
    category = unicodedata.category(ch)
    if category == "Cc" or category[0] == "Z":
        return " "
    if category == "Cf" or category[0] == "M":  # format characters; combining marks (accents)
        return ""
    if "\u00a1" <= ch <= "\u00ff" and category[0] in "LN" and ch not in _NOT_IN_OT1:
        return ch
    ascii_form = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
    return latex_escape(ascii_form) if ascii_form.strip() else "?"


def latex_environment(*template_dirs: str | Path) -> jinja2.Environment:
    """Return a Jinja2 environment with LaTeX-safe delimiters and the ``latex`` escaping filter.

    Parameters
    ----------
    template_dirs : paths
        Folders searched for templates, in order; the shared ``report/templates`` folder is
        always searched last.
    """
    search = [str(p) for p in template_dirs] + [str(TEMPLATE_DIR)]
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(search),
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        line_statement_prefix=None,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["latex"] = latex_escape
    return env
