"""Generation on a real server: one shared generator for every backend.

Concurrent clients insert with next_id() as a primary key's default (zero
duplicate-key errors, every ID of the configured node); next_ids(n); the
settings (unset node, no shared_preload_libraries, a change while running);
a restart and a crash-restart cycle (a backend killed: the postmaster makes
shared memory anew and takes the node value's claim again); two servers on
one node value.

    SFC_PG_BIN=/usr/lib/postgresql/15/bin python3 -m unittest tests/postgres/test_generation.py
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import unittest

from pgserver import PsqlError, Server
from sqlcases import SQLSTATE, evaluate, load

BIN = os.environ.get("SFC_PG_BIN", "")
# An epoch of these tests' own, so that no other generator of the machine
# holds the claims they take.
LAYOUT = "time:41@1ms,datacenter:5,worker:5,seq:12"
EPOCH = "1700000000777"
SETTINGS = {"snowflake_c.layout": LAYOUT, "snowflake_c.epoch": EPOCH, "snowflake_c.node": "datacenter=1,worker=3"}
DECODE = f"layout => '{LAYOUT}', epoch => '{EPOCH}'"

CLIENTS = 8
ROWS_PER_CLIENT = 1500


def wait_for(condition, seconds: float = 15) -> bool:
    """Polls `condition` until it holds or `seconds` have passed."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def field(server: Server, ident: str, name: str) -> int:
    return int(server.sql(f"SELECT snowflake_c.field({ident}, '{name}', {DECODE})"))


class SharedGenerator(unittest.TestCase):
    server: Server

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = Server(BIN, settings=SETTINGS)
        cls.server.__enter__()
        cls.server.sql("CREATE EXTENSION snowflake_c")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.__exit__(None, None, None)

    def test_concurrent_inserts(self) -> None:
        pg = self.server
        pg.sql("CREATE TABLE items (id bigint PRIMARY KEY DEFAULT snowflake_c.next_id(), client int, n int)")
        # Each client inserts one row per statement, so that the backends'
        # calls interleave.
        script = (
            "DO $$ BEGIN FOR i IN 1..{rows} LOOP INSERT INTO items (client, n) VALUES ({client}, i); END LOOP; END $$;"
        )
        clients = [
            subprocess.Popen(
                pg.psql_argv("-c", script.format(rows=ROWS_PER_CLIENT, client=c)),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for c in range(CLIENTS)
        ]
        errors = []
        for client in clients:
            _, err = client.communicate(timeout=120)
            if client.returncode != 0:
                errors.append(err)
        self.assertEqual(errors, [], "no client may fail (a duplicate key is an error)")
        rows = pg.sql(
            "SELECT count(*), count(DISTINCT id), count(DISTINCT client), "
            f"count(*) FILTER (WHERE snowflake_c.field(id, 'datacenter', {DECODE}) = 1 "
            f"AND snowflake_c.field(id, 'worker', {DECODE}) = 3) FROM items"
        )
        total = CLIENTS * ROWS_PER_CLIENT
        self.assertEqual(rows, f"{total}|{total}|{CLIENTS}|{total}")
        # Per client, its rows' IDs increase with its insert order.
        out_of_order = pg.sql(
            "SELECT count(*) FROM (SELECT id < lag(id) OVER (PARTITION BY client ORDER BY n) AS back "
            "FROM items) s WHERE back"
        )
        self.assertEqual(out_of_order, "0")

    def test_parallel_workers(self) -> None:
        """next_id() is PARALLEL SAFE: parallel workers draw from the same
        shared generator, and the IDs stay unique."""
        parallel = (
            "SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; "
            "SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;\n"
        )
        query = "SELECT count(*), count(DISTINCT x) FROM (SELECT snowflake_c.next_id() AS x FROM rows) s"
        pg = self.server
        pg.sql("CREATE TABLE rows AS SELECT g FROM generate_series(1, 200000) g; ANALYZE rows")
        plan = pg.sql(f"{parallel}EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) {query}")
        self.assertRegex(plan, r"Workers Launched: [12]")
        self.assertEqual(pg.sql(f"{parallel}{query}"), "200000|200000")

    def test_next_ids(self) -> None:
        ids = [int(x) for x in self.server.sql("SELECT * FROM snowflake_c.next_ids(5000)").split("\n")]
        self.assertEqual(len(ids), 5000)
        self.assertEqual(ids, sorted(set(ids)), "increasing and unique")
        after = int(self.server.sql("SELECT snowflake_c.next_id()"))
        self.assertGreater(after, ids[-1])
        self.assertEqual(self.server.sql("SELECT count(*) FROM snowflake_c.next_ids(0)"), "0")
        got = evaluate(self.server, ["(SELECT count(*) FROM snowflake_c.next_ids(-1))"])[0]
        self.assertEqual(got["sqlstate"], SQLSTATE["InvalidArgument"])

    def test_stats(self) -> None:
        self.server.sql("SELECT snowflake_c.next_id()")
        stats = json.loads(self.server.sql("SELECT snowflake_c.stats()"))
        self.assertEqual(stats["node"], {"datacenter": 1, "worker": 3})
        self.assertEqual(stats["node_sources"], {"datacenter": "explicit", "worker": "explicit"})
        self.assertGreaterEqual(stats["ids_issued"], 1)
        self.assertTrue(stats["guard"].startswith("held: "), stats["guard"])

    def test_decode_reads_the_servers_layout(self) -> None:
        # No layout named: the server's own (snowflake_c.layout and .epoch),
        # never a guess.
        id_ = self.server.sql("SELECT snowflake_c.next_id()")
        plain = self.server.sql(f"SELECT snowflake_c.decode_json({id_})")
        named = self.server.sql(f"SELECT snowflake_c.decode_json({id_}, {DECODE})")
        self.assertEqual(plain, named)
        self.assertIn('"worker":3', plain)

    def test_state_folder(self) -> None:
        folder = self.server.data / "snowflake_c"
        self.assertTrue(folder.is_dir())
        self.assertEqual(folder.stat().st_mode & 0o777, 0o700)

    def test_setting_changed_while_running(self) -> None:
        """A changed node value waits for a restart: the running generator
        keeps its own."""
        pg = self.server
        with open(pg.data / "postgresql.auto.conf", "a", encoding="utf-8") as conf:
            conf.write("snowflake_c.node = 'datacenter=2,worker=4'\n")
        try:
            pg.sql("SELECT pg_reload_conf()")
            refused = 'parameter "snowflake_c.node" cannot be changed without restarting the server'
            self.assertTrue(wait_for(lambda: refused in pg.log()), "the reload was not logged")
            ident = pg.sql("SELECT snowflake_c.next_id()")
            self.assertEqual((field(pg, ident, "datacenter"), field(pg, ident, "worker")), (1, 3))
        finally:
            text = (pg.data / "postgresql.auto.conf").read_text(encoding="utf-8")
            (pg.data / "postgresql.auto.conf").write_text(
                text.replace("snowflake_c.node = 'datacenter=2,worker=4'\n", ""), encoding="utf-8"
            )
            pg.sql("SELECT pg_reload_conf()")


class Restarts(unittest.TestCase):
    def test_restart_and_crash_restart(self) -> None:
        with Server(BIN, settings=SETTINGS) as pg:
            pg.sql("CREATE EXTENSION snowflake_c")
            first = int(pg.sql("SELECT max(i) FROM snowflake_c.next_ids(1000) i"))
            pg.restart()
            second = int(pg.sql("SELECT snowflake_c.next_id()"))
            self.assertGreater(second, first)
            # A backend killed: the postmaster ends every session, frees
            # shared memory (and the generator with it) and makes it anew.
            backend = int(pg.sql("SELECT pg_backend_pid()"))
            victim = subprocess.Popen(pg.psql_argv("-c", "SELECT pg_sleep(60)"), stderr=subprocess.DEVNULL)
            pids: list[str] = []

            def sleeping() -> bool:
                pids[:] = pg.sql("SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%'").split()
                return len(pids) == 1

            self.assertTrue(wait_for(sleeping), "the sleeping session did not start")
            os.kill(int(pids[0]), signal.SIGKILL)
            victim.wait(timeout=30)
            self.assertNotEqual(backend, int(pids[0]))
            third = None
            deadline = time.monotonic() + 30
            while third is None and time.monotonic() < deadline:
                try:
                    third = int(pg.sql("SELECT snowflake_c.next_id()"))
                except PsqlError as e:
                    if "recovery" not in str(e) and "shut down" not in str(e) and "connect" not in str(e):
                        raise
                    time.sleep(0.2)
            self.assertIn("all server processes terminated; reinitializing", pg.log())
            self.assertIsNotNone(third, pg.log()[-2000:])
            self.assertGreater(third, second)
            self.assertNotIn("no generator", pg.log())


class Settings(unittest.TestCase):
    def test_unset_node(self) -> None:
        settings = {k: v for k, v in SETTINGS.items() if k != "snowflake_c.node"}
        with Server(BIN, settings=settings) as pg:
            pg.sql("CREATE EXTENSION snowflake_c")
            got = evaluate(pg, ["snowflake_c.next_id()", f"snowflake_c.decode_json(5, {DECODE})"])
            self.assertEqual(got[0]["sqlstate"], SQLSTATE["InvalidArgument"])
            self.assertIn("snowflake_c.node is not set", got[0]["message"])
            self.assertIn("ok", got[1])
            self.assertIn("snowflake_c: no generator, next_id() will fail", pg.log())

    def test_no_preload(self) -> None:
        with Server(BIN, settings=SETTINGS, preload=False) as pg:
            pg.sql("CREATE EXTENSION snowflake_c")
            got = evaluate(
                pg, ["snowflake_c.next_id()", "snowflake_c.decode_json(175928847299117063, preset => 'discord')"]
            )
            self.assertEqual(got[0]["sqlstate"], "55000")
            self.assertIn("shared_preload_libraries = 'snowflake_c'", got[0]["message"])
            discord = next(c for c in load("decode") if c["id"] == "175928847299117063")
            self.assertEqual(got[1], {"ok": discord["json"]})

    def test_bad_setting_leaves_decoding(self) -> None:
        with Server(BIN, settings={**SETTINGS, "snowflake_c.rollback": "sideways"}) as pg:
            pg.sql("CREATE EXTENSION snowflake_c")
            got = evaluate(pg, ["snowflake_c.next_id()", "snowflake_c.decode_json(5, preset => 'twitter')"])
            self.assertEqual(got[0]["sqlstate"], SQLSTATE["InvalidArgument"])
            self.assertIn("sideways", got[0]["message"])
            self.assertIn("ok", got[1])

    def test_two_servers_one_node_value(self) -> None:
        """The host-wide claim: a second server with the same node value
        (and ID space) gets no generator."""
        with Server(BIN, settings=SETTINGS) as first, Server(BIN, settings=SETTINGS) as second:
            for pg in (first, second):
                pg.sql("CREATE EXTENSION snowflake_c")
            self.assertTrue(first.sql("SELECT snowflake_c.next_id()").isdigit())
            got = evaluate(second, ["snowflake_c.next_id()"])[0]
            self.assertEqual(got["sqlstate"], SQLSTATE["WorkerUnavailable"], got)


if __name__ == "__main__":
    unittest.main()
