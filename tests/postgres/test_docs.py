"""docs/postgres.md as written: a server started with the page's own
postgresql.conf block, then every ```sql block of the page in order, each
one's output compared with the ```text block that follows it (a block with
none must just succeed).

    SFC_PG_BIN=/usr/lib/postgresql/15/bin python3 -m unittest tests/postgres/test_docs.py
"""

from __future__ import annotations

import os
import re
import unittest
from pathlib import Path

from pgserver import Server

BIN = os.environ.get("SFC_PG_BIN", "")
PAGE = Path(__file__).resolve().parents[2] / "docs" / "postgres.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(PAGE.read_text(encoding="utf-8"))]


def page_settings() -> dict[str, object]:
    """The postgresql.conf block's settings, but shared_preload_libraries,
    which the server harness sets itself."""
    conf = next(text for kind, text in blocks() if kind == "ini")
    pairs = (line.split("=", 1) for line in conf.splitlines() if "=" in line)
    settings = {k.strip(): v.strip().strip("'") for k, v in pairs}
    settings.pop("shared_preload_libraries")
    return settings


class PostgresPage(unittest.TestCase):
    def test_examples_run_as_written(self) -> None:
        found = blocks()
        with Server(BIN, settings=page_settings()) as pg:
            ran = 0
            for i, (kind, text) in enumerate(found):
                if kind != "sql":
                    continue
                out = pg.sql(text)
                ran += 1
                follows = found[i + 1] if i + 1 < len(found) else None
                if follows and follows[0] == "text":
                    self.assertEqual(out, follows[1].rstrip("\n"), f"docs/postgres.md, the SQL block:\n{text}")
        self.assertGreaterEqual(ran, 6, "the page lost its SQL examples")


if __name__ == "__main__":
    unittest.main()
