"""The code blocks of the integration pages in docs/integrations, for the
tests that run them as written.

A block whose first line is ``# file: PATH`` is a file of the example (a
settings module, an app): the tests write it to PATH. Any other ``python``
block is a script to run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from conftest import ROOT

DOCS = ROOT / "docs" / "integrations"
FILE = re.compile(r"# file: (\S+)\n")


class Block(NamedTuple):
    lang: str
    code: str
    file: str | None


def blocks(page: str) -> list[Block]:
    """The fenced blocks of docs/integrations/<page>, in order."""
    text = (DOCS / page).read_text()
    found = []
    for lang, code in re.findall(r"```(\w+)\n(.*?)```", text, flags=re.S):
        named = FILE.match(code)
        found.append(Block(lang, code, named[1] if named else None))
    return found


def scripts(page: str) -> list[str]:
    """The python blocks of a page that are scripts, not files."""
    return [b.code for b in blocks(page) if b.lang == "python" and b.file is None]


def write_files(page: str, folder: Path) -> list[Path]:
    """Writes the page's ``# file:`` blocks under folder; returns their paths."""
    written = []
    for block in blocks(page):
        if block.file is not None:
            path = folder / block.file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.code)
            written.append(path)
    return written


def commands(page: str) -> list[str]:
    """The command lines of the page's sh blocks (comments and blanks left out)."""
    lines = []
    for block in blocks(page):
        if block.lang == "sh":
            for line in block.code.splitlines():
                line = line.split("  #", 1)[0].strip()
                if line and not line.startswith("#"):
                    lines.append(line)
    return lines
