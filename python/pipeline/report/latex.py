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
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}

TEMPLATE_DIR = Path(__file__).parent / "templates"


def latex_escape(text: object) -> str:
    """Escape every LaTeX special character in ``str(text)`` so it prints literally.

    Control characters (line breaks included) become spaces: a blank line would end the paragraph
    inside a table cell or a caption.
    """
    return "".join(_LATEX_SPECIALS.get(ch, " " if unicodedata.category(ch) == "Cc" else ch) for ch in str(text))


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
