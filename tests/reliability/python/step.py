"""A real wall-clock step backwards while the Python binding generates.

Run under libfaketime (LD_PRELOAD of the thread-safe libfaketimeMT.so.1,
FAKETIME_TIMESTAMP_FILE holding the starting offset, FAKETIME_NO_CACHE=1,
FAKETIME_DONT_FAKE_MONOTONIC=1). The script generates, writes "+0" to the
timestamp file -- the wall clock steps back by the offset -- generates on,
and checks the strategy's behaviour, and that the only steps back of the
wall clock were the ones it made: the generating thread watches the wall
clock against the monotonic clock and must see exactly as many steps back as
it injected, and the generator must count one rollback (none for a step that
borrowing absorbs). Prints "STEPS seen=N injected=N generator=N" before the
RESULT line.

Usage: step.py ROLLBACK MAX_WAIT MAX_DRIFT STEP_MS refuse|wait|bump|borrow
(durations in ms, or "default" for the strategy's). Prints the RESULT line of tests/reliability/run.
"""

import os
import select
import sys
import time

import snowflake_c

# The default preset's fields on the row's epoch (RELIABILITY_EPOCH_MS, set
# by tests/reliability/run): the host-wide claim is keyed on the epoch, so
# the value is shared with nothing else on the machine, and what a run
# leaves ahead of the clock is read by its own row only.
ROW_LAYOUT = {
    "layout": "time:41@1ms,clock:3,worker:7,seq:12",
    "epoch": int(os.environ.get("RELIABILITY_EPOCH_MS", "1704067200000")),
}


def set_offset(fd, seconds):
    """One pwrite of a fixed-width text: no file created or renamed, so the
    step happens microseconds after the call."""
    os.pwrite(fd, f"{seconds:+016.6f}\n".encode(), 0)


class Watch:
    """Steps back of the wall clock seen from the generating thread: the
    wall clock's offset from the monotonic clock (which libfaketime leaves
    alone), read again and again; a drop of more than 0.5 ms (the shortest
    step made is 1 ms) between two readings is a step. A reading interrupted
    for more than 50 us is made again."""

    def __init__(self):
        self.last = None
        self.back = 0

    def __call__(self):
        for _ in range(20):
            m0 = time.monotonic_ns()
            w = time.time_ns()
            m1 = time.monotonic_ns()
            if m1 - m0 <= 50_000:
                break
        else:
            return
        d = (w - m0 - (m1 - m0) // 2) // 1000
        if self.last is not None and d < self.last - 500:
            self.back += 1
            print(
                f"python step: the wall clock stepped back {(self.last - d) / 1000:.3f} ms",
                file=sys.stderr,
            )
        self.last = d


watch = Watch()


def run(gen, seconds, out):
    """Generates in batches of 16 for `seconds` of monotonic time."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            out.extend(gen.next_ids(16))
        finally:
            watch()
        select.select([], [], [], 0.0001)


def main():
    rollback, max_wait, max_drift, step_ms, expect = sys.argv[1:6]
    step_ms = float(step_ms)
    path = os.environ["FAKETIME_TIMESTAMP_FILE"]
    with open(path, encoding="ascii") as f:
        offset = float(f.read().strip())
    fd = os.open(path, os.O_WRONLY)
    set_offset(fd, offset)
    kwargs = {**ROW_LAYOUT, "node": {"worker": 7}, "rollback": rollback}
    # "default" leaves the option out: the strategy's own applies.
    if max_wait != "default":
        kwargs["max_wait"] = int(max_wait)
    if max_drift != "default":
        kwargs["max_drift"] = int(max_drift)
    gen = snowflake_c.Generator(**kwargs)
    layout = gen.layout
    unit_us = layout.describe()["unit_us"]
    epoch_us = layout.epoch_ms * 1000
    out, notes, faults = [], [], 0
    error = None
    ahead = False
    seen_ms = 0.0
    try:
        run(gen, 0.15, out)
        # A short step is only a rollback if the next reading lands in an
        # earlier tick than the last ID: step right after an ID issued at
        # the start of a tick, and again if a preemption hid it.
        for attempt in range(30):
            before = gen.stats()["rollbacks"]
            if attempt:
                set_offset(fd, offset)
                run(gen, 0.02, out)
            d0 = gen.now_us() - time.monotonic_ns() // 1000
            while (gen.now_us() - epoch_us) % unit_us > 150:
                pass
            out.append(gen.next_id())
            watch()
            set_offset(fd, 0)
            faults += 1
            seen = False
            try:
                try:
                    first = gen.next_id()
                finally:
                    watch()
                now_tick = (gen.now_us() - epoch_us) // unit_us
                out.append(first)
                tick = snowflake_c.decode(first, layout=layout)["time"]
                ahead = ahead or tick > now_tick
                seen = ahead or gen.stats()["rollbacks"] > before
                if seen:
                    run(gen, 0.2, out)
            finally:
                seen_ms = (d0 - (gen.now_us() - time.monotonic_ns() // 1000)) / 1000
            if seen:
                break
    except snowflake_c.SnowflakeError as e:
        error = e
    stats = gen.stats()
    print("python step:", stats, file=sys.stderr)
    dups = len(out) - len(set(out))
    ok = True
    expected = unexpected = 0

    def fail(msg):
        nonlocal ok
        ok = False
        notes.append(msg)

    if dups:
        fail(f"{dups} duplicate IDs")
    # Exactly the steps injected, as this thread saw the wall clock and as
    # the generator counted them: one rollback for the step it saw, none when
    # borrowing absorbs it (a 1 h step is refused even with borrow).
    print(f"STEPS seen={watch.back} injected={faults} generator={stats['rollbacks']}")
    if watch.back != faults:
        fail(f"the wall clock stepped back {watch.back} times, {faults} steps injected")
    rollbacks = 0 if expect == "borrow" else 1
    if stats["rollbacks"] != rollbacks:
        fail(f"the generator counted {stats['rollbacks']} rollbacks, not {rollbacks}")
    if expect == "bump" and stats["clock_bumps"] > 1:
        fail(f"the clock field bumped {stats['clock_bumps']} times for one step")
    if not step_ms * 0.98 - 0.1 <= seen_ms <= step_ms * 1.02 + 0.1:
        fail(f"the clock stepped {seen_ms:.3f} ms, not {step_ms} ms")
    refused = isinstance(error, snowflake_c.ClockMovedBackwards)
    if error is not None and not refused:
        unexpected += 1
        fail(f"{type(error).__name__}: {error}")
    if expect == "refuse":
        if not refused:
            fail(f"expected ClockMovedBackwards, got {error!r}")
        else:
            expected += 1
            if "moved backwards by" not in str(error):
                fail(f"the message does not say by how much: {error}")
            if stats["rollbacks_refused"] < 1:
                fail("rollbacks_refused=0")
    else:
        if refused:
            unexpected += 1
            fail(f"refused: {error}")
        if expect == "wait":
            if stats["rollbacks_waited"] < 1:
                fail("rollbacks_waited=0")
            if stats["clock_bumps"]:
                fail("clock bumped while waiting")
            if out != sorted(out):
                fail("not increasing")
        elif expect == "bump":
            if stats["clock_bumps"] < 1:
                fail("clock_bumps=0")
        elif expect == "borrow":
            if not ahead:
                fail("no ID issued ahead of the clock")
            if step_ms >= 1000 and stats["borrowed_ticks"] < 1:
                fail("borrowed_ticks=0")
            if out != sorted(out):
                fail("not increasing")
        else:
            fail(f"unknown expectation {expect}")
    note = "; ".join(notes) if notes else f"step {seen_ms:.3f} ms seen"
    print(
        f"RESULT ids={len(out)} faults={faults} dups={dups} expected={expected} "
        f"unexpected={unexpected} ok={int(ok)} note={note}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
