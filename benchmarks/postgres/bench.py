"""The SQL extension under pgbench: snowflake_c.next_id() beside nextval() of
a sequence and gen_random_uuid(), on a real server this script starts (Debian's
PostgreSQL, a temporary folder, a Unix socket; tests/postgres/pgserver.py).

Two scenarios, each with 1 and 8 clients: `select` (one call per transaction)
and `insert` (one row per transaction into a table whose primary key has the
contender as its default, with the primary-key index). Contenders run one
after the other within a round, rounds repeat, and each row is the median
transactions/s of the rounds. Every inserted row is counted against the
transactions pgbench reports, so a failed insert (a duplicate key) fails the
run.

    benchmarks/postgres/run [--quick] [--json FILE] [--readme FILE]...
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "postgres"))
from pgserver import Server  # noqa: E402

CONTENDERS = {
    "snowflake_c.next_id()": ("bigint", "snowflake_c.next_id()"),
    "nextval() of a sequence": ("bigint", "nextval('ids')"),
    "gen_random_uuid()": ("uuid", "gen_random_uuid()"),
}
OURS = "snowflake_c.next_id()"
BEGIN, END = "<!-- postgres:begin -->", "<!-- postgres:end -->"
CLIENTS = (1, 8)
# The generator's node value; an epoch of the benchmark's own keeps its claim
# apart from any other generator of the machine.
SETTINGS = {
    "snowflake_c.layout": "time:41@1ms,worker:10,seq:12",
    "snowflake_c.epoch": "1700000000999",
    "snowflake_c.node": "worker=1",
    "max_connections": "40",
}


def newest_bin() -> Path:
    configs = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_config"), key=lambda p: int(p.parts[-3]))
    if not configs:
        sys.exit("benchmarks/postgres: no PostgreSQL server headers (pg_config); run scripts/setup")
    return configs[-1].parent


def install(bin_dir: Path) -> None:
    """Builds the extension with PGXS and installs it into that major."""
    build = ROOT / "build" / "bench-postgres" / bin_dir.parts[-2]
    build.mkdir(parents=True, exist_ok=True)
    make = ["make", "-C", str(build), "-f", str(ROOT / "bindings/postgres/Makefile"), f"PG_CONFIG={bin_dir}/pg_config"]
    subprocess.run([*make, "-j2"], check=True, stdout=subprocess.DEVNULL)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run([*sudo, *make, "install"], check=True, stdout=subprocess.DEVNULL)


def pgbench(pg: Server, script: str, clients: int, seconds: float) -> tuple[float, int]:
    """Transactions/s (without the connection time) and how many ran."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as f:
        f.write(script + "\n")
        f.flush()
        os.chmod(f.name, 0o644)
        argv = [str(pg.bin / "pgbench"), "-n", "-f", f.name, "-c", str(clients), "-j", str(min(clients, 2))]
        argv += ["-T", str(max(1, round(seconds))), "-h", str(pg.socket_dir), "-U", "postgres", "postgres"]
        out = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "PGTZ": "UTC"})
    if out.returncode != 0:
        raise RuntimeError(f"pgbench failed ({out.returncode}): {out.stderr.strip() or out.stdout.strip()}")
    tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out.stdout)
    done = re.search(r"number of transactions actually processed: (\d+)", out.stdout)
    if not tps or not done:
        raise RuntimeError(f"pgbench printed no rate:\n{out.stdout}")
    return float(tps.group(1)), int(done.group(1))


def run(rounds: int, seconds: float) -> dict[str, object]:
    bin_dir = newest_bin()
    install(bin_dir)
    results = []
    with Server(bin_dir, settings=SETTINGS) as pg:
        pg.sql("CREATE EXTENSION snowflake_c; CREATE SEQUENCE ids;")
        tables = {}
        for i, (name, (kind, default)) in enumerate(CONTENDERS.items()):
            tables[name] = f"rows_{i}"
            pg.sql(f"CREATE TABLE rows_{i} (id {kind} PRIMARY KEY DEFAULT {default})")
        version = pg.sql("SHOW server_version")
        rates: dict[tuple[str, str, int], list[float]] = {}
        inserted: dict[str, int] = {name: 0 for name in CONTENDERS}
        for _ in range(rounds):
            for clients in CLIENTS:
                for scenario in ("select", "insert"):
                    for name, (_, default) in CONTENDERS.items():
                        script = (
                            f"SELECT {default};"
                            if scenario == "select"
                            else f"INSERT INTO {tables[name]} DEFAULT VALUES;"
                        )
                        tps, done = pgbench(pg, script, clients, seconds)
                        rates.setdefault((scenario, name, clients), []).append(tps)
                        if scenario == "insert":
                            inserted[name] += done
        for name, table in tables.items():
            rows = int(pg.sql(f"SELECT count(*) FROM {table}"))
            if rows != inserted[name]:
                raise RuntimeError(f"{name}: {inserted[name]} inserts reported, {rows} rows in the table")
        ids = [int(x) for x in pg.sql("SELECT snowflake_c.next_id() FROM generate_series(1, 10000)").split()]
        if len(set(ids)) != len(ids):
            raise RuntimeError("snowflake_c.next_ids repeated an ID")
    for (scenario, name, clients), values in rates.items():
        ours = statistics.median(rates[(scenario, OURS, clients)])
        results.append(
            {
                "scenario": scenario,
                "contender": name,
                "clients": clients,
                "rounds": len(values),
                "tps": {"median": statistics.median(values), "min": min(values), "max": max(values)},
                "snowflake_c_ratio": None if name == OURS else ours / statistics.median(values),
            }
        )
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": "benchmarks/postgres/run" + (" --quick" if rounds < 3 else ""),
        "postgresql": version,
        "machine": {
            "cores": os.cpu_count(),
            "arch": platform.machine(),
            "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        },
        "seconds_per_run": seconds,
        "rows_inserted": inserted,
        "results": results,
    }


def markdown(doc: dict) -> str:
    m = doc["machine"]
    out = [
        f"Run of {doc['date']}, `{doc['command']}`, PostgreSQL {doc['postgresql']}, {m['cores']} cores ({m['arch']}), "
        f"load average {m['load_average']} at the end; medians of {doc['results'][0]['rounds']} rounds of "
        f"{doc['seconds_per_run']:g} s each, transactions per second:",
        "",
        "| scenario | clients | snowflake_c.next_id() | nextval() | gen_random_uuid() | × nextval() | × uuid |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    by = {(r["scenario"], r["contender"], r["clients"]): r for r in doc["results"]}
    for scenario in ("select", "insert"):
        for clients in CLIENTS:
            row = [by[(scenario, name, clients)] for name in CONTENDERS]
            out.append(
                f"| {scenario} | {clients} | "
                + " | ".join(f"{r['tps']['median']:,.0f}" for r in row)
                + f" | {row[1]['snowflake_c_ratio']:.2f} | {row[2]['snowflake_c_ratio']:.2f} |"
            )
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: its figures mean nothing")
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument(
        "--readme", type=Path, action="append", default=[], help="rewrite this file's PostgreSQL results section"
    )
    args = ap.parse_args()
    doc = run(rounds=1 if args.quick else 5, seconds=1 if args.quick else 4)
    text = markdown(doc)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    for readme in args.readme:
        old = readme.read_text()
        start, end = old.index(BEGIN) + len(BEGIN), old.index(END)
        readme.write_text(old[:start] + "\n" + text + "\n" + old[end:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
