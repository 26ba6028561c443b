"""Checks that the examples of docs/integrations/java-*.md are the tested sources.

A fenced block right after a line ``<!-- tested: PATH -->`` must be the file PATH (from
the repository's root) byte for byte; every page must have one such block at least.
Usage: python3 java-integrations/check_docs.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("java-hibernate.md", "java-jackson.md", "java-spring-boot.md")
TESTED = re.compile(r"<!-- tested: (\S+) -->\n```\w*\n(.*?)```\n", re.S)


def check(page: Path) -> list[str]:
    text = page.read_text()
    problems = []
    found = TESTED.findall(text)
    if not found:
        problems.append(f"{page.name}: no tested example")
    if len(found) != text.count("<!-- tested: "):
        problems.append(f"{page.name}: a tested marker without its fenced block")
    for path, block in found:
        source = ROOT / path
        if not source.is_file():
            problems.append(f"{page.name}: {path} does not exist")
        elif source.read_text() != block:
            problems.append(f"{page.name}: the block of {path} differs from the file")
    return problems


def main() -> int:
    problems = []
    for name in PAGES:
        problems += check(ROOT / "docs" / "integrations" / name)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"docs check ok: the examples of {', '.join(PAGES)} are the tested sources")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
