"""snowflake-c's Python binding beside the ID generators a Python user would pick.

Every contender runs the same harness: a C-level loop (``deque(starmap(f,
repeat((), n)), maxlen=0)``) so no Python bytecode is counted per ID, in
interleaved repetitions (each round runs every contender once, in a shuffled
order), reporting the median rate. The single-ID and batch contenders keep
every ID of their timed runs in a list, as a caller does, and every kept ID is
checked for duplicates after the run; the others are checked on a sample taken
in a separate pass. As timeit does, each timed run starts after a full garbage
collection and runs with the collector off: a collection of the inputs that
other contenders keep (millions of tuples) would otherwise land in whichever
run crossed its threshold. Peers that are absent are reported as such.

Usage: python bench.py [--quick] [--reps N] [--json PATH]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
import uuid
from array import array
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain, cycle, islice, repeat, starmap
from typing import Any

import snowflake_c

WIDE = "time:41@1ms,worker:2,seq:20"  # 2^20 IDs per ms: measures the call, not the layout
CLASSIC = "time:41@1ms,worker:10,seq:12"  # 4096 IDs per ms: the layout is the limit
EPOCH = 1704067200000
COUNTER_NAME = "snowflake-c next_id() [wide, time_source=counter]"
FLOOR_NAME = "minimal binding next_id() [wide, floor]"


# `run(n)` issues about n IDs and returns the rate (IDs/s) and the IDs issued, where
# the run keeps them (None where it does not).
Runner = Callable[[int], tuple[float, list[Any] | None]]


@dataclass
class Case:
    """One contender: `run(n)` issues about n IDs; `sample(n)` gives n of its outputs."""

    group: str
    name: str
    run: Runner
    sample: Callable[[int], list[Any]]
    n: int
    rates: list[float] = field(default_factory=list)
    unique: bool | None = None
    duplicates: int = 0
    checked: int = 0
    note: str = ""


def timed(body: Callable[[], int]) -> tuple[float, None]:
    start = time.perf_counter()
    count = body()
    return count / (time.perf_counter() - start), None


def kept(body: Callable[[], list[Any]]) -> tuple[float, list[Any]]:
    """The rate of a run that keeps every ID it issues, and those IDs."""
    start = time.perf_counter()
    ids = body()
    return len(ids) / (time.perf_counter() - start), ids


def single(f: Callable[[], Any]) -> tuple[Runner, Callable[[int], list[Any]]]:
    def run(n: int) -> tuple[float, list[Any]]:
        return kept(lambda: list(starmap(f, repeat((), n))))

    def sample(n: int) -> list[Any]:
        return list(starmap(f, repeat((), n)))

    return run, sample


def batched(f: Callable[[int], list[Any]], size: int) -> tuple[Runner, Callable[[int], list[Any]]]:
    def run(n: int) -> tuple[float, list[Any]]:
        calls = max(n // size, 1)
        return kept(lambda: list(chain.from_iterable(starmap(f, repeat((size,), calls)))))

    def sample(n: int) -> list[Any]:
        out: list[Any] = []
        for _ in range(max(n // size, 1)):
            out.extend(f(size))
        return out

    return run, sample


def filled(g: snowflake_c.Generator, buf: Any) -> tuple[Runner, Callable[[int], list[Any]]]:
    size = len(buf)

    def run(n: int) -> tuple[float, None]:
        fill = g.fill
        calls = max(n // size, 1)

        def body() -> int:
            for _ in range(calls):
                fill(buf)
            return calls * size

        return timed(body)

    def sample(n: int) -> list[Any]:
        out: list[Any] = []
        for _ in range(max(n // size, 1)):
            g.fill(buf)
            out.extend(buf.tolist())
        return out

    return run, sample


def sustained(
    f: Callable[..., Any], args: tuple[Any, ...], per_call: int, seconds: float
) -> tuple[Runner, Callable[[int], list[Any]]]:
    """For the layout limit: the steady rate over the last two thirds of a
    `seconds`-long run, so a tick's leftover sequence (or borrowed ticks) at
    the start does not count."""
    chunk = 64

    def run(n: int) -> tuple[float, None]:
        del n
        start = time.perf_counter()
        mark = start + seconds / 3
        end = start + seconds
        count = 0
        t = start
        while t < mark:
            deque(starmap(f, repeat(args, chunk)), maxlen=0)
            t = time.perf_counter()
        t0 = t
        while t < end:
            deque(starmap(f, repeat(args, chunk)), maxlen=0)
            count += chunk * per_call
            t = time.perf_counter()
        return count / (t - t0), None

    def sample(n: int) -> list[Any]:
        out: list[Any] = []
        while len(out) < n:
            got = f(*args)
            out.extend(got if isinstance(got, list) else [got])
        return out

    return run, sample


def converted(f: Callable[..., Any], inputs: list[tuple[Any, ...]]) -> tuple[Runner, Callable[[int], list[Any]]]:
    """n calls of f over the inputs, round and round; the sample sees each input once."""

    def run(n: int) -> tuple[float, None]:
        def body() -> int:
            deque(starmap(f, islice(cycle(inputs), n)), maxlen=0)
            return n

        return timed(body)

    def sample(n: int) -> list[Any]:
        return list(starmap(f, inputs[:n]))

    return run, sample


def encoding_cases(g: snowflake_c.Generator, n: int) -> list[Case]:
    """format_id() and parse_id(): string forms per second, on real IDs."""
    ids = g.next_ids(min(n, 200_000))
    cases = []
    for encoding in ("base32", "base62", "hex"):
        texts = [snowflake_c.format_id(i, encoding) for i in ids]
        fmt = [(i, encoding) for i in ids]
        parse = [(t, encoding) for t in texts]
        cases.append(
            Case("encode", f"snowflake-c format_id(id, {encoding!r})", *converted(snowflake_c.format_id, fmt), n)
        )
        cases.append(
            Case("encode", f"snowflake-c parse_id(text, {encoding!r})", *converted(snowflake_c.parse_id, parse), n)
        )
    return cases


def decode_cases(g: snowflake_c.Generator, n: int) -> list[Case]:
    """decode(): IDs split per second, as a Parts and as its canonical JSON."""
    ids = g.next_ids(min(n, 200_000))
    layout = g.layout
    inputs = [(i, layout) for i in ids]

    def to_json(i: int, layout: snowflake_c.Layout) -> str:
        return snowflake_c.decode(i, layout).to_json()

    def decoded(f: Callable[..., Any]) -> Callable[[int], list[Any]]:
        # The sample is the IDs read back, so that the uniqueness check has hashable values.
        return lambda k: [snowflake_c.decode(i, layout).id for i in ids[:k] if f(i, layout)]

    cases = []
    for name, f in (("decode(id, layout)", snowflake_c.decode), ("decode(id, layout).to_json()", to_json)):
        run, _ = converted(f, inputs)
        cases.append(Case("decode", f"snowflake-c {name}", run, decoded(f), n))
    return cases


def snowflake_c_cases(n: int, seconds: float) -> list[Case]:
    wide = snowflake_c.Generator(layout=WIDE, epoch=EPOCH, node={"worker": 1})
    # The wall clock read again only once the processor's counter shows its millisecond over.
    counter = snowflake_c.Generator(layout=WIDE, epoch=EPOCH, node={"worker": 3}, time_source="counter")
    classic = snowflake_c.Generator(layout=CLASSIC, epoch=EPOCH, node={"worker": 1})
    drift = snowflake_c.Generator(layout=CLASSIC, epoch=EPOCH, node={"worker": 2}, max_drift=20)
    cases = [
        Case("single", "snowflake-c next_id() [wide]", *single(wide.next_id), n),
        Case("single", COUNTER_NAME, *single(counter.next_id), n),
        # As many IDs kept as its peer's batch keeps (sonyflake-turbo's): a list of
        # ten million ints costs more a kept ID than one of two million.
        Case("batch", "snowflake-c next_ids(1000) [wide]", *batched(wide.next_ids, 1000), n),
        Case("buffer", "snowflake-c fill(array('Q', 1M)) [wide]", *filled(wide, array("Q", bytes(8 << 20))), n * 20),
        Case("limit", "snowflake-c next_ids(1000) [classic]", *sustained(classic.next_ids, (1000,), 1000, seconds), n),
        Case("limit", "snowflake-c next_id() [classic]", *sustained(classic.next_id, (), 1, seconds), n),
        Case(
            "limit",
            "snowflake-c next_ids(1000) [classic, max_drift=20]",
            *sustained(drift.next_ids, (1000,), 1000, seconds),
            n,
        ),
    ]
    try:
        import numpy as np

        cases.insert(
            3,
            Case(
                "buffer",
                "snowflake-c fill(numpy.uint64 1M) [wide]",
                *filled(wide, np.zeros(1 << 20, dtype=np.uint64)),
                n * 20,
            ),
        )
    except ImportError:
        pass
    return cases + encoding_cases(wide, n) + decode_cases(wide, n)


def peer_cases(n: int) -> tuple[list[Case], list[str]]:
    cases: list[Case] = []
    missing: list[str] = []
    try:
        from snowflake import SnowflakeGenerator

        gen = SnowflakeGenerator(1, epoch=EPOCH)

        def snowflake_id_next() -> int:
            # next() answers None when the millisecond's sequence is spent: retry, as a caller must.
            while (value := next(gen)) is None:
                pass
            return value

        cases.append(Case("single", "snowflake-id next(gen)", *single(snowflake_id_next), n // 10))
    except ImportError:
        missing.append("snowflake-id")
    try:
        from sonyflake_turbo import SonyFlake

        # Many machine IDs lift sonyflake's 25,600 IDs/s per machine (its documented way to scale).
        sf = SonyFlake(*range(4096))
        cases.append(Case("single", "sonyflake-turbo next(sf) [4096 machines]", *single(sf.__next__), n))
        cases.append(Case("batch", "sonyflake-turbo sf(1000) [4096 machines]", *batched(sf, 1000), n))
    except ImportError:
        missing.append("sonyflake-turbo")
    try:
        from snowflake_id_toolkit import TwitterSnowflakeIDGenerator

        toolkit = TwitterSnowflakeIDGenerator(node_id=1, epoch=EPOCH)
        cases.append(
            Case("single", "snowflake-id-toolkit generate_next_id()", *single(toolkit.generate_next_id), n // 10)
        )
    except ImportError:
        missing.append("snowflake-id-toolkit")
    try:
        import uuid_utils

        cases.append(Case("single", "uuid-utils uuid7()", *single(uuid_utils.uuid7), n))
    except ImportError:
        missing.append("uuid-utils")
    cases.append(Case("single", "stdlib uuid.uuid4()", *single(uuid.uuid4), n // 4))
    return cases, missing


def floor_cases(n: int) -> tuple[list[Case], list[str]]:
    """The floor of the design: a minimal C extension doing next_id()'s work on the wide
    layout (clock read, tick, compare-and-swap of one word, a Python int), built by run.sh
    from benchmarks/python/floor/."""
    try:
        import sfc_floor
    except ImportError:
        return [], ["sfc_floor (benchmarks/python/floor)"]
    floor = sfc_floor.Floor(EPOCH, 2, 20, 1)  # WIDE: worker:2 (= 1), seq:20
    return [Case("single", FLOOR_NAME, *single(floor.next_id), n)], []


def measure(cases: list[Case], reps: int) -> None:
    for case in cases:  # warm up, and check for duplicates once
        ids = case.sample(min(case.n, 2_000_000))
        case.checked = len(ids)
        case.duplicates = len(ids) - len(set(ids))
        case.unique = case.duplicates == 0
    for _ in range(reps):
        order = cases[:]
        random.shuffle(order)
        for case in order:
            gc.collect()
            gc.disable()
            try:
                rate, ids = case.run(case.n)
            finally:
                gc.enable()
            case.rates.append(rate)
            if ids is not None:  # every ID of the timed run, checked outside its timing
                case.checked += len(ids)
                case.duplicates += len(ids) - len(set(ids))
                case.unique = case.duplicates == 0
            # Freed before the next run, so that every run finds the allocator in the same state.
            del ids


def fmt_rate(r: float) -> str:
    return f"{r / 1e6:8.2f} M/s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a short smoke run")
    ap.add_argument("--reps", type=int, default=None, help="interleaved repetitions (default 11, quick 2)")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args()
    reps = args.reps or (2 if args.quick else 11)
    n = 100_000 if args.quick else 2_000_000

    ours = snowflake_c_cases(n, 0.6 if args.quick else 1.5)
    peers, missing = peer_cases(n)
    floors, floor_missing = floor_cases(n)
    cases = ours + peers + floors
    measure(cases, reps)

    med = {c.name: statistics.median(c.rates) for c in cases}
    singles_peers = [c for c in peers if c.group == "single"]
    fastest_peer = max(singles_peers, key=lambda c: med[c.name]) if singles_peers else None
    classic_limit = snowflake_c.Layout(CLASSIC, EPOCH).ids_per_second

    print(
        f"snowflake-c {snowflake_c.__version__} on Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs; {reps} interleaved repetitions, medians"
    )
    print(f"wide layout {WIDE}; classic layout {CLASSIC} (limit {classic_limit / 1e6:.3f} M/s)")
    print()
    print(f"{'contender':<56} {'median':>12} {'min':>12} {'max':>12}  unique")
    for group in ("single", "batch", "buffer", "limit", "encode", "decode"):
        for c in cases:
            if c.group != group:
                continue
            extra = ""
            if group == "limit":
                extra = f"  {100 * med[c.name] / classic_limit:.2f}% of the layout limit"
            print(
                f"{c.name:<56} {fmt_rate(med[c.name]):>12} {fmt_rate(min(c.rates)):>12} "
                f"{fmt_rate(max(c.rates)):>12}  {'yes' if c.unique else 'NO'}{extra}"
            )
        print()
    for name in missing:
        print(f"{name}: not installed (pip install -r benchmarks/python/requirements.txt)")
    for name in floor_missing:
        print(f"{name}: not built (benchmarks/python/run.sh builds it)")

    targets: dict[str, Any] = {}
    ours_single = med["snowflake-c next_id() [wide]"]
    if fastest_peer is not None:
        ratio = ours_single / med[fastest_peer.name]
        targets["next_id_vs_fastest_peer"] = {
            "ratio": ratio,
            "peer": fastest_peer.name,
            "target": 2.5,
            "met": ratio >= 2.5,
        }
    targets["next_id_rate"] = {"ids_per_s": ours_single, "target": 15e6, "met": ours_single >= 15e6}
    batch = med["snowflake-c next_ids(1000) [wide]"]
    targets["next_ids_1000_rate"] = {"ids_per_s": batch, "target": 50e6, "met": batch >= 50e6}
    best_limit = max(med[c.name] for c in ours if c.group == "limit" and "next_ids" in c.name)
    targets["classic_layout_fraction"] = {
        "fraction": best_limit / classic_limit,
        "default_options": med["snowflake-c next_ids(1000) [classic]"] / classic_limit,
        "target": 0.999,
        "met": best_limit / classic_limit >= 0.999,
    }
    for name in (COUNTER_NAME, FLOOR_NAME):
        if name in med:
            print(f"{name}: {1e9 / med[name]:.2f} ns/ID; next_id() [wide] {1e9 / ours_single:.2f} ns/ID")
    print("targets:")
    for key, t in targets.items():
        shown = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in t.items()}
        print(f"  {key}: {shown}")

    if args.json:
        doc = {
            "benchmark": "python",
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "snowflake_c": snowflake_c.__version__,
            "reps": reps,
            "layouts": {"wide": WIDE, "classic": CLASSIC, "epoch_ms": EPOCH},
            "results": [
                {
                    "group": c.group,
                    "name": c.name,
                    "median_ids_per_s": med[c.name],
                    "rates": c.rates,
                    "ids_per_rep": c.n,
                    "unique": c.unique,
                    "ids_checked": c.checked,
                    "duplicates": c.duplicates,
                }
                for c in cases
            ],
            "missing_peers": missing,
            "targets": targets,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    # A peer's duplicates are a result (the report shows them); snowflake-c's
    # are a failure.
    if any(c.unique is False for c in cases):
        print("DUPLICATE IDs found", file=sys.stderr)
    if any(c.unique is False and c.name.startswith("snowflake-c ") for c in cases):
        print("snowflake-c issued DUPLICATE IDs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
