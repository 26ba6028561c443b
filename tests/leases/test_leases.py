"""Leases of node values from PostgreSQL, on a real server (tests/leases/run).

Every holder runs with the guard off or in a network namespace of its own, as
on separate hosts: the host-wide claim and its hand-over cannot help, only the
lease can. IDs are collected from every process and checked for duplicates.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "postgres"))
from pgserver import Server  # noqa: E402

CLI = os.environ.get("SFC_CLI", "snowflake-c")
PG_BIN = os.environ.get("SFC_PG_BIN", "/usr/lib/postgresql/15/bin")
LONG = os.environ.get("SFC_LEASES_LONG") == "1"
EPOCH = 1704067200000


def layout(bits: int) -> list[str]:
    return ["--layout", f"time:41@1ms,worker:{bits},seq:12", "--epoch", str(EPOCH)]


def id_ms(i: int, bits: int) -> int:
    return (i >> (bits + 12)) + EPOCH


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SNOWFLAKE_", "PG"))}


class Holder:
    """snowflake-c serve on a leased value, port 0, its stderr in a file."""

    def __init__(self, url: str, bits: int, lease: str = "2s", extra: list[str] | None = None,
                 prefix: list[str] | None = None, run_env: dict[str, str] | None = None) -> None:
        self.bits = bits
        self.err = tempfile.NamedTemporaryFile(prefix="sfc-lease-", suffix=".log", delete=False)
        argv = [*(prefix or []), CLI, "serve", "--listen", "127.0.0.1:0", *layout(bits), "--node", "worker=lease",
                "--lease", url, "--lease-duration", lease, "--no-guard", *(extra or [])]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self.err, env=run_env or env())
        self.address = ""
        self.value = -1

    def wait_started(self, timeout: float = 30) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log()
            m = re.search(r"serving on http://(\S+): .*node worker=(\d+) \(lease\)", text)
            if m:
                self.address, self.value = m.group(1), int(m.group(2))
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.02)
        return False

    def log(self) -> str:
        return Path(self.err.name).read_text(errors="replace")

    def get(self, path: str, timeout: float = 5) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://{self.address}{path}", timeout=timeout) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def ids(self, n: int = 100) -> tuple[int, list[int], str]:
        status, body = self.get(f"/v1/ids?count={n}")
        return status, [int(x) for x in body.split()] if status == 200 else [], body

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.unlink(self.err.name)


class LeaseCase(unittest.TestCase):
    pg: Server
    url: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.pg = Server(PG_BIN, preload=False, settings={"max_connections": "150"}).__enter__()
        cls.url = f"host={cls.pg.socket_dir} user=postgres dbname=postgres"
        r = subprocess.run([CLI, "lease", "init", cls.url], capture_output=True, text=True, env=env())
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls) -> None:
        cls.pg.__exit__(None, None, None)

    def setUp(self) -> None:
        self.pg.sql("DELETE FROM snowflake_c_leases")
        self.holders: list[Holder] = []

    def tearDown(self) -> None:
        for h in self.holders:
            h.stop()

    def holder(self, bits: int, **kw: object) -> Holder:
        h = Holder(self.url, bits, **kw)  # type: ignore[arg-type]
        self.holders.append(h)
        return h

    def gen(self, bits: int, *extra: str, url: str | None = None, run_env: dict[str, str] | None = None,
            prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
        argv = [*(prefix or []), CLI, "gen", *layout(bits), "--node", "worker=lease", "--lease", url or self.url,
                "--no-guard", *extra]
        return subprocess.run(argv, capture_output=True, text=True, env=run_env or env(), timeout=60)


class Acquire(LeaseCase):
    def test_the_table_is_the_migration_file(self) -> None:
        r = subprocess.run([CLI, "lease", "sql"], capture_output=True, text=True, check=True)
        self.assertEqual(r.stdout, (Path(__file__).resolve().parents[2] / "sql" / "leases.sql").read_text())

    def test_concurrent_acquirers_get_distinct_values(self) -> None:
        holders = [self.holder(6, lease="5s") for _ in range(40)]
        started = [h.wait_started() for h in holders]
        self.assertTrue(all(started), [h.log() for h, s in zip(holders, started) if not s][:2])
        values = [h.value for h in holders]
        self.assertEqual(len(set(values)), 40, values)
        self.assertEqual(sorted(values), list(range(40)), "the lowest free values")
        ids: list[int] = []
        for h in holders:
            status, got, body = h.ids(50)
            self.assertEqual(status, 200, body)
            ids += got
        self.assertEqual(len(ids), len(set(ids)))

    def test_env_and_stats(self) -> None:
        e = env()
        e.update({"SNOWFLAKE_WORKER": "lease", "SNOWFLAKE_LEASE_URL": self.url})
        r = subprocess.run([CLI, "gen", "-n", "2", *layout(4), "--stats", "--json", "--no-guard"], capture_output=True,
                           text=True, env=e)
        self.assertEqual(r.returncode, 0, r.stderr)
        lease = json.loads(r.stderr.strip().splitlines()[-1])["lease"]
        self.assertEqual((lease["state"], lease["field"], lease["value"]), ("held", "worker", 0))
        row = self.pg.sql("SELECT node, expires_at = '-infinity' FROM snowflake_c_leases")
        self.assertEqual(row, "0|t", "given back on exit")

    def test_the_same_key_takes_its_value_again(self) -> None:
        a = self.holder(4, extra=["--lease-key", "orders-a"])
        self.assertTrue(a.wait_started())
        b = self.holder(4, extra=["--lease-key", "orders-b"])
        self.assertTrue(b.wait_started())
        self.assertEqual((a.value, b.value), (0, 1))
        for h in (a, b):  # both given back: 0 and 1 free
            h.stop()
            self.holders.remove(h)
        b2 = self.holder(4, extra=["--lease-key", "orders-b"])
        self.assertTrue(b2.wait_started())
        self.assertEqual(b2.value, 1, "its own last value, though 0 is lower")
        c = self.holder(4)
        self.assertTrue(c.wait_started())
        self.assertEqual(c.value, 0, "the lowest free value")
        a2 = self.holder(4, extra=["--lease-key", "orders-a"])
        self.assertTrue(a2.wait_started())
        self.assertEqual(a2.value, 2, "its last value is held: the lowest free one")

    def test_all_values_leased(self) -> None:
        holders = [self.holder(2) for _ in range(4)]
        self.assertTrue(all(h.wait_started() for h in holders))
        r = self.gen(2, "-n", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("WorkerUnavailable", r.stderr)
        self.assertIn("every value of node field worker (0..3) is leased: 4 held", r.stderr)

    def test_without_a_database(self) -> None:
        r = subprocess.run([CLI, "gen", "-n", "1", *layout(4), "--node", "worker=lease"], capture_output=True, text=True,
                           env=env())
        self.assertEqual(r.returncode, 2)
        self.assertIn("--lease URL or SNOWFLAKE_LEASE_URL", r.stderr)

    def test_a_role_with_table_privileges_only(self) -> None:
        self.pg.sql("DROP ROLE IF EXISTS app; CREATE ROLE app LOGIN;"
                    "GRANT SELECT, INSERT, UPDATE ON snowflake_c_leases TO app")
        url = f"host={self.pg.socket_dir} user=app dbname=postgres"
        first = self.gen(4, "-n", "3", url=url, prefix=None)
        self.assertEqual(first.returncode, 0, first.stderr)
        holders = [self.holder(4) for _ in range(2)]
        self.assertTrue(all(h.wait_started() for h in holders))
        r = self.gen(4, "-n", "3", "--stats", url=url)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("worker=2(lease)", r.stderr)
        r = subprocess.run([CLI, "lease", "init", url], capture_output=True, text=True, env=env())
        self.assertEqual(r.returncode, 0, "CREATE TABLE IF NOT EXISTS of a table that is there: " + r.stderr)


class Horizon(LeaseCase):
    def test_a_value_moved_starts_after_its_horizon(self) -> None:
        a = self.holder(4, lease="1s")
        self.assertTrue(a.wait_started())
        status, ids_a, _ = a.ids(1000)
        self.assertEqual(status, 200)
        a.proc.kill()  # no release: the row keeps the horizon written ahead
        a.proc.wait()
        horizon = int(self.pg.sql("SELECT horizon FROM snowflake_c_leases WHERE node = 0"))
        time.sleep(1.3)
        b = self.holder(4, lease="1s", extra=["--rollback", "wait", "--max-wait", "10s"])
        self.assertTrue(b.wait_started(), b.log())
        self.assertEqual(b.value, 0)
        status, ids_b, body = b.ids(1000)
        self.assertEqual(status, 200, body)
        metrics = b.get("/metrics")[1]
        self.assertIn('snowflake_c_lease_valid{field="worker",value="0",state="held"} 1', metrics)
        self.assertGreater(min(ids_b) >> 16, horizon, "starts after the previous holder's horizon")
        self.assertFalse(set(ids_a) & set(ids_b))

    def behind(self, seconds: int) -> dict[str, str]:
        e = env()
        lib = next(Path("/usr/lib").glob("*/faketime/libfaketimeMT.so.1"), None)
        if lib is None:
            self.skipTest("no libfaketime")
        e.update({"LD_PRELOAD": str(lib), "FAKETIME": f"-{seconds}s", "DONT_FAKE_MONOTONIC": "1"})
        return e

    def test_a_clock_5s_behind_the_horizon_refuses_or_waits(self) -> None:
        first = self.gen(4, "-n", "1000")
        self.assertEqual(first.returncode, 0, first.stderr)
        last = max(int(x) for x in first.stdout.split())
        self.assertEqual((last >> 12) & 15, 0, "worker 0")
        # Refuses by default (wait for 5 ms, no clock field: an error) ...
        r = self.gen(4, "-n", "1", run_env=self.behind(5))
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("ClockMovedBackwards", r.stderr)
        # ... waits with rollback=wait and a max_wait that covers it,
        t0 = time.monotonic()
        r = self.gen(4, "-n", "1000", "--rollback", "wait", "--max-wait", "10s", run_env=self.behind(5))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(time.monotonic() - t0, 4)
        after = [int(x) for x in r.stdout.split()]
        self.assertEqual({(i >> 12) & 15 for i in after}, {0}, "the same value, given back by the refusal")
        self.assertGreater(min(after), last)
        self.assertGreater(id_ms(min(after), 4), id_ms(last, 4))
        # ... and borrows ahead with rollback=borrow within max_drift.
        r = self.gen(4, "-n", "5", "--rollback", "borrow", "--max-drift", "10s", run_env=self.behind(5))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(min(int(x) for x in r.stdout.split()), max(after))


class Poller(threading.Thread):
    """Asks a holder for IDs every few ms: what it answered, and when."""

    def __init__(self, h: Holder) -> None:
        super().__init__(daemon=True)
        self.h = h
        self.answers: list[tuple[float, float, int, list[int], str]] = []
        self.stopping = False

    def run(self) -> None:
        while not self.stopping:
            t0 = time.monotonic()
            try:
                status, ids, body = self.h.ids(20)
            except OSError as e:
                status, ids, body = 0, [], str(e)
            self.answers.append((t0, time.monotonic(), status, ids, body))
            time.sleep(0.01)

    def stop(self) -> None:
        self.stopping = True
        self.join()


class Outage(LeaseCase):
    def pollers(self, n: int, lease: str) -> list[Poller]:
        holders = [self.holder(4, lease=lease) for _ in range(n)]
        self.assertTrue(all(h.wait_started() for h in holders))
        pollers = [Poller(h) for h in holders]
        for p in pollers:
            p.start()
        return pollers

    def test_an_outage_longer_than_the_lease(self) -> None:
        pollers = self.pollers(3, "2s")
        time.sleep(1)
        t_stop, wall_stop = time.monotonic(), time.time()
        self.pg.stop("immediate")
        time.sleep(4)
        t_back = time.monotonic()
        self.pg.start()
        time.sleep(3)
        for p in pollers:
            p.stop()
        ids: list[int] = []
        for p in pollers:
            kinds = {json.loads(b)["error"]["kind"] for _, _, s, _, b in p.answers if s == 503 and b.startswith("{")}
            self.assertIn("LeaseExpired", kinds, "the typed error")
            late = [(t0 - t_stop) for t0, _, s, _, _ in p.answers if s == 200 and t_stop + 2.0 < t0 < t_back]
            self.assertEqual(late, [], "no ID past the deadline")
            for t0, _, s, got, _ in p.answers:
                ids += got
                if t0 < t_back:  # the last renewal was made before the stop
                    self.assertLessEqual(max(got, default=0) and id_ms(max(got), 4), wall_stop * 1000 + 2000)
            resumed = [t0 for t0, _, s, _, _ in p.answers if s == 200 and t0 > t_back]
            self.assertTrue(resumed, "resumes once a renewal succeeds")
            self.assertLess(resumed[0] - t_back, 3)
        self.assertEqual(len(ids), len(set(ids)))

    def test_an_outage_shorter_than_the_lease_goes_unnoticed(self) -> None:
        pollers = self.pollers(3, "3s")
        time.sleep(1)
        self.pg.stop("immediate")
        time.sleep(1)
        self.pg.start()
        time.sleep(2.5)
        for p in pollers:
            p.stop()
            bad = [(s, b) for _, _, s, _, b in p.answers if s != 200]
            self.assertEqual(bad, [])
            self.assertGreater(len(p.answers), 100)
            self.assertRegex(p.h.get("/readyz")[1], "^ready")


class Pause(LeaseCase):
    def test_a_holder_paused_past_its_lease_issues_nothing_more(self) -> None:
        a = self.holder(1, lease="1s")
        self.assertTrue(a.wait_started())
        other = self.holder(1, lease="1s")  # holds 1: the only free value is a's
        self.assertTrue(other.wait_started())
        status, ids_a, _ = a.ids(1000)
        self.assertEqual(status, 200)
        a.proc.send_signal(signal.SIGSTOP)
        time.sleep(1.5)  # its lease (1 s) and the grace (0.1 s) run out
        b = self.holder(1, lease="1s")
        self.assertTrue(b.wait_started(), b.log())
        self.assertEqual(b.value, a.value)
        a.proc.send_signal(signal.SIGCONT)
        after: list[tuple[int, list[int], str]] = []
        t_end = time.monotonic() + 1.5
        while time.monotonic() < t_end:
            after.append(a.ids(100))
        self.assertEqual([x for x in after if x[0] == 200], [], "not one ID more")
        self.assertTrue(all("LeaseExpired" in body for _, _, body in after), after[:2])
        self.assertEqual(a.get("/readyz")[0], 503)
        status, ids_b, _ = b.ids(1000)
        self.assertEqual(status, 200)
        self.assertFalse(set(ids_a) & set(ids_b))
        self.assertIn("taken by another holder", a.log())


class Chaos(LeaseCase):
    """Many generators on simulated hosts (a network and a mount namespace
    each, /dev/shm their own) start, stop, crash and pause at random on one
    node field: zero duplicate IDs."""

    def test_hosts_start_stop_crash_and_pause(self) -> None:
        if shutil.which("unshare") is None or subprocess.run(
                ["unshare", "-rnm", "true"] if os.geteuid() else ["unshare", "-nm", "true"]).returncode:
            r = subprocess.run([str(Path(__file__).resolve().parents[1] / "skip"), "leases", "chaos",
                                "unshare -nm is not allowed here"])
            if r.returncode:
                self.fail("a skip is a failure here")
            self.skipTest("unshare -nm is not allowed here")
        seconds, live, bits, total = (60, 40, 10, 200) if LONG else (10, 12, 3, 60)
        unshare = ["unshare", "-rnm"] if os.geteuid() else ["unshare", "-nm"]
        outs: list[list[bytes]] = []
        procs: list[subprocess.Popen[bytes]] = []
        paused: dict[int, float] = {}
        rng = random.Random(os.environ.get("SFC_LEASES_SEED", "37"))

        def reader(p: subprocess.Popen[bytes], out: list[bytes]) -> None:
            assert p.stdout
            while True:
                chunk = p.stdout.read1(16384)  # type: ignore[attr-defined]
                if not chunk:
                    p.stdout.close()
                    return
                out.append(chunk)
                time.sleep(0.3)

        def start(host: int) -> None:
            script = ("mount -t tmpfs tmpfs /dev/shm && exec \"$@\"")
            argv = [*unshare, "sh", "-c", script, "sh", CLI, "gen", "-n", "1000000000", *layout(bits), "--node",
                    "worker=lease", "--lease", self.url, "--lease-duration", "1s"]
            err = open(os.path.join(logs, f"{len(procs)}.log"), "wb")
            p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env())
            err.close()
            out: list[bytes] = []
            threading.Thread(target=reader, args=(p, out), daemon=True).start()
            procs.append(p)
            outs.append(out)

        logs = tempfile.mkdtemp(prefix="sfc-chaos-")
        self.addCleanup(shutil.rmtree, logs, True)
        started = 0
        t_end = time.monotonic() + seconds
        while time.monotonic() < t_end:
            alive = [p for p in procs if p.poll() is None]
            if len(alive) < live and started < total:
                start(started % 8)
                started += 1
            elif alive:
                p = rng.choice(alive)
                action = rng.random()
                if p.pid in paused:
                    if time.monotonic() > paused[p.pid]:
                        p.send_signal(signal.SIGCONT)
                        del paused[p.pid]
                elif action < 0.15:
                    p.kill()
                elif action < 0.25:
                    p.terminate()
                elif action < 0.35:
                    p.send_signal(signal.SIGSTOP)
                    paused[p.pid] = time.monotonic() + rng.uniform(0.5, 2.5)
            time.sleep(0.05)
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.terminate()
        for p in procs:
            p.wait()
        time.sleep(0.5)
        # A process killed in the middle of a write leaves half a line.
        texts = [b"".join(out) for out in outs]
        texts = [t[: t.rfind(b"\n") + 1] for t in texts]
        ids = [int(x) for t in texts for x in t.split()]
        self.assertGreater(len(ids), 1000)
        if len(ids) != len(set(ids)):
            seen: dict[int, int] = {}
            for k, text in enumerate(texts):
                for x in text.split():
                    i = int(x)
                    if i in seen:
                        worker = (i >> 12) & ((1 << bits) - 1)
                        print(f"duplicate {i}: worker {worker}, {id_ms(i, bits)} ms, processes {seen[i]} and {k}",
                              file=sys.stderr)
                        for j in (seen[i], k):
                            print(f"  {j}: {Path(logs, f'{j}.log').read_text(errors='replace')[-600:]}", file=sys.stderr)
                    seen[i] = k
        self.assertEqual(len(ids) - len(set(ids)), 0, "duplicate IDs")
        print(f"\n  chaos: {started} processes, {len(ids)} IDs, no duplicate", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
