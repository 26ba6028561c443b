"""Node values leased from PostgreSQL (node={"worker": "lease"}), on a real
server that the module starts (tests/postgres/pgserver.py: an unprivileged
user, a Unix socket), through psycopg. The protocol is the core's; these
tests hold the Python host to it: distinct values, a value handed over
starting after its previous holder's horizon, the fence while the database
is away, the release at close, the key's value taken again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import pytest
from postgres_server import postgres_server

import snowflake_c as sfc

EPOCH = 1704067200000
LAYOUT = "time:41@1ms,worker:3,seq:12"


@pytest.fixture(scope="module")
def pg() -> Iterator[Any]:
    with postgres_server() as server:
        server.sql(sfc.lease_table_sql())
        yield server


@pytest.fixture
def url(pg: Any) -> str:
    pg.sql("DELETE FROM snowflake_c_leases")
    return f"host={pg.socket_dir} user=postgres dbname=postgres"


def leased(url: str, **options: Any) -> sfc.Generator:
    options.setdefault("lease_duration", "2s")
    return sfc.Generator(layout=LAYOUT, epoch=EPOCH, node={"worker": "lease"}, lease=url, **options)


def tick(i: int) -> int:
    """The time field of an ID of LAYOUT: ms since the epoch."""
    return i >> 15


def row(pg: Any, value: int) -> dict[str, Any]:
    out = pg.sql(
        "SELECT json_build_object('holder', holder, 'horizon', horizon, 'previous', previous,"
        " 'free', expires_at = '-infinity') FROM snowflake_c_leases"
        f" WHERE space = '{LAYOUT}@{EPOCH}' AND node = {value}"
    )
    return dict(json.loads(out))


def test_two_generators_get_distinct_values(url: str) -> None:
    with leased(url) as a, leased(url) as b:
        values = {a.stats()["lease"]["value"], b.stats()["lease"]["value"]}
        assert values == {0, 1}
        assert a.node["worker"] != b.node["worker"]
        assert a.stats()["node_sources"] == {"worker": "lease"}
        ids = a.next_ids(1000) + b.next_ids(1000)
        assert len(set(ids)) == 2000


def test_stats_show_the_lease(url: str) -> None:
    with leased(url, lease_duration="1.5s") as g:
        lease = g.stats()["lease"]
        assert lease["state"] == "held" and lease["field"] == "worker" and lease["value"] == 0
        assert lease["duration_ms"] == 1500 and lease["failures"] == 0 and lease["error"] == ""
        now = time.time() * 1000
        assert now < lease["expires_ms"] <= now + 1500
        assert lease["horizon_ms"] >= lease["expires_ms"] - 100
        time.sleep(0.8)  # renewed at a third of the lease
        assert g.stats()["lease"]["renewals"] >= 1
        assert "node=" in repr(g)


def test_close_gives_the_value_back_and_the_key_takes_it_again(url: str, pg: Any) -> None:
    other = leased(url)
    g = leased(url, lease_key="orders-1")
    assert g.node == {"worker": 1}
    last = g.next_id()
    other.close()
    g.close()
    assert g.closed and other.closed
    got = row(pg, 1)
    assert got["free"] and got["holder"] == "orders-1"
    assert got["horizon"] == tick(last)  # the exact last tick, not the lease ahead
    # Value 0 is free and lower, but the key's value comes back to it.
    with leased(url, lease_key="orders-1") as again:
        assert again.node == {"worker": 1}
        assert tick(again.next_id()) > tick(last)
    with leased(url) as fresh:
        assert fresh.node == {"worker": 0}


def test_every_value_leased_is_worker_unavailable(url: str) -> None:
    held = [leased(url) for _ in range(8)]
    try:
        with pytest.raises(sfc.WorkerUnavailable, match=r"every value of node field worker \(0\.\.7\) is leased"):
            leased(url)
    finally:
        for g in held:
            g.close()


CRASHING_HOLDER = textwrap.dedent(
    """
    import os, sys, warnings
    import snowflake_c as sfc
    warnings.simplefilter("ignore", sfc.UnguardedWarning)
    g = sfc.Generator(layout=sys.argv[1], epoch=int(sys.argv[2]), node={"worker": "lease"}, lease=sys.argv[3],
                      lease_duration="1s", guard=False)
    ids = g.next_ids(100)
    print(g.node["worker"], ids[-1], g.stats()["lease"]["horizon_ms"], flush=True)
    os.kill(os.getpid(), 9)
    """
)


def test_a_value_handed_over_starts_after_the_previous_holders_horizon(url: str, pg: Any) -> None:
    """A holder killed (no release, no hand-over record: unguarded): its value
    comes free a lease and a grace later, and the next holder starts after
    the horizon the row kept, a lease ahead of the dead holder's clock."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SNOWFLAKE_", "PG"))}
    done = subprocess.run(
        [sys.executable, "-c", CRASHING_HOLDER, LAYOUT, str(EPOCH), url], capture_output=True, text=True, env=env
    )
    assert done.returncode == -9, done.stderr
    value, last, _ = (int(x) for x in done.stdout.split())
    horizon = row(pg, value)["horizon"]
    assert horizon >= tick(last) + 500  # written ahead: about a lease past its clock
    deadline = time.monotonic() + 10
    free = f"SELECT expires_at + interval '100 ms' <= now() FROM snowflake_c_leases WHERE node = {value}"
    while pg.sql(free) != "t":  # a lease plus a grace (a tenth) after the last renewal, by its clock
        assert time.monotonic() < deadline
        time.sleep(0.05)
    with leased(url, lease_duration="1s", rollback="wait", max_wait="3s") as g:
        assert g.node == {"worker": value}
        assert row(pg, value)["previous"] == horizon
        first = g.next_id()
        assert tick(first) > horizon


def test_the_database_away_past_the_lease_stops_ids_until_it_returns(url: str, pg: Any) -> None:
    with leased(url, lease_duration="1s") as g:
        g.next_id()
        pg.stop("immediate")
        try:
            deadline = time.monotonic() + 5
            while True:  # within a lease of the last renewal
                try:
                    g.next_id()
                except sfc.LeaseExpired as e:
                    assert "lease" in str(e)
                    break
                assert time.monotonic() < deadline, "IDs went on past the lease"
                time.sleep(0.01)
            lease = g.stats()["lease"]
            assert lease["state"] == "expired" and lease["failures"] >= 1
            assert "lease database" in lease["error"]
            with pytest.raises(sfc.LeaseExpired):
                g.next_ids(10)
        finally:
            pg.start()
        deadline = time.monotonic() + 10
        while True:  # the next renewal that succeeds resumes generation
            try:
                g.next_id()
                break
            except sfc.LeaseExpired:
                assert time.monotonic() < deadline, "generation did not resume"
                time.sleep(0.05)
        assert g.stats()["lease"]["state"] == "held"


def test_the_environment_path(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNOWFLAKE_WORKER", "lease")
    monkeypatch.setenv("SNOWFLAKE_LEASE_URL", url)
    with sfc.Generator(layout=LAYOUT, epoch=EPOCH, lease_duration=2000) as g:
        assert g.stats()["node_sources"] == {"worker": "lease"}
        assert g.stats()["lease"]["value"] == 0


def test_a_database_that_cannot_be_reached(tmp_path: Any) -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(sfc.WorkerUnavailable, match="cannot connect to the lease database"):
        sfc.Generator(
            layout=LAYOUT,
            epoch=EPOCH,
            node={"worker": "lease"},
            lease=f"host={tmp_path} user=nobody dbname=none",
            lease_duration="1s",
        )


def test_a_lease_needs_the_database() -> None:
    with pytest.raises(sfc.InvalidArgument, match="SNOWFLAKE_LEASE_URL"):
        sfc.Generator(layout=LAYOUT, epoch=EPOCH, node={"worker": "lease"})


def test_a_lease_needs_psycopg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg raises ImportError
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'snowflake-c\[lease\]'"):
        sfc.Generator(layout=LAYOUT, epoch=EPOCH, node={"worker": "lease"}, lease="host=/nowhere")


def test_a_forked_child_never_gives_its_parents_value_back(url: str, pg: Any) -> None:
    """The child of a fork inherits the generator, not the lease: it refuses
    IDs (GeneratorForked), and neither its close() nor its exit releases the
    parent's value or touches the parent's connection."""
    import atexit

    with leased(url) as g:
        value = g.node["worker"]
        pid = os.fork()
        if pid == 0:  # the child: its outcome as its exit status
            code = 0
            try:
                try:
                    g.next_id()
                    code = 3
                except sfc.GeneratorForked:
                    pass
                g.close()
                atexit._run_exitfuncs()
            except BaseException:
                code = 4
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert not row(pg, value)["free"]
        renewals = g.stats()["lease"]["renewals"]
        deadline = time.monotonic() + 5
        while g.stats()["lease"]["renewals"] == renewals:  # the parent's connection still renews
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert g.stats()["lease"]["state"] == "held"
        g.next_id()


def test_a_generator_left_open_is_closed_at_exit(url: str, pg: Any) -> None:
    """The interpreter's exit stops the renewer and gives the value back with
    the last tick issued, as close() does."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SNOWFLAKE_", "PG"))}
    script = textwrap.dedent(
        """
        import sys
        import snowflake_c as sfc
        g = sfc.Generator(layout=sys.argv[1], epoch=int(sys.argv[2]), node={"worker": "lease"}, lease=sys.argv[3])
        print(g.node["worker"], g.next_id())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, LAYOUT, str(EPOCH), url], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    value, last = (int(x) for x in done.stdout.split())
    got = row(pg, value)
    assert got["free"] and got["horizon"] == tick(last)
