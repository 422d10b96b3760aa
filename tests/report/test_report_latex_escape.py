"""Any label is safe in LaTeX: a corpus of hostile labels (brackets and stars where a row starts,
line and paragraph separators, ligatures, control and format characters, every Latin-1 character,
characters pdflatex cannot typeset) is escaped, set as table rows and in a caption, and compiled
in one pdflatex run; the text of the PDF shows the labels that used to vanish."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata

import pytest

from pipeline.report.latex import latex_escape
from report_helpers import compile_tables

CORPUS = [
    "[2cm]", "[x]", "[", "]", "*", "*x", "[-1ex] x", "a\\\\[3pt]b", "\\\\", "\\", "%", "#", "&", "$x$", "_", "{", "}",
    "~", "^^M", "^^5c", "a^^5ce", "x~y", "``a''--b", "a---b", "!`", "?`", ",,x", "<<x>>", "'quoted'", '"x"',
    "a\u2028b", "a\u2029b", "a\u0085b", "a\nb", "a\n\nb", "a\r\nb", "\tTab", "\x00nul", "\x1b[31mred", "\x7f",
    "zero\u200bwidth", "bom\ufeff", "\u202eevil", "soft\u00adhyphen", "nb\u00a0sp", "em\u2003space",
    "\u2014dash\u2013", "\u00b1\u00d7\u2212\u2026\u2020\u2021\u2022\u2264\u2265", "\ufb01", "e\u0301", "\u00e9", "\u0151", "\u0142", "\u03b1\u03b2", "\u4e2d\u6587",
    "\U0001f600", "\ud800", "\uffff", "\ue000private", "\\input{/etc/passwd}", "\\def\\x{}", "\\end{tabular}",
    *("".join(chr(c) for c in range(start, min(start + 24, 0x100))) for start in range(0xA1, 0x100, 24)),
]


def test_every_label_compiles_and_prints(tmp_path):
    tables = []
    for part in range(0, len(CORPUS), 30):  # a float longer than the page would lose rows
        rows = "\n".join(f"{latex_escape(label)} & {i} \\\\" for i, label in enumerate(CORPUS[part:part + 30], part))
        tables.append(tmp_path / f"corpus{part}.tex")
        tables[-1].write_text("\\begin{table}\\centering\n\\begin{tabular}{ll}\nfirst & row \\\\\n" + rows
                              + "\n\\end{tabular}\n\\caption{" + " ".join(map(latex_escape, CORPUS[part:part + 30]))
                              + "}\n\\end{table}\n", encoding="utf-8")
    pdf = compile_tables(tables, tmp_path)
    if shutil.which("pdftotext") is None:
        pytest.fail("pdftotext is not installed (Debian poppler-utils)")
    text = subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    rows = re.findall(r"^(.*?) ?(\d+)$", text, re.MULTILINE)  # "<label as shown> <row number>"
    assert set(range(len(CORPUS))) <= {int(number) for _, number in rows}  # no row lost
    shown = {int(number): unicodedata.normalize("NFC", cell) for cell, number in rows if cell}
    visible = {"[2cm]": "[2cm]", "[x]": "[x]", "*x": "*x", "[-1ex] x": "[-1ex] x", "a\\\\[3pt]b": "a\\\\[3pt]b",
               "\\input{/etc/passwd}": "\\input{/etc/passwd}", "\\end{tabular}": "\\end{tabular}", "$x$": "$x$",
               "zero\u200bwidth": "zerowidth", "\u202eevil": "evil", "\ufb01": "fi", "e\u0301": "e", "\u00e9": "\u00e9",
               "a---b": "a---b", ",,x": ",,x", "a^^5ce": "a^^5ce", "x~y": "x~y"}
    for label, text_shown in visible.items():
        assert shown[CORPUS.index(label)] == text_shown, (label, shown[CORPUS.index(label)])


@pytest.mark.parametrize("label, escaped", [
    ("[2cm]", "{[}2cm{]}"), ("*x", "{*}x"), ("``a''--b", "`{}`a'{}'-{}-b"), ("!`?`", "!{}`?{}`"),
    ("a\u2028b\u2029c", "a b c"), ("x\u200b\u202ey", "xy"), ("\ufb01", "fi"), ("\u0151", "o"), ("\u03b1", "?"),
    ("Micro-F1", "Micro-F1"), ("caf\u00e9", "caf\u00e9"), ("seeds 0\u20134", "seeds 0\u20134"),
    ("\u00b1 \u2264", r"\ensuremath{\pm} \ensuremath{\le}"),
])
def test_escaped_forms(label, escaped):
    assert latex_escape(label) == escaped
