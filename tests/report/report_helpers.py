"""Shared names and the pdflatex runner of the report tests (a uniquely named module, so that
``import`` never picks another folder's conftest)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

METHODS = ["DAGFS", "LRMFS", "MIFS", "SCLS"]
DATASETS = ["CAL500", "emotions", "yeast"]
NASTY = "A&B_%$#{}~^\\"
SEEDED = {"SCLS": [0, 1, 2, 3, 4]}


def compile_tables(tex_files, workdir: Path) -> Path:
    """Compile every table inside one minimal article with pdflatex; fail with the log on error."""
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.fail("pdflatex is not installed: run `make latex` (Debian texlive-latex-base, "
                    "-recommended, -extra)")
    body = "\n".join(f"\\input{{{Path(f).resolve().as_posix()}}}\n\\clearpage" for f in tex_files)
    doc = workdir / "doc.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{amssymb}\n\\usepackage{graphicx}\n"
                   "\\begin{document}\n" + body + "\n\\end{document}\n")
    proc = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                           "doc.tex"], cwd=workdir, capture_output=True, text=True, errors="replace",
                          timeout=180)
    if proc.returncode != 0:
        pytest.fail("pdflatex failed:\n" + proc.stdout[-3000:])
    return workdir / "doc.pdf"


def overfull_boxes(workdir: Path) -> list[str]:
    """The "Overfull \\hbox" warnings of the last :func:`compile_tables` run in ``workdir``."""
    log = (workdir / "doc.log").read_text(encoding="latin-1")
    return [line for line in log.splitlines() if line.startswith("Overfull \\hbox")]
