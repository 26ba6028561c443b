#!/usr/bin/env python3
"""`snowflake-c sql` on a real PostgreSQL with no extension.

For each layout of tests/vectors/decode.json and range.json, the SQL that
`snowflake-c sql` prints is loaded into a plain server (its own schema per
layout), and every vector is checked through SQL: decode_json gives the
canonical JSON byte for byte, decode the same as jsonb, time_ms, time and
field(id, name) the time and fields; a bigint the core refuses decodes to
NULL; range gives the vector's min and max, or no row where the core finds
none. A 64-bit layout's IDs are the bigints up to 2^63-1: range stops there
(and the command warns).

    tests/postgres/test_hosted_sql.py CLI

or, as tests/postgres/run runs it, unittest with SFC_CLI and SFC_PG_BIN.

The server is Debian's PostgreSQL 15 (/usr/lib/postgresql/15/bin, or
PG_BIN), started by pgserver.py without the extension: in a temporary
folder, on a Unix socket only, as `nobody` when run as root. Exit 77
(skipped) when no server is installed.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from pgserver import Server  # noqa: E402  (the server harness beside this file)

ROOT = HERE.parents[1]
VECTORS = ROOT / "tests" / "vectors"
PG_BIN = Path(os.environ.get("SFC_PG_BIN") or os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
BIGINT_MAX = 2**63 - 1
UTC = datetime.timezone.utc

passed = failed = 0
seen = {"decode": 0, "range": 0}  # vectors checked (in one session time zone)


def check(what: str, ok: bool, detail: str = "") -> None:
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}" + (f": {detail}" if detail else ""))


def run_sql(server: Server, sql: str, tz: str = "UTC") -> subprocess.CompletedProcess[str]:
    """psql on the server, columns separated by tabs, in session time zone tz."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["PGTZ"] = tz
    return subprocess.run(server.psql_argv("-F", "\t"), input=sql, capture_output=True, text=True, env=env, check=False)


def jsonb_text(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None


def layout_args(layout: dict[str, str]) -> list[str]:
    if "preset" in layout:
        return ["--preset", layout["preset"]]
    return ["--layout", layout["spec"], "--epoch", layout["epoch"]]


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def timestamptz(ms: int) -> str | None:
    """Unix ms as a timestamptz literal, exact (Python's datetime: years 1..9999)."""
    try:
        t = datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(milliseconds=ms)
    except OverflowError:
        return None
    return literal(t.isoformat()) + "::timestamptz"


def check_decode(server: Server, schema: str, vectors: list[dict], tz: str) -> None:
    rows = []
    for n, v in enumerate(vectors):
        if not v["id"].isdigit() or int(v["id"]) > BIGINT_MAX:
            continue  # no bigint: not an ID the functions can be given
        rows.append((n, v))
    if not rows:
        return
    if tz == "UTC":
        seen["decode"] += len(rows)
    s = f'"{schema}"'
    values = ", ".join(f"({n}, {v['id']}::bigint)" for n, v in rows)
    # One row per vector: the JSON text, the jsonb, time_ms, the tick's start
    # in Unix µs, and every field by name.
    query = (
        f"SELECT n, {s}.decode_json(id), {s}.decode(id)::text, {s}.time_ms(id),"
        f" (extract(epoch FROM {s}.decode_time(id)) * 1000000)::bigint, {s}.is_id(id)"
        f" FROM (VALUES {values}) v(n, id) ORDER BY n;\n"
    )
    for n, v in rows:
        for name in v.get("fields", {}):
            query += f"SELECT {n}, {literal(name)}, {s}.field({v['id']}::bigint, {literal(name)});\n"
    r = run_sql(server, query, tz)
    if r.returncode != 0:
        check(f"{schema}: decode queries run", False, r.stderr)
        return
    got: dict[int, list[str]] = {}
    fields: dict[tuple[int, str], str] = {}
    for line in r.stdout.splitlines():
        cols = line.split("\t")
        if len(cols) == 6:
            got[int(cols[0])] = cols[1:]
        elif len(cols) == 3:
            fields[(int(cols[0]), cols[1])] = cols[2]
    for n, v in rows:
        what = f"{schema} [TZ {tz}]: {v['description']}"
        text, as_jsonb, time_ms, time_us, is_id = got.get(n, ["?"] * 5)
        if "error" in v:
            check(f"{what}: decode_json is NULL", text == "" and as_jsonb == "" and time_ms == "", str(got.get(n)))
            check(f"{what}: is_id false", is_id == "f", is_id)
            continue
        want = json.loads(v["json"])
        check(f"{what}: decode_json", text == v["json"], f"SQL {text!r}, vector {v['json']!r}")
        check(f"{what}: decode (jsonb)", jsonb_text(as_jsonb) == want, as_jsonb)
        check(f"{what}: time_ms", time_ms == str(want["time_ms"]), time_ms)
        check(f"{what}: time", time_us != "" and int(time_us) // 1000 == want["time_ms"], time_us)
        for name, value in v.get("fields", {}).items():
            check(f"{what}: field {name}", fields.get((n, name)) == value, str(fields.get((n, name))))


def check_range(server: Server, schema: str, vectors: list[dict], tz: str) -> None:
    s = f'"{schema}"'
    query = ""
    used = []
    for n, v in enumerate(vectors):
        t0, t1 = timestamptz(int(v["t0_ms"])), timestamptz(int(v["t1_ms"]))
        if t0 is None or t1 is None:
            continue
        used.append((n, v))
        seen["range"] += tz == "UTC"
        query += f"SELECT {n}, lo, hi FROM {s}.range({t0}, {t1}) UNION ALL SELECT {n}, NULL, NULL;\n"
    r = run_sql(server, query, tz)
    if r.returncode != 0:
        check(f"{schema}: range queries run", False, r.stderr)
        return
    got: dict[int, list[tuple[str, str]]] = {}
    for line in r.stdout.splitlines():
        n, lo, hi = line.split("\t")
        got.setdefault(int(n), []).append((lo, hi))
    for n, v in used:
        rows = [x for x in got.get(n, []) if x != ("", "")]
        what = f"{schema} [TZ {tz}]: range {v['description']}"
        want = []
        if "error" not in v and int(v["min"]) <= BIGINT_MAX:
            # A 64-bit layout: the IDs up to the largest bigint, no further.
            want = [(v["min"], str(min(int(v["max"]), BIGINT_MAX)))]
        check(what, rows == want, f"SQL {rows}, vector {v.get('min')} {v.get('max')}")


def check_bigint_end(server: Server, schema: str) -> None:
    """Discord (64 bits: time 42 bits of ms from 2015-01-01, shift 22): the
    last tick a bigint holds is 2^41 - 1 ms after the epoch."""
    last = 1420070400000 + 2**41 - 1
    cases = [
        (last, last + 1, [(str((2**41 - 1) << 22), str(BIGINT_MAX))]),
        (last - 1, last + 2, [(str((2**41 - 2) << 22), str(BIGINT_MAX))]),
        (last + 1, last + 2, []),
    ]
    for t0, t1, want in cases:
        r = run_sql(server, f'SELECT lo, hi FROM "{schema}".range({timestamptz(t0)}, {timestamptz(t1)});')
        rows = [tuple(line.split("\t")) for line in r.stdout.splitlines()]
        check(f"{schema}: range [{t0}, {t1}) at the end of bigint", r.returncode == 0 and rows == want, str(rows))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    cli = argv[0]
    if not (PG_BIN / "initdb").exists():
        print(f"skipped: no PostgreSQL in {PG_BIN}")
        return 77
    decode = json.loads((VECTORS / "decode.json").read_text(encoding="utf-8"))
    ranges = json.loads((VECTORS / "range.json").read_text(encoding="utf-8"))
    layouts: dict[str, dict[str, str]] = {}
    for v in decode + ranges:
        layouts[json.dumps(v["layout"], sort_keys=True)] = v["layout"]
    with Server(PG_BIN, preload=False) as server:
        for k, (key, layout) in enumerate(sorted(layouts.items())):
            schema = f"sfc_{layout.get('preset', k)}"
            printed = subprocess.run(
                [cli, "sql", *layout_args(layout), "--schema", schema], capture_output=True, text=True, check=False
            )
            spec = subprocess.run(
                [cli, "layout", *layout_args(layout), "--json"], capture_output=True, text=True, check=True
            )
            wide = json.loads(spec.stdout)["total_bits"] == 64
            check(
                f"{key}: sql prints",
                printed.returncode == 0 and (("bigint" in printed.stderr) if wide else not printed.stderr),
                printed.stderr,
            )
            loaded = run_sql(server, printed.stdout)
            check(f"{key}: the SQL loads into a plain server", loaded.returncode == 0, loaded.stderr)
            if loaded.returncode != 0:
                continue
            mine_d = [v for v in decode if json.dumps(v["layout"], sort_keys=True) == key]
            mine_r = [v for v in ranges if json.dumps(v["layout"], sort_keys=True) == key]
            # The session's time zone changes nothing: UTC and one far from it.
            for tz in ("UTC", "Pacific/Chatham"):
                check_decode(server, schema, mine_d, tz)
                check_range(server, schema, mine_r, tz)
            if layout == {"preset": "discord"}:
                check_bigint_end(server, schema)
    print(f"{seen['decode']} of {len(decode)} decode and {seen['range']} of {len(ranges)} range vectors checked")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


class HostedSql(unittest.TestCase):
    """The runner's entry: the CLI of SFC_CLI, the server of SFC_PG_BIN."""

    def test_vectors_through_plain_sql(self) -> None:
        cli = os.environ.get("SFC_CLI")
        if not cli:
            self.skipTest("SFC_CLI names no snowflake-c command")
        self.assertEqual(main([cli]), 0, "see the FAIL lines above")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
