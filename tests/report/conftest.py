"""Fixtures for the report tests: synthetic result sets and a pdflatex runner."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from results_factory import write_result_set  # noqa: E402

METHODS = ["DAGFS", "LRMFS", "MIFS", "SCLS"]
DATASETS = ["CAL500", "emotions", "yeast"]
NASTY = "A&B_%$#{}~^\\"


@pytest.fixture(scope="session")
def kgrid_results(tmp_path_factory) -> Path:
    return write_result_set(tmp_path_factory.mktemp("kgrid"), METHODS, DATASETS, folds=3, grid="kgrid",
                            seed=1, n_features=[68, 72, 103])


@pytest.fixture(scope="session")
def pgrid_results(tmp_path_factory) -> Path:
    return write_result_set(tmp_path_factory.mktemp("pgrid"), METHODS, DATASETS, folds=3, grid="pgrid",
                            seed=2, n_features=[68, 72, 103])


def compile_tables(tex_files, workdir: Path) -> Path:
    """Compile every table inside one minimal article with pdflatex; fail with the log on error."""
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.fail("pdflatex is not installed: run `make latex` (Debian texlive-latex-base, "
                    "-recommended, -extra)")
    body = "\n".join(f"\\input{{{Path(f).resolve().as_posix()}}}\n\\clearpage" for f in tex_files)
    doc = workdir / "doc.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{amssymb}\n"
                   "\\begin{document}\n" + body + "\n\\end{document}\n")
    proc = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                           "doc.tex"], cwd=workdir, capture_output=True, text=True, timeout=180)
    if proc.returncode != 0:
        pytest.fail("pdflatex failed:\n" + proc.stdout[-3000:])
    return workdir / "doc.pdf"
