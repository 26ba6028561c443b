"""Fault rows on a real server: the postmaster killed (kill -9) while
clients insert, then started again with the wall clock set back by
libfaketime. The high-water mark in <data directory>/snowflake_c must keep
every later ID away from the earlier ones: with a clock field the generator
moves to another clock value, without one it refuses; it never repeats.

    SFC_PG_BIN=/usr/lib/postgresql/15/bin python3 -m unittest tests/postgres/test_faults.py
"""

from __future__ import annotations

import glob
import os
import subprocess
import time
import unittest

from pgserver import PsqlError, Server
from sqlcases import SQLSTATE

BIN = os.environ.get("SFC_PG_BIN", "")
# Epochs of these tests' own: no other generator of the machine holds their
# claims.
WITH_CLOCK = ("time:41@1ms,clock:3,worker:7,seq:12", "1700000000333")
WITHOUT_CLOCK = ("time:41@1ms,worker:10,seq:12", "1700000000444")
BACK = "-30s"  # the clock after the crash, behind every ID issued before
CLIENTS = 4
ROWS = 400


def faketime_library() -> str | None:
    found = glob.glob("/usr/lib/*/faketime/libfaketime.so.1") + glob.glob("/usr/lib/faketime/libfaketime.so.1")
    return found[0] if found else None


def settings(layout: tuple[str, str], rollback: str) -> dict[str, object]:
    spec, epoch = layout
    return {
        "snowflake_c.layout": spec,
        "snowflake_c.epoch": epoch,
        "snowflake_c.node": "worker=5",
        "snowflake_c.rollback": rollback,
    }


def insert_concurrently(pg: Server, rows: int) -> list[subprocess.Popen[str]]:
    """CLIENTS psql sessions inserting one row per statement, left running."""
    script = f"DO $$ BEGIN FOR i IN 1..{rows} LOOP INSERT INTO items DEFAULT VALUES; END LOOP; END $$;"
    return [
        subprocess.Popen(pg.psql_argv("-c", script), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(CLIENTS)
    ]


def start_after_crash(pg: Server, env: dict[str, str]) -> None:
    """The backends of the killed postmaster leave within moments; until
    they have, the server refuses to start on their shared memory."""
    deadline = time.monotonic() + 30
    while True:
        try:
            pg.start(env)
            return
        except subprocess.CalledProcessError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


@unittest.skipUnless(faketime_library(), "libfaketime not installed (Debian package faketime)")
class CrashWithClockBack(unittest.TestCase):
    def crash_then_clock_back(self, layout: tuple[str, str], rollback: str) -> tuple[set[int], Server]:
        """Rows inserted, the postmaster killed mid-insert, the server
        started again 30 s in the past; returns the IDs issued before."""
        pg = Server(BIN, settings=settings(layout, rollback))
        pg.__enter__()
        self.addCleanup(pg.__exit__, None, None, None)
        pg.sql("CREATE EXTENSION snowflake_c")
        pg.sql("CREATE TABLE items (id bigint PRIMARY KEY DEFAULT snowflake_c.next_id())")
        pg.sql(f"INSERT INTO items SELECT snowflake_c.next_id() FROM generate_series(1, {ROWS})")
        clients = insert_concurrently(pg, ROWS * 20)
        time.sleep(0.5)
        pg.kill()
        for c in clients:
            c.communicate(timeout=60)
        start_after_crash(pg, {"LD_PRELOAD": faketime_library() or "", "FAKETIME": BACK})
        before = {int(x) for x in pg.sql("SELECT id FROM items").split()}
        self.assertGreater(len(before), ROWS, "no row survived the crash")
        now_ms = int(pg.sql("SELECT (extract(epoch FROM now()) * 1000)::bigint"))
        self.assertLess(now_ms, time.time() * 1000 - 25000, "the server's clock is not set back")
        return before, pg

    def test_with_a_clock_field_it_moves_to_another_clock_value(self) -> None:
        before, pg = self.crash_then_clock_back(WITH_CLOCK, "clock")
        spec, epoch = WITH_CLOCK
        after = [int(x) for x in pg.sql("SELECT snowflake_c.next_id() FROM generate_series(1, 2000)").split()]
        self.assertEqual(len(after), len(set(after)))
        self.assertFalse(set(after) & before, "an ID issued before the crash was issued again")
        clocks_before = {
            int(x)
            for x in pg.sql(
                f"SELECT DISTINCT snowflake_c.field(id, 'clock', layout => '{spec}', epoch => '{epoch}') FROM items"
            ).split()
        }
        clock_after = int(
            pg.sql(f"SELECT snowflake_c.field({after[0]}, 'clock', layout => '{spec}', epoch => '{epoch}')")
        )
        self.assertNotIn(clock_after, clocks_before)
        pg.sql("INSERT INTO items SELECT snowflake_c.next_id() FROM generate_series(1, 500)")  # no duplicate key
        stats = pg.sql("SELECT snowflake_c.stats()->>'clock_bumps'")
        self.assertGreaterEqual(int(stats), 1)

    def test_without_a_clock_field_it_refuses(self) -> None:
        before, pg = self.crash_then_clock_back(WITHOUT_CLOCK, "default")
        result = pg.psql("\\set VERBOSITY verbose\nSELECT snowflake_c.next_id()", check=False)
        self.assertNotEqual(result.returncode, 0, f"an ID was issued 30 s in the past: {result.stdout}")
        self.assertIn(SQLSTATE["ClockMovedBackwards"], result.stderr)
        self.assertIn("clock moved backwards", result.stderr)
        with self.assertRaises(PsqlError):
            pg.sql("INSERT INTO items DEFAULT VALUES")
        self.assertEqual(len(before), int(pg.sql("SELECT count(*) FROM items")))


if __name__ == "__main__":
    unittest.main()
