"""A throwaway PostgreSQL server for the integration tests (the harness of
tests/postgres/pgserver.py: initdb in a temporary folder as an unprivileged
user, a Unix socket, no TCP port), or a skip saying what is missing."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))


@contextmanager
def postgres_server() -> Iterator[Any]:
    """A started pgserver.Server (database `postgres`, superuser `postgres`,
    trust over the socket in `.socket_dir`), stopped and removed on exit."""
    if not (PG_BIN / "initdb").exists():
        pytest.skip(f"no PostgreSQL server in {PG_BIN} (scripts/setup installs postgresql-15)")
    pytest.importorskip("psycopg")
    sys.path.insert(0, str(ROOT / "tests" / "postgres"))
    try:
        from pgserver import Server  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    with Server(PG_BIN, preload=False) as pg:
        yield pg
