"""close() from wherever it comes while a call of the same generator is under way: a
signal handler that a waiting call runs, a finalizer that a collection inside a call
runs, another thread. The call ends with the closed error and never touches freed
memory. Each case runs in a child process, since a use of freed memory may crash:
with MALLOC_PERTURB_ (freed memory is overwritten, so a message read from it is
garbage) and, where valgrind is installed, under valgrind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import OWN_EPOCH

CLOSED = "InvalidArgument: the generator is closed: create a new one"

# The child: one case, its outcome as a JSON object on the last line.
CHILD = r"""
import gc, json, signal, sys, threading, time
from array import array
import snowflake_c as sfc

case, epoch, node = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
g = sfc.Generator(layout="time:41@1ms,worker:10,seq:12", epoch=epoch, node=node,
                  rollback="wait", max_wait="10s")
out = {"handler_in_call": None}
in_call = False

def close_now(*_):
    out["handler_in_call"] = in_call
    g.close()

def outcome(call):
    global in_call
    in_call = True
    try:
        result = call()
        out["result"] = result if isinstance(result, dict) else f"{len(result)} IDs"
    except sfc.SnowflakeError as e:
        out["result"] = f"{type(e).__name__}: {e}"
    in_call = False

if case == "stats-finalizer":
    # A collection at an allocation inside stats(), whose callback closes. The
    # dicts kept here empty the free list, which would skip the collector.
    def collected(phase, info):
        if phase == "start" and in_call and out["handler_in_call"] is None:
            close_now()
    kept = [{} for _ in range(200)]
    gc.callbacks.append(collected)
    gc.set_threshold(1)
    outcome(g.stats)
    gc.set_threshold(700)
    gc.callbacks.remove(collected)
    stats = out["result"]
    out["result"] = {"node": stats["node"], "guard": stats["guard"][:5]}
else:
    # An ID 3 s ahead of the clock: the next call waits for the clock (rollback wait).
    g.next_id_at(g.now_us() + 3_000_000)
    if case == "thread":
        threading.Timer(0.3, close_now).start()
    else:
        signal.signal(signal.SIGALRM, close_now)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
    calls = {"next_id": g.next_id, "thread": g.next_id,
             "next_ids": lambda: g.next_ids(3),
             "next_ids-large": lambda: g.next_ids(5000),
             "fill": lambda: g.fill(array("Q", bytes(80)))}
    outcome(calls[case])
print(json.dumps(out))
"""

CASES = ["next_id", "next_ids", "next_ids-large", "fill", "thread", "stats-finalizer"]
# From 3.12 the collector runs between bytecodes only, never inside a call.
if sys.version_info >= (3, 12):
    CASES.remove("stats-finalizer")


def run_child(case: str, node: int, prefix: list[str], env: dict[str, str]) -> dict[str, object]:
    r = subprocess.run(
        [*prefix, sys.executable, "-c", CHILD, case, str(OWN_EPOCH), str(node)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr[-4000:]}"
    result: dict[str, object] = json.loads(r.stdout.splitlines()[-1])
    return result


def check(case: str, node: int, out: dict[str, object]) -> None:
    assert out["handler_in_call"] is True, f"close() came while the call ran: {out}"
    if case == "stats-finalizer":
        assert out["result"] == {"node": {"worker": node}, "guard": "held:"}, out
    else:
        # The closed error, not the IDs the 3 s wait would have ended with.
        assert out["result"] == CLOSED, out


@pytest.mark.parametrize("case", CASES)
def test_close_while_a_call_runs_with_freed_memory_perturbed(case: str) -> None:
    node = CASES.index(case)
    check(case, node, run_child(case, node, [], {"MALLOC_PERTURB_": "165"}))


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.parametrize("case", CASES)
def test_close_while_a_call_runs_under_valgrind(case: str) -> None:
    # A node value per case and test: each hands its IDs ahead of the clock
    # over to the value's next holder, which would start behind them.
    node = len(CASES) + CASES.index(case)
    vg = ["valgrind", "-q", "--error-exitcode=99", "--undef-value-errors=no"]
    check(case, node, run_child(case, node, vg, {"PYTHONMALLOC": "malloc"}))
