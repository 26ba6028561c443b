"""``python -m snowflake_c``: runs the C ``snowflake-c`` command installed with the wheel.

The wheel carries the command-line tool itself (pip puts it on the
environment's PATH beside ``python``); this entry point only finds it and
hands over the arguments, standard streams and exit status.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Sequence

PROG = "snowflake-c"


def find_command() -> str | None:
    """The installed snowflake-c: in this environment's scripts folder, else on PATH."""
    name = PROG + (".exe" if os.name == "nt" else "")
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(PROG)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``snowflake-c`` with ``argv`` (default: ``sys.argv[1:]``); returns its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = find_command()
    if command is None:
        print(
            f"{PROG}: the {PROG} command is not installed beside this Python; "
            "reinstall the snowflake-c wheel (pip install --force-reinstall snowflake-c)",
            file=sys.stderr,
        )
        return 2
    if argv is None and os.name != "nt":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(command, [PROG, *args])
    return subprocess.call([PROG, *args], executable=command)


if __name__ == "__main__":
    sys.exit(main())
