"""Shared helpers for the snowflake_c tests."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import snowflake_c as sfc

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"

OWN_EPOCH = 1704067200000 + random.randrange(86_400_000)
"""This run's epoch, Unix ms: 2024-01-01 plus up to a day. The guard's claim is
host-wide and keyed on the epoch (not on folders), so generators on it never meet
another suite's on this machine, nor start behind the IDs another run left ahead
of the clock."""


def own(preset: sfc.PresetName) -> dict[str, Any]:
    """A preset's layout on this run's epoch, as Generator() keywords."""
    return {"layout": sfc.Layout.preset(preset).spec, "epoch": OWN_EPOCH}


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


@cache
def host_name_prefix() -> tuple[str, ...] | None:
    """A command prefix that runs a program under the host name given after it (a UTS
    namespace: ``unshare -u``, or ``unshare -ru`` without privileges), or None where
    this system cannot."""
    if shutil.which("unshare") is None:
        return None
    for unshare in (("unshare", "-u"), ("unshare", "-r", "-u")):
        prefix = (*unshare, "sh", "-c", 'hostname "$0" && exec "$@"')
        try:
            r = subprocess.run([*prefix, "orders-7", "hostname"], capture_output=True, text=True, timeout=30)
        except OSError:
            return None
        if r.returncode == 0 and r.stdout.strip() == "orders-7":
            return prefix
    return None


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


# Skips, by the convention of tests/skip: each one is added to the file
# SNOWFLAKE_C_SKIPS names (tests/run lists them at its end), and under
# SNOWFLAKE_C_NO_SKIP=1 (CI, where every check must run) it is a failure.
# Read here, before any test clears the SNOWFLAKE_* variables.
_SKIPS = os.environ.get("SNOWFLAKE_C_SKIPS")
_NO_SKIP = os.environ.get("SNOWFLAKE_C_NO_SKIP") == "1"


def _skip_seen(report: pytest.CollectReport | pytest.TestReport) -> None:
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    if _SKIPS:
        with open(_SKIPS, "a", encoding="utf-8") as f:
            f.write(f"python: {report.nodeid}: {reason}\n")
    if _NO_SKIP:
        report.outcome = "failed"
        report.longrepr = f"skipped, a failure here (SNOWFLAKE_C_NO_SKIP=1): {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    _skip_seen(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    outcome = yield
    _skip_seen(outcome.get_result())
