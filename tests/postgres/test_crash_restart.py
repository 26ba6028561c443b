"""A backend killed with SIGKILL: the postmaster ends every backend, makes
its shared memory again and goes on (restart_after_crash, the default).
The auxiliary processes that live through that — the logger of
logging_collector above all — must hold nothing of the generator, or the
new one is refused as held by the postmaster's own value.

    SFC_PG_BIN=/usr/lib/postgresql/15/bin python3 -m unittest tests/postgres/test_crash_restart.py
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import unittest

from pgserver import PsqlError, Server

BIN = os.environ.get("SFC_PG_BIN", "")
# An epoch of this test's own: no other generator of the machine holds its
# claim.
SETTINGS = {
    "snowflake_c.layout": "time:41@1ms,clock:3,worker:7,seq:12",
    "snowflake_c.epoch": "1700000000555",
    "snowflake_c.node": "worker=6",
    "logging_collector": "on",
    "restart_after_crash": "on",
}


class CrashRestart(unittest.TestCase):
    def ids(self, pg: Server, n: int) -> set[int]:
        return {int(x) for x in pg.sql(f"SELECT snowflake_c.next_ids({n})").split()}

    def collected_log(self, pg: Server) -> str:
        """What the logger wrote (log/ in the data directory)."""
        return "".join(p.read_text(errors="replace") for p in sorted((pg.data / "log").glob("*")))

    def wait_for_restart(self, pg: Server) -> None:
        """Until the postmaster takes connections again after the crash."""
        deadline = time.monotonic() + 60
        while True:
            try:
                pg.sql("SELECT 1")
                return
            except PsqlError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def test_a_backend_killed_twice_the_server_generates_after_each(self) -> None:
        with Server(BIN, settings=SETTINGS) as pg:
            pg.sql("CREATE EXTENSION snowflake_c")
            seen = self.ids(pg, 2000)
            for crash in range(2):
                # A session of its own, asleep: the backend to kill.
                sleeper = subprocess.Popen(
                    pg.psql_argv("-c", "SELECT pg_sleep(60)"),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                self.addCleanup(sleeper.kill)
                pid = ""
                deadline = time.monotonic() + 30
                while not pid and time.monotonic() < deadline:
                    pid = pg.sql("SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' LIMIT 1")
                    time.sleep(0.05)
                self.assertTrue(pid, "the sleeping session never showed")
                os.kill(int(pid), signal.SIGKILL)
                sleeper.wait(timeout=60)
                self.wait_for_restart(pg)
                self.assertIn("terminating any other active server processes", self.collected_log(pg))
                after = self.ids(pg, 2000)  # refused before: held by the logger
                self.assertEqual(len(after), 2000)
                self.assertFalse(after & seen, f"crash {crash + 1}: an ID issued before the crash was issued again")
                seen |= after
            self.assertTrue(self.logger_running(pg), "no logger process: the test did not test it")

    def logger_running(self, pg: Server) -> bool:
        """A child of the postmaster that calls itself the logger."""
        parent = str(pg.postmaster_pid())
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as stat:
                    ppid = stat.read().rsplit(")", 1)[1].split()[1]
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    title = cmdline.read().decode(errors="replace")
            except (OSError, IndexError):
                continue
            if ppid == parent and "logger" in title:
                return True
        return False


if __name__ == "__main__":
    unittest.main()
