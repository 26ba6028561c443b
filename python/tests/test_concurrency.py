"""Threads, forked children and process pools: never a duplicate ID."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from barrier import meet

import snowflake_c as sfc
from conftest import OWN_EPOCH, own

# A generator with a state_dir has a core thread that persists its
# high-water mark off the hot path, so forking one is forking a threaded
# process; the core's pthread_atfork handlers make that safe.
pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")

THREADS = 8
PER_THREAD = 200_000


def test_threads_share_one_generator_without_duplicates() -> None:
    g = sfc.Generator(**own("default"), node={"worker": 1})
    results: list[list[int]] = [[] for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)

    def work(slot: int) -> None:
        barrier.wait()
        out = results[slot]
        next_id = g.next_id
        for _ in range(PER_THREAD // 2):
            out.append(next_id())
        out.extend(g.next_ids(PER_THREAD // 2))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [i for ids in results for i in ids]
    assert len(everything) == THREADS * PER_THREAD
    assert len(set(everything)) == len(everything), "duplicate IDs across threads"
    for ids in results:
        assert ids == sorted(ids), "IDs increase within each thread"
    assert g.stats()["ids_issued"] == THREADS * PER_THREAD
    g.close()


def exhausted_generator(min_wait_s: float = 10.0) -> sfc.Generator:
    """A generator whose next call must wait at least `min_wait_s` for its clock."""
    # Two IDs per one-minute tick.
    g = sfc.Generator(layout="time:30@60s,worker:1,seq:1", epoch=0, node=0)
    while True:
        while g.next_id_at(g.now_us())[0] is not None:
            pass
        wait_us = g.next_id_at(g.now_us())[1]
        if wait_us >= min_wait_s * 1e6:
            return g
        time.sleep(wait_us / 1e6 + 0.05)


def test_close_while_another_thread_waits() -> None:
    g = exhausted_generator()
    errors: list[BaseException] = []

    def waiter() -> None:
        try:
            g.next_id()
        except BaseException as e:  # noqa: BLE001 - recorded for the assertion
            errors.append(e)

    t = threading.Thread(target=waiter)
    t.start()
    while g.stats()["waits"] == 0:  # until the call waits for its tick
        time.sleep(0.001)
    g.close()
    t.join()
    # Woken by close(): the closed error, not the ID the tick (10 s or more
    # away) would have brought.
    assert len(errors) == 1 and isinstance(errors[0], sfc.InvalidArgument), errors


def test_close_ends_a_call_in_flight_and_gives_the_value_back() -> None:
    """close() while another thread is inside a large next_ids (the GIL released): the call
    ends with the closed error, and once close() returns the value is free, every time."""
    # 65,536 IDs per ms: a batch of 2,000,000 takes the clock 30 ms or more.
    kwargs: dict[str, Any] = {"layout": "time:41@1ms,worker:6,seq:16", "epoch": OWN_EPOCH, "node": 9}
    rounds, taken_again = 50, 0
    outcomes: list[str] = []
    for _ in range(rounds):
        g = sfc.Generator(**kwargs)
        entered = threading.Event()

        def big(g: sfc.Generator = g, entered: threading.Event = entered) -> None:
            entered.set()
            try:
                outcomes.append(f"{len(g.next_ids(2_000_000))} issued")
            except sfc.InvalidArgument as e:
                outcomes.append(str(e))

        t = threading.Thread(target=big)
        t.start()
        entered.wait()
        time.sleep(0.002)  # the batch runs without the GIL meanwhile
        g.close()
        try:
            sfc.Generator(**kwargs).close()
            taken_again += 1
        except sfc.WorkerUnavailable:
            pass
        t.join()
    assert all("closed" in o for o in outcomes), outcomes
    assert taken_again == rounds


def test_wait_releases_the_gil_and_ctrl_c_interrupts_it() -> None:
    g = exhausted_generator()
    ticks = 0
    stop = threading.Event()
    waiting = threading.Event()

    def busy() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    def interrupt() -> None:
        # Interrupt once another thread has run 20 times during the wait.
        waiting.wait()
        start = ticks
        deadline = time.monotonic() + 8
        while ticks - start < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    counter = threading.Thread(target=busy)
    counter.start()
    killer = threading.Thread(target=interrupt)
    killer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            waiting.set()
            g.next_id()  # would wait at least 10 s for the next tick
    finally:
        stop.set()
        counter.join()
        killer.join()
    # Ctrl-C ended the wait, not the tick: the clock is still short of it.
    assert g.next_id_at(g.now_us())[0] is None, "the wait ran to its tick"
    assert ticks > 20, "another thread ran while next_id() waited"
    g.close()


def _fork_and_report(g: sfc.Generator) -> tuple[int, str]:
    """Runs g.next_id() in a forked child; returns the child's exit code and report."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            report = f"id {g.next_id()} {g.node}"
        except sfc.SnowflakeError as e:
            report = f"{e.status} {e}"
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            report = f"unexpected {e!r}"
        os.write(w, report.encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        report = f.read()
    _, status = os.waitpid(pid, 0)
    return status, report


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_with_a_static_worker_gets_generator_forked() -> None:
    with sfc.Generator(**own("default"), node={"worker": 4}) as g:
        parent_id = g.next_id()
        status, report = _fork_and_report(g)
        assert status == 0
        assert report.startswith("GeneratorForked "), report
        assert g.next_id() > parent_id, "the parent carries on"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_in_pool_mode_takes_a_fresh_worker(tmp_path: Path) -> None:
    with sfc.Generator(preset="default", node={"worker": "auto"}, state_dir=tmp_path) as g:
        parent_worker = g.node["worker"]
        g.next_id()
        status, report = _fork_and_report(g)
        assert status == 0
        assert report.startswith("id "), report
        child_id = int(report.split()[1])
        assert sfc.decode(child_id, g.layout).fields["worker"] != parent_worker


# --- process pools -------------------------------------------------------

_pool_gen: sfc.Generator | None = None


def _init_pool(state_dir: str) -> None:
    global _pool_gen
    _pool_gen = sfc.Generator(preset="default", node={"worker": "auto"}, state_dir=state_dir)


_met = False


def _pool_task(task: tuple[int, str]) -> tuple[int, list[int]]:
    n, barrier = task
    g = _pool_gen if _pool_gen is not None else _inherited
    assert g is not None
    global _met
    if not _met:
        # A worker's first task waits until another worker has taken one:
        # the first one up cannot take them all, however busy the machine.
        meet(barrier, 2)
        _met = True
    return os.getpid(), g.next_ids(n)


_inherited: sfc.Generator | None = None


def _check_pool_results(results: list[tuple[int, list[int]]], layout: sfc.Layout) -> None:
    ids = [i for _, batch in results for i in batch]
    assert len(set(ids)) == len(ids), "duplicate IDs across processes"
    workers: dict[int, set[int]] = {}
    for pid, batch in results:
        workers.setdefault(pid, set()).update(sfc.decode(i, layout).fields["worker"] for i in batch)
    assert all(len(w) == 1 for w in workers.values()), workers
    values = [next(iter(w)) for w in workers.values()]
    assert len(set(values)) == len(values), f"two processes shared a worker: {workers}"


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_process_pool_with_auto_workers(tmp_path: Path, method: str) -> None:
    if method not in mp.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    ctx = mp.get_context(method)
    with ctx.Pool(4, initializer=_init_pool, initargs=(str(tmp_path),)) as pool:
        results = pool.map(_pool_task, [(20_000, str(tmp_path / "barrier"))] * 16, chunksize=1)
    _check_pool_results(results, sfc.Layout.preset("default"))
    assert len({pid for pid, _ in results}) >= 2


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")
def test_fork_pool_sharing_the_parents_generator(tmp_path: Path) -> None:
    global _inherited
    _inherited = sfc.Generator(preset="default", node={"worker": "auto"}, state_dir=tmp_path)
    try:
        parent = _inherited.next_ids(1000)
        with mp.get_context("fork").Pool(4) as pool:
            results = pool.map(_pool_task, [(20_000, str(tmp_path / "barrier"))] * 16, chunksize=1)
        results.append((os.getpid(), parent + _inherited.next_ids(1000)))
        _check_pool_results(results, _inherited.layout)
    finally:
        _inherited.close()
        _inherited = None
