"""One LaTeX document per output folder: ``main.tex`` inputs every table and the figures.

``main.tex`` inputs every ``table_*.tex`` of its folder (the known ones in the order given, any
other, such as tables another module writes there, after them in name order) and ``figures.tex``
when present, each figure in a float with a caption. It compiles with pdflatex as is; run
:func:`write_main_tex` again after adding tables to the folder.

Figures are drawn at the width they are printed at, so they are included at their natural size
(shrunk only if one is wider than the line, which the report's figures never are): their type
keeps its printed size.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import ConfigError
from ..fileio import atomic_write_text
from .latex import latex_escape
from .layout import Page
from .tables import check_label

MAIN = "main.tex"
FIGURES = "figures.tex"
#: ``rotating`` serves the landscape layout.
PACKAGES = ("booktabs", "amssymb", "graphicx", "rotating")
FIGURES_PER_PAGE = 2


@dataclass(frozen=True)
class DocumentFigure:
    """One figure float: an image file (its path relative to the folder, or a name on the document's
    graphics path), a plain-text caption (escaped when written) and a label (letters, digits,
    ``: _ . + -``). ``wide``: a ``figure*`` across the text width (else a ``figure``, one column)."""

    file: str
    caption: str
    label: str
    wide: bool = True


def figures_tex(figures: Sequence[DocumentFigure]) -> str:
    """A float for each of ``figures``, a page break after every few so floats never pile up."""
    out = []
    for i, figure in enumerate(figures):
        environment = "figure*" if figure.wide else "figure"
        image = (f"\\resizebox{{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}}{{!}}"
                 f"{{\\includegraphics{{{figure.file}}}}}")
        out.append(f"\\begin{{{environment}}}[tp]\n\\centering\n{image}\n\\caption{{{latex_escape(figure.caption)}}}\n"
                   f"\\label{{{check_label(figure.label)}}}\n\\end{{{environment}}}\n")
        if (i + 1) % FIGURES_PER_PAGE == 0:
            out.append("\\clearpage\n")
    return "".join(out)


def write_main_tex(folder: str | Path, *, title: str, page: Page = Page(), table_order: Sequence[str] = (),
                   include: Sequence[str | Path] = ()) -> Path:
    """Write ``folder/main.tex``, an ``article`` set on ``page``, inputting every ``table_*.tex`` there
    and ``figures.tex`` if present.

    ``table_order`` lists file names that come first, in that order (those absent are skipped);
    every ``*.tex`` of each ``include`` folder follows (e.g. the tables and figures of the paper's
    parameter report), by its path relative to ``folder``; the include folders are on the graphics
    path, so their figures name their images by file name.
    """
    folder = Path(folder)
    present = sorted(p.name for p in folder.glob("table_*.tex"))
    tables = [t for t in table_order if t in present] + [t for t in present if t not in table_order]
    graphics_path = []
    for extra in include:
        graphics_path.append(Path(os.path.relpath(extra, folder)).as_posix() + "/")
        tables += [Path(os.path.relpath(p, folder)).as_posix() for p in sorted(Path(extra).glob("*.tex"))]
    body = "".join(f"\\input{{{t}}}\n\\clearpage\n" for t in tables)
    if (folder / FIGURES).is_file():
        body += f"\\input{{{FIGURES}}}\n"
    text = (f"% Every table and figure of this folder; compile with: pdflatex {MAIN} (twice, for the references).\n"
            f"\\documentclass[{page.class_options}]{{article}}\n" + "".join(f"\\usepackage{{{p}}}\n" for p in PACKAGES)
            + ("\\graphicspath{" + "".join(f"{{{path}}}" for path in graphics_path) + "}\n" if graphics_path else "")
            + f"\\title{{{latex_escape(title)}}}\n\\date{{}}\n\\begin{{document}}\n\\maketitle\n"
            + f"{body}\\end{{document}}\n")
    return atomic_write_text(folder / MAIN, text)


def compile_pdf(tex: str | Path, *, timeout: float = 900.0) -> Path:
    """Run pdflatex twice on ``tex`` in its folder (the second run resolves references); return the PDF.

    Raises ConfigError when ``tex`` is no file, or pdflatex is missing or fails (naming its log when
    it wrote one, else saying so with the last line it printed).
    """
    tex = Path(tex)
    if not tex.is_file():
        raise ConfigError("LaTeX file not found", file=tex, expected="a .tex file (write_main_tex writes main.tex)")
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        raise ConfigError("pdflatex not found: install TeX Live (make latex)", field="--pdf")
    log = tex.with_suffix(".log")
    for _ in range(2):
        try:
            proc = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                                   tex.name], cwd=tex.parent, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ConfigError(f"pdflatex took more than {timeout:g} s", file=tex) from None
        if proc.returncode != 0 and log.is_file():
            raise ConfigError("pdflatex failed; see its log", file=log)
        if proc.returncode != 0:
            said = (proc.stdout + proc.stderr).strip().splitlines()
            raise ConfigError("pdflatex failed and wrote no log", file=tex,
                              found=said[-1] if said else f"exit code {proc.returncode} and no output")
    return tex.with_suffix(".pdf")

