"""A throwaway PostgreSQL server (pgserver.Server) for tests in other
languages: starts it, prints one JSON line, then keeps it until its standard
input closes (the test ended, or died), and removes it. Meanwhile each line
"stop" (an immediate stop: an outage) or "start" on its standard input is
done, then answered with a line "ok".

    python3 tests/postgres/serve.py BIN_DIR [--preload] [--set NAME=VALUE]...

The line: {"host": the socket folder, "user": "postgres", "database":
"postgres", "preload": whether snowflake_c is preloaded}. With --preload the
server loads the SQL extension (which must be installed into that major, as
tests/postgres/run does); --set adds a server setting (snowflake_c.node …).
"""

from __future__ import annotations

import argparse
import json
import sys

from pgserver import Server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin_dir")
    parser.add_argument("--preload", action="store_true")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    settings = dict(pair.split("=", 1) for pair in args.set)
    with Server(args.bin_dir, settings=settings, preload=args.preload) as pg:
        print(
            json.dumps(
                {"host": str(pg.socket_dir), "user": "postgres", "database": "postgres", "preload": args.preload}
            )
        )
        sys.stdout.flush()
        for line in sys.stdin:  # until the test closes it, or ends
            command = line.strip()
            if command == "stop":
                pg.stop("immediate")
            elif command == "start":
                pg.start()
            else:
                continue
            print("ok", flush=True)


if __name__ == "__main__":
    main()
