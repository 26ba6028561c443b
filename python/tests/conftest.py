"""Shared helpers for the snowflake_c tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"


def layout_kwargs(ref: dict[str, str]) -> dict[str, Any]:
    """A vector's layout reference as decode()/Generator() keywords."""
    if "preset" in ref:
        return {"preset": ref["preset"]}
    return {"layout": ref["spec"], "epoch": ref["epoch"]}


@pytest.fixture(autouse=True)
def _no_snowflake_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Node values never leak in from the environment."""
    for name in list(os.environ):
        if name.startswith("SNOWFLAKE_"):
            monkeypatch.delenv(name)


def find_cli() -> str | None:
    """The C snowflake-c command: $SNOWFLAKE_C_CLI, a build under build/, or PATH."""
    env = os.environ.get("SNOWFLAKE_C_CLI")
    if env:
        return env
    for candidate in sorted((ROOT / "build").glob("*/core/cli/snowflake-c")):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("snowflake-c")


@pytest.fixture(scope="session")
def cli() -> str:
    path = find_cli()
    if path is None:
        pytest.fail("the C CLI is needed: build it (meson setup build && ninja -C build) or set SNOWFLAKE_C_CLI")
    return path
