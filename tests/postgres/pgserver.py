"""A throwaway PostgreSQL server for tests: initdb in a temporary folder, a
Unix socket there, no TCP port, removed on exit.

    from pgserver import Server

    with Server("/usr/lib/postgresql/15/bin", settings={"snowflake_c.node": "worker=3"}) as pg:
        pg.sql("SELECT snowflake_c.next_id()")   # psql's unaligned output; raises PsqlError
        pg.psql("SELECT 1/0", check=False)       # CompletedProcess, whatever happened
        pg.restart(settings={...})               # a new settings file, then start again
        pg.kill()                                # kill -9 of the postmaster
        pg.start(env={"FAKETIME": "-10s", "LD_PRELOAD": ...})

Server(bin_dir, settings=None, preload=True, env=None)
    bin_dir   the major's bin folder (pg_ctl, initdb, postgres, psql)
    settings  server settings {name: value}; values are written quoted
    preload   shared_preload_libraries = 'snowflake_c'
    env       extra environment of the server (faketime, SNOWFLAKE_*)
The server runs as an unprivileged user: as root, the files belong to
`nobody` and every server command runs through runuser. The database is
`postgres`, the superuser `postgres`, with trust over the socket. The
server's own environment carries no SNOWFLAKE_* variable unless `env` gives
one. `pg.log()` is the server log; `pg.data` the data folder.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

RUN_AS = "nobody"


class PsqlError(RuntimeError):
    """psql failed: its standard error is the message."""


class Server:
    def __init__(
        self,
        bin_dir: str | Path,
        settings: dict[str, object] | None = None,
        preload: bool = True,
        env: dict[str, str] | None = None,
    ) -> None:
        self.bin = Path(bin_dir)
        self.settings = dict(settings or {})
        self.preload = preload
        self.env = dict(env or {})
        self.root = Path(tempfile.mkdtemp(prefix="sfc-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "socket"
        self.log_file = self.root / "server.log"
        self.running = False

    # -- the unprivileged user -------------------------------------------

    def _as_user(self, argv: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return argv
        return ["runuser", "-u", RUN_AS, "--", *argv]

    def _server_env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SNOWFLAKE_", "PG", "FAKETIME", "LD_PRELOAD"))}
        env.update({"LC_ALL": "C.UTF-8", "TZ": "UTC"})
        env.update(self.env)
        env.update(extra or {})
        return env

    def _run(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        subprocess.run(self._as_user(argv), check=True, env=env or self._server_env(), stdout=subprocess.DEVNULL)

    # -- life cycle --------------------------------------------------------

    def __enter__(self) -> Server:
        try:
            self.init()
            self.start()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    def init(self) -> None:
        self.socket_dir.mkdir()
        self.log_file.touch()
        if os.geteuid() == 0:
            user = pwd.getpwnam(RUN_AS)
            os.chmod(self.root, 0o755)
            for path in (self.socket_dir, self.log_file):
                os.chown(path, user.pw_uid, user.pw_gid)
            os.chown(self.root, user.pw_uid, user.pw_gid)
        self._run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ]
        )
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("\ninclude_if_exists = 'tests.conf'\n")

    def _write_settings(self) -> None:
        lines = {
            "listen_addresses": "",
            "unix_socket_directories": str(self.socket_dir),
            "fsync": "off",
            "timezone": "UTC",
            "max_connections": "40",
        }
        if self.preload:
            lines["shared_preload_libraries"] = "snowflake_c"
        lines.update({k: str(v) for k, v in self.settings.items()})
        text = "".join(f"{k} = '{v.replace(chr(39), chr(39) * 2)}'\n" for k, v in lines.items())
        path = self.data / "tests.conf"
        path.write_text(text, encoding="utf-8")
        if os.geteuid() == 0:
            user = pwd.getpwnam(RUN_AS)
            os.chown(path, user.pw_uid, user.pw_gid)

    def start(self, env: dict[str, str] | None = None) -> None:
        """Starts the server and waits until it takes connections."""
        self._write_settings()
        self._run(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log_file), "-w", "-t", "60", "start"],
            env=self._server_env(env),
        )
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        if self.running:
            self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"])
            self.running = False

    def restart(self, settings: dict[str, object] | None = None, env: dict[str, str] | None = None) -> None:
        self.stop()
        if settings is not None:
            self.settings = dict(settings)
        self.start(env)

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split("\n", 1)[0])

    def kill(self) -> None:
        """kill -9 of the postmaster: a crash. Its backends are left to die
        by themselves; the next start() recovers."""
        pid = self.postmaster_pid()
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        self.running = False

    def cleanup(self) -> None:
        try:
            if self.running:
                self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    # -- clients -----------------------------------------------------------

    def psql_argv(self, *extra: str) -> list[str]:
        """psql for this server, quiet, unaligned, stopping at the first error."""
        return [
            str(self.bin / "psql"),
            "-X",
            "-q",
            "-A",
            "-t",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            str(self.socket_dir),
            "-U",
            "postgres",
            "-d",
            "postgres",
            *extra,
        ]

    def psql(self, sql: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["PGTZ"] = "UTC"
        result = subprocess.run(self.psql_argv(), input=sql, capture_output=True, text=True, env=env)
        if check and result.returncode != 0:
            raise PsqlError(result.stderr.strip())
        return result

    def sql(self, sql: str) -> str:
        """The output of `sql` (psql -At), without its last newline."""
        return self.psql(sql).stdout.rstrip("\n")

    def log(self) -> str:
        return self.log_file.read_text(encoding="utf-8", errors="replace")
