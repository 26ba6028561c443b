"""Helpers of the SQL suites: SQL literals, the error table, and many
expressions evaluated in one psql session, each one's value or error
returned as a dict.

The SQLSTATE of each error kind is the extension's documented table
(bindings/postgres/errors.c), written here again so that a change on
either side fails the tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"

SQLSTATE = {
    "InvalidLayout": "22S01",
    "InvalidArgument": "22S02",
    "ClockMovedBackwards": "55S03",
    "TimeExhausted": "22S04",
    "GeneratorForked": "55S05",
    "WorkerUnavailable": "55S06",
    "StateError": "58S07",
    "OutOfMemory": "53200",
    "LeaseExpired": "55S10",
}

INT64_MAX = 2**63 - 1

# Evaluates one expression: {"ok": its text} or the error's fields.
ATTEMPT = """
CREATE FUNCTION pg_temp.attempt(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE r text; st text; msg text; det text;
BEGIN
  EXECUTE 'SELECT (' || q || ')::text' INTO r;
  RETURN json_build_object('ok', r)::text;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                          det = PG_EXCEPTION_DETAIL;
  RETURN json_build_object('sqlstate', st, 'message', msg, 'detail', det)::text;
END $f$;
"""


def lit(text: str) -> str:
    """A SQL string literal (standard_conforming_strings is on)."""
    if "\0" in text:
        raise ValueError("SQL text cannot hold a NUL")
    return "'" + text.replace("'", "''") + "'"


def layout_args(ref: dict) -> str:
    """The named layout arguments of a vector's layout reference."""
    if "preset" in ref:
        return f"preset => {lit(ref['preset'])}"
    return f"layout => {lit(ref['spec'])}, epoch => {lit(ref['epoch'])}"


def ms_to_timestamptz(ms: int) -> str:
    """Unix ms as an exact timestamptz expression (no float rounding)."""
    return f"(timestamptz 'epoch' + {ms // 1000} * interval '1 second' + {ms % 1000} * interval '1 millisecond')"


def evaluate(server, expressions: list[str]) -> list[dict]:
    """Each expression's {"ok": text} or {"sqlstate", "message", "detail"}."""
    script = [ATTEMPT]
    script += [f"SELECT pg_temp.attempt({lit(e)});" for e in expressions]
    lines = server.sql("\n".join(script)).split("\n") if expressions else []
    if len(lines) != len(expressions):
        raise AssertionError(f"{len(expressions)} expressions gave {len(lines)} lines")
    return [json.loads(line) for line in lines]


def load(name: str) -> list[dict]:
    return json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))


def cli() -> str | None:
    """The CLI to compare with (SFC_CLI), if the runner built one."""
    path = os.environ.get("SFC_CLI")
    return path if path and os.access(path, os.X_OK) else None


def cli_run(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWFLAKE_")}
    return subprocess.run([cli(), *args], capture_output=True, text=True, env=env)


def cli_layout_args(ref: dict) -> list[str]:
    if "preset" in ref:
        return ["--preset", ref["preset"]]
    return ["--layout", ref["spec"], "--epoch", ref["epoch"]]


def cli_error(result: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """(kind, message) of the CLI's "snowflake-c: Kind: message" line."""
    line = result.stderr.strip().splitlines()[-1]
    prefix, kind, message = line.split(": ", 2)
    assert prefix == "snowflake-c", line
    return kind, message
