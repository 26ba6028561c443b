"""Holds one generator in a process of its own, for the guard tests.

Usage: python hold_generator.py '<Generator keywords as JSON>' [COUNT]

Prints one JSON line once the generator exists — {"pid", "node", "guard",
"ids"}, with COUNT IDs issued — or {"pid", "error", "message"} if creating
it failed (exit status 3), then keeps the generator until standard input
closes.
"""

from __future__ import annotations

import json
import os
import sys

import snowflake_c


def main() -> int:
    kwargs = json.loads(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    try:
        g = snowflake_c.Generator(**kwargs)
    except snowflake_c.SnowflakeError as e:
        print(json.dumps({"pid": os.getpid(), "error": e.status, "message": str(e)}), flush=True)
        return 3
    with g:
        report = {"pid": os.getpid(), "node": g.node, "guard": g.stats()["guard"], "ids": g.next_ids(count)}
        print(json.dumps(report), flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
