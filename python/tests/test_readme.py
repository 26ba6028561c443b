"""Every Python example in python/README.md runs as written.

A block whose first line is ``# host name: NAME`` is a pod-only example (it
reads a StatefulSet pod's host name, and the README says so): it runs under
that host name (a UTS namespace), as in the pod, and is skipped, saying so,
where none can be made. A block whose first line is ``# database: …`` leases
from PostgreSQL: it runs against a server the test starts, its table made,
in SNOWFLAKE_LEASE_URL (skipped, saying so, where there is none).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

import pytest
from postgres_server import postgres_server

import snowflake_c
from conftest import host_name_prefix

HOST_NAME = re.compile(r"# host name: (\S+)\n")
README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 5


def test_pod_only_examples_say_so() -> None:
    """A reader who runs a pod-only block elsewhere sees it fail: the prose
    right before it says what it needs."""
    text = README.read_text()
    pod_only = [m.start() for m in re.finditer(r"```python\n# host name: ", text)]
    assert pod_only, "the Kubernetes example is marked with its host name"
    for start in pod_only:
        before = text[:start].rstrip().rsplit("\n\n", 1)[-1]
        assert "pod-only example" in before, before


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code)
    prefix: tuple[str, ...] = ()
    host = HOST_NAME.match(code)
    if host:
        found = host_name_prefix()
        if found is None:
            pytest.skip(
                f"a pod-only example (host name {host[1]}), and no host name can be given here "
                "(unshare -u, or unshare -ru, refused)"
            )
        prefix = (*found, host[1])
    with ExitStack() as stack:
        env = None
        if code.startswith("# database:"):
            pg = stack.enter_context(postgres_server())
            pg.sql(snowflake_c.lease_table_sql())
            env = {**os.environ, "SNOWFLAKE_LEASE_URL": f"host={pg.socket_dir} user=postgres dbname=postgres"}
        r = subprocess.run(
            [*prefix, sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
        )
    assert r.returncode == 0, r.stderr
