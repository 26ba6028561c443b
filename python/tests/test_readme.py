"""Every Python example in python/README.md runs as written.

A block whose first line is ``# host name: NAME`` runs under that host name
(a UTS namespace), as in a Kubernetes pod; it is skipped where none can be
made.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import host_name_prefix

HOST_NAME = re.compile(r"# host name: (\S+)\n")
README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code)
    prefix: tuple[str, ...] = ()
    host = HOST_NAME.match(code)
    if host:
        found = host_name_prefix()
        if found is None:
            pytest.skip(f"cannot run under the host name {host[1]} here (unshare -u, or unshare -ru, refused)")
        prefix = (*found, host[1])
    r = subprocess.run(
        [*prefix, sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
