"""The host of the core's lease protocol through psycopg: node values leased
from PostgreSQL (``node={"worker": "lease"}``, docs/leases.md).

The core owns the SQL, its parameters, the timings, the state machine and
the fence; this module only runs each statement the core hands out and hands
the row (or the driver's failure) back, as the CLI's libpq host does
(core/cli/lease.c): the acquire before the generator is made, the renewals on
a daemon thread, the release after the generator is closed.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from typing import TYPE_CHECKING, Any

from . import _snowflake_c as _c

if TYPE_CHECKING:
    import logging

    from ._types import LeaseStats

# After a failure of its own, the renewer waits this long before it asks the
# core again (the core's own timings cover every failure of a statement).
_SURPRISE_S = 0.05


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as e:
        raise ModuleNotFoundError(
            "a node value 'lease' runs its statements through psycopg: pip install 'snowflake-c[lease]'",
            name="psycopg",
        ) from e
    return psycopg


def _log() -> logging.Logger:
    import logging  # only when there is something to say

    return logging.getLogger("snowflake_c")


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


class LeaseHost:
    """One lease: its connection, its renewer; made by Generator()."""

    def __init__(self, lease: _c.CoreLease, url: str) -> None:
        self._psycopg = _psycopg()
        self._lease = lease
        self._url = url
        self._conn: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._generator: _c.CoreGenerator | None = None
        self._closed = False
        self._closing = threading.Lock()
        self._inherited = False  # true in a forked child
        self._duration_ms: int = lease.stats()["duration_ms"]

    # ---- One statement -----------------------------------------------------

    def _connect(self) -> Any:
        """A connection that gives up within 2 s, whose statements time out
        at a third of the lease: a hung database must not hold renewals back."""
        psycopg = self._psycopg
        return psycopg.Connection.connect(
            self._url,
            autocommit=True,
            connect_timeout=2,
            options=f"-c statement_timeout={self._duration_ms // 3}",
            application_name="snowflake-c",
            prepare_threshold=None,  # plain statements: poolers in transaction mode too
            cursor_factory=psycopg.RawCursor,  # the core's $1, $2, … as they are
        )

    def _run(self, query: tuple[str, str, tuple[str, ...]]) -> bool:
        """Runs the statement the core handed out and gives the core its row;
        False when the database could not run it (the core retries it)."""
        psycopg = self._psycopg
        _step, sql, params = query
        if self._conn is not None and (self._conn.closed or self._conn.broken):
            self._drop()
        try:
            if self._conn is None:
                self._conn = self._connect()
        except Exception as e:
            self._lease.failed(f"cannot connect to the lease database: {_first_line(e)}")
            return False
        try:
            with self._conn.cursor() as cur:
                cur.execute(sql, params)
                row = cur.fetchone() if cur.description is not None else None
        except Exception as e:
            if not isinstance(e, psycopg.Error) or self._conn.broken:
                self._drop()
            self._lease.failed(f"the lease database refused: {_first_line(e)}")
            return False
        self._lease.done(None if row is None else tuple(None if v is None else str(v) for v in row))
        return True

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # a broken connection has nothing left to say
                pass

    # ---- The life of the lease ---------------------------------------------

    def acquire(self) -> None:
        """Takes a value within the core's time (a lost race is tried again at
        once, a database that cannot be reached with backoff); every value
        held, or no value in time, is WorkerUnavailable."""
        try:
            while True:
                step = self._lease.due()
                if isinstance(step, tuple):
                    self._run(step)
                if self._lease.acquired():
                    return
                if isinstance(step, int):
                    time.sleep(step / 1e6)  # the core caps it
        except BaseException:
            self.give_back()
            raise

    def start(self, generator: _c.CoreGenerator) -> None:
        """Renews on a daemon thread until close()."""
        self._generator = generator
        self._thread = threading.Thread(target=self._renew, name="snowflake-c lease", daemon=True)
        self._thread.start()
        _open.add(self)

    def _renew(self) -> None:
        while not self._stop.is_set():
            try:
                step = self._lease.due()
                if isinstance(step, int):
                    self._stop.wait(step / 1e6)  # the core caps it
                    continue
                self._run(step)
            except _c.LeaseExpired as e:
                _log().warning("lease: %s", e)
            except Exception:  # the renewer must outlive any surprise
                _log().exception("lease: the renewer failed")
                self._stop.wait(_SURPRISE_S)

    def close(self) -> None:
        """Stops the renewer, closes the generator, then gives the value back
        with its exact last tick. Idempotent."""
        with self._closing:
            if self._closed:
                return
            self._closed = True
        if self._inherited:
            # A forked child's: the core's generator refuses there already;
            # the lease, its row and its connection are the parent's.
            self._conn = None  # psycopg closes no connection of another process
            if self._generator is not None:
                _c.CoreGenerator.close(self._generator)
            return
        _open.discard(self)
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            # A statement in flight ends within a third of the lease (the
            # server's statement_timeout) or the 2 s of a connection attempt;
            # past a lease, the database hangs: the value is left to expire
            # (the lease is its renewer's until that statement returns).
            self._thread.join(self._duration_ms / 1000 + 2)
        if self._generator is not None:
            _c.CoreGenerator.close(self._generator)
        if self._thread is None or not self._thread.is_alive():
            self.give_back()

    def give_back(self) -> None:
        query = self._lease.release()
        try:
            if query is not None:
                self._run(query)
        finally:
            self._drop()

    def stats(self) -> LeaseStats:
        return self._lease.stats()

    def valid(self) -> bool:
        return self._lease.valid()


# The leases not yet closed: given back when the interpreter exits (after the
# non-daemon threads end, before the daemon renewers are stopped).
_open: set[LeaseHost] = set()


def _forked() -> None:
    """In a forked child: its inherited leases are the parent's, never to be
    given back from here (by close() or at exit)."""
    for host in _open:
        host._inherited = True
        host._closing = threading.Lock()
    _open.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


@atexit.register
def _close_all() -> None:
    for host in list(_open):
        try:
            host.close()
        except Exception:
            pass
