"""Write the default column of every method page's parameter table from the method's definition file.

    python scripts/render_method_defaults.py            # rewrite docs/methods/<METHOD>.md in place
    python scripts/render_method_defaults.py --check    # exit 1 naming the pages that are not current

A page's table ``| parameter | default | ... |`` names the parameters in its first column (backticked,
several per row allowed: ``| `alpha`, `beta` | 100, 0.1 | ... |``) and says where each default comes
from in the others; those columns are written by hand. The default column is written here, from
``python/pipeline/methods/definitions/<METHOD>.json`` (the file both engines read), so the page
never holds a second copy of a value. Rows without a backticked name are fixed constants of the
code, written by hand.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

from pipeline.definitions import METHOD_DEFINITIONS_DIR, method_definition

PAGES = Path(__file__).resolve().parents[1] / "docs" / "methods"
TABLE_HEADER = "| parameter | default |"
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
PARAMETER_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def written_value(value) -> str:
    """A default as the pages write it: ``10⁻⁶`` for powers of ten from 10³ on, ``true``, ```fast```."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"`{value}`"
    if isinstance(value, float) and value > 0 and abs(math.log10(value)) >= 3 and math.log10(value).is_integer():
        return "10" + str(int(math.log10(value))).translate(SUPERSCRIPT)
    return f"{value:g}" if isinstance(value, float) else str(value)


def rendered_page(text: str, defaults: dict, page: Path) -> str:
    """``text`` with its parameter table's default cells written from ``defaults``.

    Raises
    ------
    ValueError
        If the table names a parameter the method does not have, or leaves one out.
    """
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(TABLE_HEADER))
    named = []
    for i in range(start + 2, len(lines)):
        if not lines[i].startswith("|"):
            break
        cells = lines[i].rstrip("\n").split("|")
        names = PARAMETER_NAME.findall(cells[1])
        if not names:
            continue  # a fixed constant of the code
        unknown = [name for name in names if name not in defaults]
        if unknown:
            raise ValueError(f"{page}: the table names {unknown}, which the method's definition does not have")
        named += names
        cells[2] = " " + ", ".join(written_value(defaults[name]) for name in names) + " "
        lines[i] = "|".join(cells) + "\n"
    missing = sorted(set(defaults) - set(named))
    if missing:
        raise ValueError(f"{page}: the parameter table leaves out {missing}")
    return "".join(lines)


def stale_pages(write: bool) -> list[Path]:
    """The pages whose default cells differ from their definitions (rewritten when ``write``)."""
    stale = []
    for definition in sorted(METHOD_DEFINITIONS_DIR.glob("*.json")):
        defaults = method_definition(definition.stem).defaults
        page = PAGES / f"{definition.stem}.md"
        text = page.read_text(encoding="utf-8")
        rendered = rendered_page(text, defaults, page)
        if rendered != text:
            stale.append(page)
            if write:
                page.write_text(rendered, encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which pages are not current (exit 1)")
    args = parser.parse_args(argv)
    try:
        stale = stale_pages(write=not args.check)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for page in stale:
        print(f"{'not current' if args.check else 'rewritten'}: {page}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
