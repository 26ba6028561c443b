"""The binding's state machine (state_machine.py: Hypothesis, the real API), run in a
process of its own.

That process runs under PYTHONMALLOC=debug (Python's allocators checked: a buffer
overrun, a block freed twice or a call without the GIL aborts it) and, where the
system allows, in network and mount namespaces of its own with a /dev/shm of its
own: the guard's claims (abstract sockets) and hand-over records are then the
machine's alone, so that it neither refuses nor is refused by a generator of
another suite running beside it, whatever their layouts (the claim is keyed on
the integers a generator can issue, not on its epoch). It forks, closes from a
signal handler and collects generators mid-run: none of that touches pytest's
process.

The budget is about a minute: SNOWFLAKE_C_STATEFUL_EXAMPLES examples (default 30)
of SNOWFLAKE_C_STATEFUL_STEPS steps (default 40); raise them for a longer run. A
failing run prints Hypothesis's shortened sequence of steps and the blob that
replays it (@reproduce_failure).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conftest import OWN_EPOCH

HERE = Path(__file__).resolve().parent
MACHINE = HERE / "state_machine.py"

# Read at import, before conftest's fixture clears the SNOWFLAKE_* variables.
EXAMPLES = int(os.environ.get("SNOWFLAKE_C_STATEFUL_EXAMPLES") or 30)
STEPS = int(os.environ.get("SNOWFLAKE_C_STATEFUL_STEPS") or 40)

# The 57-bit layout's epoch: 300 days back, so that its integers from now on lie
# below the 63-bit layouts' (it starts beside them); the run's own like OWN_EPOCH.
NARROW_EPOCH = (time.time_ns() // 1_000_000 - 300 * 86_400_000) // 1000 * 1000 + OWN_EPOCH % 1000

# The rules, and what each needs of the system.
RULES = [
    "create",
    "create_to_wait",
    "create_beside_a_live_one",
    "hand_over",
    "hand_over_ahead",
    "issue",
    "issue_at",
    "stats",
    "decode",
    "close",
    "call_closed",
    "close_while_another_thread_issues",
    "close_while_another_thread_waits",
    "close_from_a_signal_handler_while_waiting",
    "drop",
    "threads",
    "fork",
]
NEEDS = {
    "fork": (hasattr(os, "fork"), "no os.fork here"),
    "close_from_a_signal_handler_while_waiting": (hasattr(signal, "setitimer"), "no signal.setitimer here"),
}


@cache
def namespaces_prefix() -> tuple[str, ...] | None:
    """A command prefix that runs a program in network and mount namespaces of its
    own with a fresh /dev/shm (unshare, or unshare -r without privileges), or None
    where this system cannot."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return None
    script = 'mount -t tmpfs -o mode=1777 snowflake-c-machine /dev/shm && exec "$@"'
    for unshare in (("unshare", "--net", "--mount"), ("unshare", "--map-root-user", "--net", "--mount")):
        prefix = (*unshare, "sh", "-c", script, "sh")
        try:
            r = subprocess.run([*prefix, "true"], capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if r.returncode == 0:
            return prefix
    return None


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The machine's run: its exit status, output and summary."""
    prefix = namespaces_prefix()
    shared = prefix is None
    cmd = [*(prefix or ()), sys.executable, str(MACHINE)]
    cmd += [str(OWN_EPOCH), str(NARROW_EPOCH), str(EXAMPLES), str(STEPS), str(int(shared))]
    env = {**os.environ, "PYTHONMALLOC": "debug", "PYTHONFAULTHANDLER": "1"}
    # Only a guard against a hang: about 2 s a step would be far past any run seen.
    r = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path_factory.mktemp("machine"),
        timeout=max(900, 2 * EXAMPLES * STEPS),
    )
    lines = r.stdout.splitlines()
    try:
        summary: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        summary = {"counts": {}}
    print(json.dumps(summary, indent=1))
    summary["returncode"] = r.returncode
    summary["output"] = (r.stdout + r.stderr)[-20000:]
    return summary


def test_the_state_machine_finds_nothing_wrong(machine: dict[str, Any]) -> None:
    assert machine["returncode"] == 0, machine["output"]
    assert machine["examples"] >= EXAMPLES and machine["steps"] > 0, machine


@pytest.mark.parametrize("rule", RULES)
def test_every_rule_ran(machine: dict[str, Any], rule: str) -> None:
    """A rule whose precondition never held checked nothing."""
    available, why = NEEDS.get(rule, (True, ""))
    if not available:
        pytest.skip(f"the machine's {rule} rule: {why}")
    assert machine["counts"].get(f"rule: {rule}", 0) > 0, machine["counts"]


def test_the_machine_has_claims_of_its_own() -> None:
    if namespaces_prefix() is None:
        pytest.skip(
            "no network and mount namespaces here (unshare): the machine shares the host's "
            "claims, and may refuse or be refused by another suite's generators"
        )
