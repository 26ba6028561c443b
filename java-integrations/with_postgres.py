"""Runs a command beside a throwaway PostgreSQL server, for the integrations' tests.

    python3 java-integrations/with_postgres.py mvn -f java-integrations/pom.xml verify

The server (tests/postgres/pgserver.py: initdb in a temporary folder, run by an
unprivileged user, a Unix socket and no TCP port) lives as long as the command; its
socket folder reaches the tests as -Dsnowflakec.postgres.socket=FOLDER, added to the
command's arguments. Where no PostgreSQL is installed (PG_BIN, by default Debian's
/usr/lib/postgresql/15/bin), the command runs as given and the tests that need the
server are skipped, saying so. Exits with the command's status.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
PROPERTY = "snowflakec.postgres.socket"


def main(command: list[str]) -> int:
    if not command:
        print(__doc__, file=sys.stderr)
        return 2
    if not (PG_BIN / "initdb").is_file():
        print(f"no PostgreSQL in {PG_BIN} (scripts/setup installs postgresql-15): its tests are skipped")
        return subprocess.run(command).returncode
    sys.path.insert(0, str(ROOT / "tests" / "postgres"))
    from pgserver import Server  # the SQL extension's test server

    # Three Spring Boot processes keep pools of ten connections each.
    with Server(PG_BIN, settings={"max_connections": 100}, preload=False) as pg:
        print(f"PostgreSQL {pg.sql('SHOW server_version')} on {pg.socket_dir}")
        return subprocess.run([*command, f"-D{PROPERTY}={pg.socket_dir}"]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
