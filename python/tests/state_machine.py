"""The Python binding's state machine: Hypothesis drives the real snowflake_c API
(DESIGN.md 8a) and checks, after every step, what the README promises.

Usage: python state_machine.py EPOCH NARROW_EPOCH EXAMPLES STEPS SHARED

EPOCH is the run's own (conftest.OWN_EPOCH), NARROW_EPOCH the 57-bit layout's;
SHARED is 1 where the process shares the host's claims with other processes (then
a value held by another process is no failure), else 0.

Run by test_state_machine.py in a process of its own (under PYTHONMALLOC=debug, in
network and mount namespaces of its own where the system allows). Prints one JSON
line at its end: how many examples and steps ran and how often each rule ran, by
outcome; exits 1 when Hypothesis found a failing sequence of steps (printed before
it, shortened).

The steps: generators made, of five layouts (one with a clock field, one of 1 s
ticks, one of 57 bits that starts beside the 63-bit ones, one with a pool field)
with node values from small sets whose bits meet across layouts, with options
drawn (rollback strategy, time source, random start, guard, state_dir, a pool);
next_id, next_ids, fill, next_id_at and next_ids_at; stats; decode; close() from
the same thread, from another thread while a call waits or runs, and from a
signal handler while next_id waits for the clock; the last reference dropped
(the finalizer); a holder closed or collected and its successor started at once,
after issuing in its last tick or borrowing ticks ahead; os.fork(), with the
child's checks made in the child; threads sharing generators.

What it checks:
- no integer is issued twice in the run, across every generator, live or closed,
  of every example (IDs of the caller's times, next_id_at/next_ids_at, are left
  out, as the README says: they are not handed over; and, as it says too, a
  generator whose first ID came at a caller's time "starts that timeline from
  nothing": its IDs may repeat a predecessor's, which the summary counts as
  "repeat after a caller-timed start (documented)");
- per generator, IDs increase strictly in the order they were issued (except
  across a clock-field bump or a pool switch), and a generator of a layout and
  node value starts above every ID its predecessors issued;
- every ID decodes to its generator's node value, and decode()/encode() agree;
- a generator whose integers could meet a live one's is refused with
  WorkerUnavailable (the guard), and starts once that one is closed or
  collected; no two live generators' claims ever meet; but the same generator
  made again (the same layout and node values: a cell or a reload run twice)
  takes the value over, and the live one's calls then raise InvalidArgument
  saying so;
- every call on a closed generator raises InvalidArgument "the generator is
  closed: create a new one"; close() is idempotent; a call that close() cut short
  either raised that error or returned IDs issued before close() returned;
- a forked child gets GeneratorForked from a generator of a static value, and a
  fresh value, free of the parent's, from a pool generator;
- stats() counts every ID issued; nothing crashes.

A live generator's call may raise ClockMovedBackwards only where it, or an earlier
generator whose integers meet its, may have left IDs ahead of the clock (borrowed,
issued at a caller's time ahead, or held by a forked child that ended without
close()), and WorkerUnavailable only from rollback=switch with its pool full; any
other error is a failure.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import re
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
import weakref
from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

import snowflake_c as sfc

CLOSED = "the generator is closed: create a new one"
DAY_US = 86_400_000_000
ALL64 = (1 << 64) - 1
# At most this many live generators in an example.
MAX_LIVE = 6
# The process a WorkerUnavailable names as the holder.
HOLDER = re.compile(r"held by live process (\d+)")

Encoding = Literal["dec", "hex", "base32", "base36", "base58", "base62"]
ENCODINGS: list[Encoding] = ["dec", "hex", "base32", "base36", "base58", "base62"]

HAS_FORK = hasattr(os, "fork")
HAS_ITIMER = hasattr(signal, "setitimer")


# --- the layouts --------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """A layout of the machine and the node values drawn for it."""

    key: str
    layout: sfc.Layout
    statics: tuple[dict[str, int], ...]  # static node values
    pool: dict[str, int | str] | None = None  # node values with "auto", for a pool

    @property
    def has_clock(self) -> bool:
        return any(f.kind == "clock" for f in self.layout.fields)


def make_shapes(epoch: int, narrow_epoch: int) -> dict[str, Shape]:
    """The layouts, all with their node fields in bits 12 to 21 so that their values
    meet: worker 37 of the 10-bit field is worker 37 of the 7-bit one below a clock
    field (whose clock is free), proc 1 of rack 9, and worker 165 is worker 37 under
    clock value 1. The 57-bit layout's integers lie below the 63-bit ones' from now
    on (its epoch 300 days back puts it near its top): beside them it starts."""
    ms = sfc.Layout("time:41@1ms,worker:10,seq:12", epoch)
    clock = sfc.Layout("time:41@1ms,clock:3,worker:7,seq:12", epoch)
    coarse = sfc.Layout("time:41@1s,worker:10,seq:12", epoch)
    narrow = sfc.Layout("time:35@1ms,worker:10,seq:12", narrow_epoch)
    pool = sfc.Layout("time:41@1ms,rack:8,proc:2,seq:12", epoch)
    w37, w38, w165 = {"worker": 37}, {"worker": 38}, {"worker": 165}
    return {
        "ms": Shape("ms", ms, (w37, w38, w165)),
        "ms-auto": Shape("ms-auto", ms, (), {"worker": "auto"}),
        "clock": Shape("clock", clock, (w37, w38)),
        "coarse": Shape("coarse", coarse, (w37, w165)),
        "narrow": Shape("narrow", narrow, (w37, w38)),
        "pool": Shape("pool", pool, (), {"rack": 9, "proc": "auto"}),
    }


# Drawn with these weights: the 1 s layout's successor waits for the next second.
SHAPE_KEYS = ["ms", "ms", "ms-auto", "clock", "clock", "coarse", "narrow", "pool", "pool"]


def pattern(layout: sfc.Layout, node: dict[str, int]) -> tuple[int, int]:
    """The bits every ID of the layout and node values fixes (claim_pattern.c):
    (mask, value)."""
    mask = 0 if layout.total_bits >= 64 else (ALL64 << layout.total_bits) & ALL64
    value = 0
    for f in layout.fields:
        if f.kind == "node":
            mask |= f.max << f.shift
            value |= node[f.name] << f.shift
    return mask, value


def top_of(mask: int) -> int:
    zeros = 0
    while zeros < 64 and mask >> (63 - zeros) & 1:
        zeros += 1
    return 0 if zeros >= 64 else ALL64 >> zeros


def lowest_from_now(layout: sfc.Layout) -> int:
    """The lowest integer the layout can issue from now on: its tick of a day ago."""
    since = time.time_ns() // 1000 - DAY_US - layout.epoch_ms * 1000
    if since <= 0:
        return 0
    time_field = layout.fields[0]
    return min(since // layout.unit_us, time_field.max) << time_field.shift


def can_meet(a: tuple[sfc.Layout, dict[str, int]], b: tuple[sfc.Layout, dict[str, int]]) -> bool:
    """Whether two generators could issue one integer: the guard's question."""
    (m1, v1), (m2, v2) = pattern(*a), pattern(*b)
    if (v1 ^ v2) & m1 & m2:
        return False
    return lowest_from_now(a[0]) <= top_of(m2) and lowest_from_now(b[0]) <= top_of(m1)


def node_of(layout: sfc.Layout, id_: int) -> dict[str, int]:
    return {f.name: id_ >> f.shift & f.max for f in layout.fields if f.kind == "node"}


def clock_of(layout: sfc.Layout, id_: int) -> int:
    return next((id_ >> f.shift & f.max for f in layout.fields if f.kind == "clock"), 0)


NodeKey = tuple[tuple[str, int], ...]


def key_of(node: dict[str, int]) -> NodeKey:
    return tuple(sorted(node.items()))


def timeline(layout: sfc.Layout) -> tuple[str, int]:
    return layout.spec, layout.epoch_ms


# --- the model ----------------------------------------------------------------


@dataclass
class Entry:
    """One generator made by the machine, and what the model expects of it."""

    n: int  # its number in the run, for messages
    gen: sfc.Generator | None  # None once dropped
    ref: weakref.ref[sfc.Generator]
    shape: Shape
    node: dict[str, int]
    options: dict[str, Any]
    closed: bool = False
    dropped: bool = False
    taken_over: bool = False  # the same generator made again took its value over: the core closed it
    exposed: bool = False  # may meet a clock behind its last ID: ClockMovedBackwards is allowed
    fresh_timeline: bool = False  # its first ID came at a caller's time: no hand-over (README)
    clock_timed: bool = False  # issued an ID at the clock's time
    issued: int = 0  # what stats()["ids_issued"] should say
    drift_ms: int = 0  # how far ahead of the clock it may issue (stats()["max_drift_ms"])
    last: int | None = None  # the last ID issued at the clock's time
    nodes_seen: list[dict[str, int]] = field(default_factory=list)
    floor: dict[NodeKey, int] = field(default_factory=dict)  # the highest ID of predecessors, by value
    repeats: set[int] = field(default_factory=set)  # a fresh timeline's IDs issued before by others
    sample: list[int] = field(default_factory=list)  # a few IDs, for decode

    @property
    def live(self) -> bool:
        return not self.closed and not self.dropped and not self.taken_over

    @property
    def auto(self) -> bool:
        return self.shape.pool is not None

    def __str__(self) -> str:
        state = "dropped" if self.dropped else "closed" if self.closed else "live"
        return f"g{self.n} ({self.shape.key} {self.node} {self.options} {state})"


class Failure(AssertionError):
    pass


def fail(message: str) -> Failure:
    """The failure, its message kept for the run's summary: a failure that depends
    on timing may not come back when Hypothesis replays its steps (it then reports
    the run as flaky), and the summary still says what was seen."""
    if RUN is not None and message not in RUN.failures and len(RUN.failures) < 5:
        RUN.failures.append(message)
    return Failure(message)


def check(condition: object, message: str) -> None:
    if not condition:
        raise fail(message)


TAKEN_OVER = (
    "the generator is closed: a newer generator of this process took node value {} "
    "(a cell or a reload run again); use that one"
)


def is_closed_error(e: BaseException, entry: Entry | None = None) -> bool:
    """The closed error; for a generator taken over and not closed since, the one
    that says so."""
    if entry is not None and entry.taken_over and not entry.closed:
        node = ",".join(f"{k}={v}" for k, v in entry.node.items())
        return isinstance(e, sfc.InvalidArgument) and str(e) == TAKEN_OVER.format(node)
    return isinstance(e, sfc.InvalidArgument) and str(e) == CLOSED


def issuing_calls(g: sfc.Generator) -> dict[str, Any]:
    """Every call of a generator that issues IDs, by name: on a closed one, each
    must raise the closed error."""
    now = time.time_ns() // 1000
    return {
        "next_id": g.next_id,
        "next_ids": lambda: g.next_ids(3),
        "next_id_at": lambda: g.next_id_at(now),
        "next_ids_at": lambda: g.next_ids_at(now, 3),
        "fill": lambda: g.fill(array("Q", bytes(24))),
    }


# The run: what outlives one example. Every example's generators are the next
# ones' predecessors, so uniqueness and the hand-over are checked across them.
@dataclass
class Run:
    shapes: dict[str, Shape]
    state_root: str
    issued: dict[int, int] = field(default_factory=dict)  # ID -> the number of its generator
    highest: dict[tuple[str, int], dict[NodeKey, int]] = field(default_factory=dict)  # by layout, value
    ahead: dict[tuple[str, int, NodeKey], tuple[sfc.Layout, dict[str, int]]] = field(default_factory=dict)
    shared: bool = False  # the host's claims are shared with other processes (no namespaces of its own)
    counts: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)  # the first few seen
    examples: int = 0
    steps: int = 0
    generators: int = 0

    def state_dir(self, layout: sfc.Layout, i: int) -> str:
        """The i-th state_dir of a layout: a state file belongs to one layout (another
        layout's is a StateError: "give each layout its own state_dir")."""
        name = re.sub(r"[^a-z0-9]+", "-", layout.spec)
        return os.path.join(self.state_root, f"{name}-{layout.epoch_ms}-{i}")


RUN: Run | None = None


def the_run() -> Run:
    assert RUN is not None
    return RUN


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "rollback": st.sampled_from(["default", "error", "wait", "clock", "borrow", "switch"]),
        "max_wait": st.sampled_from([None, 20, "2s"]),
        "max_drift": st.sampled_from([None, 0, 30]),
        "random_start": st.sampled_from([None, False, True]),
        "time_source": st.sampled_from([None, "wall", "monotonic", "counter"]),
        "guard": st.sampled_from([None, True]),
        "state_dir": st.sampled_from([0, 1]),
    },
)


def ran(f: Callable[..., None]) -> Callable[..., None]:
    """A rule that counts its runs (the run's summary: every rule must have run)."""

    @functools.wraps(f)
    def counted(self: GeneratorMachine, *args: Any, **kwargs: Any) -> None:
        self.count(f"rule: {f.__name__}")
        f(self, *args, **kwargs)

    return counted


# Picks a generator among the example's (modulo their number).
PICK = st.integers(0, 255)


class GeneratorMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.run = the_run()
        self.run.examples += 1
        self.entries: list[Entry] = []

    # --- bookkeeping ---

    def count(self, what: str) -> None:
        self.run.counts[what] += 1

    def live(self) -> list[Entry]:
        return [e for e in self.entries if e.live]

    def known(self) -> list[Entry]:
        return [e for e in self.entries if not e.dropped]

    def pick(self, i: int, entries: list[Entry] | None = None) -> Entry:
        entries = self.known() if entries is None else entries
        return entries[i % len(entries)]

    def accept(self, e: Entry, ids: list[int], clock_timed: bool = True) -> None:
        """IDs e issued, one thread's in the order issued: each decodes to one of e's
        node values and, when issued at the clock's time, is new to the run, above
        the one before and above what e's predecessors of its value issued."""
        if not ids:
            return
        if e.auto:
            self.refresh_node(e)
        if clock_timed:
            e.clock_timed = True
        if not self.accept_quickly(e, ids, clock_timed):
            self.accept_slowly(e, ids, clock_timed)
        e.sample = (e.sample + [ids[0], ids[-1]])[-8:]

    def accept_quickly(self, e: Entry, ids: list[int], clock_timed: bool) -> bool:
        """accept()'s common case at C speed: one node value, strictly increasing,
        all new. False where any of that fails (then accept_slowly() judges each ID)."""
        layout = e.shape.layout
        mask, value = pattern(layout, e.node)  # the node bits, and zeros above the layout's
        if {i & mask for i in ids} != {value}:
            return False
        if not clock_timed:
            return True
        issued = self.run.issued
        distinct = set(ids)
        if len(distinct) != len(ids) or not issued.keys().isdisjoint(distinct) or sorted(ids) != ids:
            return False
        if e.last is not None and ids[0] <= e.last:
            return False
        k = key_of(e.node)
        floor = e.floor.get(k)
        if not e.shape.has_clock and floor is not None and ids[0] <= floor and not e.fresh_timeline:
            return False
        issued.update(dict.fromkeys(ids, e.n))
        e.last = ids[-1]
        if not e.shape.has_clock:
            highest = self.run.highest.setdefault(timeline(layout), {})
            highest[k] = max(highest.get(k, -1), ids[-1])
        return True

    def accept_slowly(self, e: Entry, ids: list[int], clock_timed: bool) -> None:
        """accept(), one ID at a time: the allowances (a clock bump, a switch, a
        documented repeat) and the messages of what failed."""
        layout = e.shape.layout
        run = self.run
        seen = [key_of(v) for v in e.nodes_seen]
        highest = run.highest.setdefault(timeline(layout), {})
        last = e.last
        for id_ in ids:
            node = node_of(layout, id_)
            check(key_of(node) in seen, f"{e}: ID {id_} decodes to node {node}, not one of {e.nodes_seen}")
            if not clock_timed:
                continue
            first = run.issued.get(id_)
            if first is None:
                run.issued[id_] = e.n
            elif first != e.n and e.fresh_timeline and id_ not in e.repeats:
                # Documented: a generator whose first ID came at a caller's time
                # starts that timeline from nothing (README, the guard).
                e.repeats.add(id_)
                self.count("repeat after a caller-timed start (documented)")
            else:
                raise fail(f"{e}: ID {id_} was issued before, by g{first}")
            if last is not None and id_ <= last:
                moved = clock_of(layout, id_) != clock_of(layout, last) or node_of(layout, last) != node
                check(moved, f"{e}: ID {id_} after {last}, not above it (no clock bump or switch between)")
            last = id_
            if not e.shape.has_clock:
                k = key_of(node)
                floor = e.floor.get(k)
                check(
                    floor is None or id_ > floor or e.fresh_timeline,
                    f"{e}: ID {id_} not above {floor}, the highest its predecessors issued",
                )
                if id_ > highest.get(k, -1):
                    highest[k] = id_
        e.last = last

    def refresh_node(self, e: Entry) -> None:
        """A pool generator's node values, which rollback=switch changes."""
        if e.gen is None or e.gen.closed:
            return
        node = e.gen.node
        if node != e.node:
            e.node = node
            self.count("pool switch")
        if node not in e.nodes_seen:
            e.nodes_seen.append(node)

    def expose(self, e: Entry) -> None:
        """e may leave IDs ahead of the clock: its successors may meet a clock behind."""
        e.exposed = True
        self.ahead(e.shape.layout, e.node)

    def ahead(self, layout: sfc.Layout, node: dict[str, int]) -> None:
        self.run.ahead[(*timeline(layout), key_of(node))] = (layout, dict(node))

    def behind_ahead(self, layout: sfc.Layout, node: dict[str, int]) -> bool:
        """Whether a generator of this value may start behind IDs left ahead."""
        return any(can_meet((layout, node), a) for a in self.run.ahead.values())

    def allowed(self, e: Entry, err: BaseException) -> bool:
        """Whether err is a right answer of a live generator's call."""
        if isinstance(err, sfc.ClockMovedBackwards):
            return e.exposed
        if isinstance(err, sfc.WorkerUnavailable):  # no free value to switch to
            return e.options.get("rollback") == "switch" and not self.pool_has_free(e.shape)
        return False

    def conflicts(self, layout: sfc.Layout, node: dict[str, int]) -> list[Entry]:
        """The live generators that could issue an integer of this layout and value."""
        return [o for o in self.live() if can_meet((layout, node), (o.shape.layout, o.node))]

    def maybe_held(self, layout: sfc.Layout, node: dict[str, int]) -> bool:
        """A value a live pool generator switched from may still be held (until the
        clock passes its IDs)."""
        return any(
            can_meet((layout, node), (o.shape.layout, v)) for o in self.live() for v in o.nodes_seen if v != o.node
        )

    # --- making generators ---

    @precondition(lambda self: len(self.live()) < MAX_LIVE)
    @rule(shape=st.sampled_from(SHAPE_KEYS), choice=st.integers(0, 2), options=OPTIONS)
    @ran
    def create(self, shape: str, choice: int, options: dict[str, Any]) -> None:
        self.make(shape, choice, options)

    def make(self, shape: str, choice: int, options: dict[str, Any]) -> None:
        """A generator of a shape, its node value the choice-th of the shape's (or its
        pool), with options: started, or refused as the model says it must be."""
        s = self.run.shapes[shape]
        if isinstance(options.get("state_dir"), int):
            options = {**options, "state_dir": self.run.state_dir(s.layout, options["state_dir"])}
        given = options  # None: the option's default
        options = {k: v for k, v in options.items() if v is not None}
        rollback = options.get("rollback")
        node: dict[str, Any] = dict(s.pool) if s.pool is not None else dict(s.statics[choice % len(s.statics)])
        refused = None
        if rollback == "clock" and not s.has_clock:
            refused = "needs a clock field"
        elif rollback == "switch" and (s.pool is None or "state_dir" not in options):
            refused = "takes another value from the pool"
        elif s.pool is not None and "state_dir" not in options:
            refused = "needs a state_dir"
        taken: list[Entry] = []
        if refused is None and s.pool is None:
            blockers = self.conflicts(s.layout, node)
            ambiguous = not blockers and self.maybe_held(s.layout, node)
            # The same generator again (a cell or a reload run twice) takes the
            # value over from the one live before it: the core closes that one.
            same = [b for b in blockers if not b.auto and b.shape.layout == s.layout and b.node == node]
            if same and len(same) == len(blockers):
                taken, blockers = same, []
                ambiguous = self.maybe_held(s.layout, node)
        else:
            blockers, ambiguous = [], False
        try:
            g = sfc.Generator(layout=s.layout, node=node, **given)
        except sfc.InvalidArgument as err:
            check(refused is not None and refused in str(err), f"{shape} {node} {options}: refused: {err}")
            self.count("create: invalid options refused")
            return
        except sfc.WorkerUnavailable as err:
            check(refused is None, f"{shape} {node} {options}: {err!r}, not InvalidArgument ({refused})")
            holder = HOLDER.search(str(err))
            if s.pool is not None:
                free = self.pool_has_free(s)
                check(not free, f"{shape} {options}: the pool has a free value, yet: {err}")
                self.count("create: pool full")
            elif blockers:
                check(holder is not None and int(holder[1]) == os.getpid(), f"{shape} {node}: held by whom? {err}")
                self.count("create: refused by the guard")
            elif ambiguous:
                for b in taken:  # closed by the take-over, then refused by that value
                    b.taken_over = True
                self.count("create: refused by a value switched from")
            else:
                # Another process of this host holds it: only where the machine
                # shares the host's claims (no namespaces of its own).
                check(
                    self.run.shared and holder is not None and int(holder[1]) != os.getpid(),
                    f"{shape} {node} {options}: refused with nothing live beside it: {err}",
                )
                self.count("create: refused by another process")
            return
        # Kept before any check, so that teardown closes it whatever fails: a
        # generator left open would hold its value into the examples after.
        self.run.generators += 1
        actual = g.node
        e = Entry(self.run.generators, g, weakref.ref(g), s, actual, options, nodes_seen=[actual])
        self.entries.append(e)
        del g
        check(refused is None, f"{shape} {node} {options}: started, though it {refused}")
        check(not blockers, f"{shape} {node}: started beside live {[str(b) for b in blockers]}")
        for b in taken:
            b.taken_over = True
            self.count("create: took the same generator over")
        if s.pool is None:
            check(actual == node, f"{shape}: node {actual}, given {node}")
        else:
            check(
                all(actual[k] == v for k, v in s.pool.items() if v != "auto"),
                f"{shape}: pool node {actual} for {s.pool}",
            )
            others = [o for o in self.conflicts(s.layout, actual) if o is not e]
            check(not others, f"{shape}: pool value {actual} meets live {[str(o) for o in others]}")
        e.floor = dict(self.run.highest.get(timeline(s.layout), {}))
        if self.behind_ahead(s.layout, actual):
            e.exposed = True
        if rollback in ("borrow", "switch") or options.get("max_drift"):
            self.expose(e)
        assert e.gen is not None
        stats = e.gen.stats()
        e.drift_ms = stats["max_drift_ms"]
        check(stats["guard"].startswith("held: "), f"{e}: guard {stats['guard']!r}")
        sources = set(stats["node_sources"].values())
        check(sources <= {"explicit", "pool"}, f"{e}: node sources {stats['node_sources']}")
        if rollback not in (None, "default"):
            check(stats["rollback"] == rollback, f"{e}: rollback {stats['rollback']!r}")
        self.count("create: started" + (" beside a meeting layout" if self.beside(e) else ""))

    def beside(self, e: Entry) -> bool:
        """Whether a live generator of another layout has node bits that agree with
        e's, its integers elsewhere (the 57-bit layout beside the 63-bit ones)."""
        m1, v1 = pattern(e.shape.layout, e.node)
        others = [pattern(o.shape.layout, o.node) for o in self.live() if o is not e]
        return any(not ((v1 ^ v2) & m1 & m2) for m2, v2 in others)

    def pool_has_free(self, s: Shape) -> bool:
        """Whether some value of s's pool meets no live generator."""
        assert s.pool is not None
        auto = [k for k, v in s.pool.items() if v == "auto"]
        fields = {f.name: f for f in s.layout.fields}
        if any(fields[k].max > 255 for k in auto):
            return True
        values: list[dict[str, int]] = [{k: v for k, v in s.pool.items() if isinstance(v, int)}]
        for k in auto:
            values = [dict(v, **{k: i}) for v in values for i in range(fields[k].max + 1)]
        return any(not self.conflicts(s.layout, v) and not self.maybe_held(s.layout, v) for v in values)

    @precondition(lambda self: len(self.live()) < MAX_LIVE)
    @rule(shape=st.sampled_from(["ms", "clock", "coarse"]), choice=st.integers(0, 2))
    @ran
    def create_to_wait(self, shape: str, choice: int) -> None:
        """One that waits for the clock when it steps back (close() is tried on its waits)."""
        self.make(shape, choice, {"rollback": "wait", "max_wait": "2s"})

    @precondition(lambda self: any(e.live and not e.auto for e in self.entries))
    @rule(i=PICK)
    @ran
    def create_beside_a_live_one(self, i: int) -> None:
        """The same layout and node value as a live generator (a cell or a reload
        run twice): it takes the value over, the live one closed and saying so;
        or, with a value a pool generator switched from still held, is refused."""
        e = self.pick(i, [e for e in self.live() if not e.auto])
        self.make(e.shape.key, e.shape.statics.index(e.node) if e.node in e.shape.statics else 0, {})
        check(e.taken_over, f"{e}: not taken over by the same generator made again")

    @precondition(lambda self: any(e.taken_over and not e.closed for e in self.known()))
    @rule(i=PICK, call=st.sampled_from(["next_id", "next_ids", "next_id_at", "fill"]))
    @ran
    def call_taken_over(self, i: int, call: str) -> None:
        """A generator taken over: its calls raise the closed error that says why."""
        e = self.pick(i, [e for e in self.known() if e.taken_over and not e.closed])
        g = e.gen
        assert g is not None
        check(g.closed, f"{e}: .closed is False on a generator taken over")
        calls = issuing_calls(g)
        try:
            calls[call]()
        except sfc.SnowflakeError as err:
            check(is_closed_error(err, e), f"{e}: {call} on a generator taken over raised {err!r}")
        else:
            raise fail(f"{e}: {call} answered on a generator taken over")
        self.count(f"taken over: {call}")

    @precondition(lambda self: any(e.live and not e.auto for e in self.entries))
    @rule(i=PICK, by=st.sampled_from(["close", "drop"]), n=st.sampled_from([1, 100, 20_000]))
    @ran
    def hand_over(self, i: int, by: str, n: int) -> None:
        """A holder issues, is closed (or collected) and its successor of the same
        layout, value and options starts at once and issues: above every ID the
        holder issued, often within its last tick, or ahead of the clock (a batch
        of many ticks borrowed, where the holder may borrow)."""
        e = self.pick(i, [e for e in self.live() if not e.auto])
        assert e.gen is not None
        if e.shape.key == "coarse":
            n = min(n, 100)  # 4096 IDs a second
        ids = self.take(e, n, "hand over")
        self.accept(e, ids)
        if by == "close":
            e.gen.close()
            self.closed_now(e)
        else:
            e.gen = None
            gc.collect()
            check(e.ref() is None, f"{e}: still referenced after its last reference went")
            e.dropped = True
        before = len(self.entries)
        self.make(e.shape.key, e.shape.statics.index(e.node), dict(e.options))
        check(len(self.entries) > before, f"{e}: its successor did not start")
        successor = self.entries[-1]
        assert successor.gen is not None
        try:
            ids = successor.gen.next_ids(n)
        except sfc.SnowflakeError as err:
            self.answer(successor, err, "hand over")
            return
        successor.issued += len(ids)
        self.accept(successor, ids)
        self.count(f"hand over: by {by}")

    @precondition(lambda self: len(self.live()) < MAX_LIVE)
    @rule(
        shape=st.sampled_from(["ms", "clock", "narrow"]),
        choice=st.integers(0, 2),
        by=st.sampled_from(["close", "drop"]),
        then=st.sampled_from([None, "wait", "error", "borrow"]),
    )
    @ran
    def hand_over_ahead(self, shape: str, choice: int, by: str, then: str | None) -> None:
        """A holder borrows ticks ahead of the clock (a batch of eight ticks' IDs at
        once), is closed or collected, and its successor starts after them all: it
        waits, refuses (ClockMovedBackwards) or borrows on, never repeats one."""
        before = len(self.entries)
        self.make(shape, choice, {"rollback": "borrow", "max_drift": 50})
        if len(self.entries) == before:
            return  # its value is held
        e = self.entries[-1]
        assert e.gen is not None
        # The checks of its IDs wait for the successor's: they take longer than
        # the eight ticks.
        ids = self.take(e, 8 * 4096, "hand over ahead")
        if by == "close":
            e.gen.close()
            self.closed_now(e)
        else:
            e.gen = None
            gc.collect()
            check(e.ref() is None, f"{e}: still referenced after its last reference went")
            e.dropped = True
        self.make(shape, choice, {"rollback": then})
        check(len(self.entries) == before + 2, f"{e}: its successor did not start")
        successor = self.entries[-1]
        assert successor.gen is not None
        after = self.take(successor, 8 * 4096, "hand over ahead")
        self.accept(e, ids)
        successor.floor = {**successor.floor, **{key_of(e.node): max(ids)}} if ids else successor.floor
        self.accept(successor, after)
        self.count(f"hand over ahead: by {by}")

    # --- issuing ---

    @precondition(lambda self: bool(self.live()))
    @rule(i=PICK, how=st.sampled_from(["next_id", "next_ids", "fill"]), n=st.sampled_from([1, 2, 7, 100, 1000, 4097]))
    @ran
    def issue(self, i: int, how: str, n: int) -> None:
        e = self.pick(i, self.live())
        assert e.gen is not None
        if e.shape.key == "coarse":
            n = min(n, 100)  # 4096 IDs a second
        ids: list[int] = []
        try:
            if how == "next_id":
                for _ in range(min(n, 200)):
                    ids.append(e.gen.next_id())
            elif how == "next_ids":
                ids = e.gen.next_ids(n)
                check(len(ids) == n, f"{e}: next_ids({n}) gave {len(ids)}")
            else:
                buf = array("Q", bytes(8 * n))
                check(e.gen.fill(buf) == n, f"{e}: fill() of {n}")
                ids = buf.tolist()
        except sfc.SnowflakeError as err:
            ids += list(getattr(err, "ids", None) or [])
            e.issued += len(ids)
            self.accept(e, ids)
            self.answer(e, err, how)
            return
        check(not e.closed, f"{e}: {how} issued on a closed generator")
        e.issued += len(ids)
        self.accept(e, ids)
        self.count(f"issue: {how}")

    def take(self, e: Entry, n: int, what: str) -> list[int]:
        """next_ids(n) of e, counted as issued: what it gave, or the IDs its error
        carries (the error answered as the model allows)."""
        assert e.gen is not None
        try:
            ids = e.gen.next_ids(n)
        except sfc.SnowflakeError as err:
            ids = list(getattr(err, "ids", None) or [])
            self.answer(e, err, what)
        e.issued += len(ids)
        return ids

    def answer(self, e: Entry, err: BaseException, what: str) -> None:
        """An error a call of e raised: the closed error when e is closed, else one the
        model allows."""
        if e.closed:
            check(is_closed_error(err, e), f"{e}: {what} on a closed generator raised {err!r}")
            self.count(f"closed: {what}")
        else:
            check(self.allowed(e, err), f"{e}: {what} raised {err!r}")
            self.count(f"{what}: {type(err).__name__}")

    @precondition(lambda self: bool(self.live()))
    @rule(i=PICK, ahead_ms=st.sampled_from([0, 1, 20, 200]), n=st.sampled_from([None, 3, 100]))
    @ran
    def issue_at(self, i: int, ahead_ms: int, n: int | None) -> None:
        """The deterministic entry, at the generator's clock or ahead of it."""
        e = self.pick(i, self.live())
        assert e.gen is not None
        if e.live and not e.clock_timed:
            e.fresh_timeline = True
        if e.live:
            self.expose(e)
        now = e.gen.now_us() if e.live else time.time_ns() // 1000
        try:
            if n is None:
                id_, wait_us = e.gen.next_id_at(now + ahead_ms * 1000)
                ids = [] if id_ is None else [id_]
                check((id_ is None) == (wait_us > 0), f"{e}: next_id_at gave {(id_, wait_us)}")
            else:
                ids, wait_us = e.gen.next_ids_at(now + ahead_ms * 1000, n)
                check((len(ids) < n) == (wait_us > 0), f"{e}: next_ids_at gave {len(ids)} IDs, wait {wait_us}")
        except sfc.SnowflakeError as err:
            ids = list(getattr(err, "ids", None) or [])
            e.issued += len(ids)
            self.accept(e, ids, clock_timed=False)
            self.answer(e, err, "next_id_at")
            return
        check(not e.closed, f"{e}: next_id_at issued on a closed generator")
        e.issued += len(ids)
        self.accept(e, ids, clock_timed=False)
        self.count("issue at: " + ("issued" if ids else "wait"))

    @precondition(lambda self: bool(self.live()))
    @rule(i=PICK)
    @ran
    def stats(self, i: int) -> None:
        e = self.pick(i, self.live())
        assert e.gen is not None
        try:
            s = e.gen.stats()
        except sfc.SnowflakeError as err:
            self.answer(e, err, "stats")
            return
        check(not e.closed, f"{e}: stats() of a closed generator")
        check(s["ids_issued"] == e.issued, f"{e}: ids_issued {s['ids_issued']}, issued {e.issued}")
        if not e.auto:
            check(s["node"] == e.node, f"{e}: stats node {s['node']}")
        else:
            check(s["node"] in e.nodes_seen or s["node_switches"] > 0, f"{e}: stats node {s['node']}")
        check(s["guard"].startswith("held: "), f"{e}: guard {s['guard']!r}")
        if "max_wait" in e.options and isinstance(e.options["max_wait"], int):
            check(s["max_wait_ms"] == e.options["max_wait"], f"{e}: max_wait_ms {s['max_wait_ms']}")
        self.count("stats")

    # Preconditions depend on the draws only, never on what timing decided (whether
    # a call issued or waited): else Hypothesis, replaying steps, finds other rules
    # enabled and calls the run flaky.
    @precondition(lambda self: bool(self.entries))
    @rule(i=PICK, encoding=st.sampled_from(ENCODINGS))
    @ran
    def decode(self, i: int, encoding: Encoding) -> None:
        issued = [e for e in self.entries if e.sample]
        if not issued:
            self.count("decode: nothing issued yet")
            return
        e = self.pick(i, issued)
        layout = e.shape.layout
        for id_ in e.sample[-4:]:
            parts = sfc.decode(id_, layout)
            check(parts.id == id_ and int(parts) == id_, f"{e}: decode({id_}).id = {parts.id}")
            node = {k: parts.fields[k] for k in node_of(layout, id_)}
            check(node in e.nodes_seen, f"{e}: decode({id_}) node {node}")
            check(sfc.encode(parts.time_ms, parts.fields, layout=layout) == id_, f"{e}: encode(decode({id_}))")
            check(json.loads(parts.to_json())["id"] == str(id_), f"{e}: to_json of {id_}")
            text = sfc.format_id(id_, encoding)
            check(sfc.parse_id(text, encoding) == id_, f"{e}: {encoding} {text!r}")
            again = sfc.decode(text, layout, encoding=encoding)
            check(again == parts, f"{e}: decode of {encoding} {text!r}")
        self.count("decode")

    # --- closing ---

    def closed_now(self, e: Entry) -> None:
        e.closed = True
        self.count("close")

    @precondition(lambda self: bool(self.known()))
    @rule(i=PICK)
    @ran
    def close(self, i: int) -> None:
        e = self.pick(i)
        assert e.gen is not None
        e.gen.close()  # idempotent
        check(e.gen.closed, f"{e}: closed is False after close()")
        self.closed_now(e)

    @precondition(lambda self: any(e.closed for e in self.known()))
    @rule(
        i=PICK,
        call=st.sampled_from(
            ["next_id", "next_ids", "next_id_at", "next_ids_at", "fill", "stats", "now_us", "node", "with", "repr"]
        ),
    )
    @ran
    def call_closed(self, i: int, call: str) -> None:
        """Every call on a closed generator: the closed error (repr and close() excepted)."""
        e = self.pick(i, [e for e in self.known() if e.closed])
        g = e.gen
        assert g is not None
        calls: dict[str, Any] = {
            **issuing_calls(g),
            "stats": g.stats,
            "now_us": g.now_us,
            "node": lambda: g.node,
        }
        if call == "repr":
            check(repr(g).endswith(" closed>"), f"{e}: repr {g!r}")
        elif call == "with":
            try:
                with g:
                    raise fail(f"{e}: `with` entered a closed generator")
            except sfc.InvalidArgument as err:
                check(is_closed_error(err), f"{e}: with: {err!r}")
        else:
            try:
                calls[call]()
            except sfc.SnowflakeError as err:
                check(is_closed_error(err), f"{e}: {call} on a closed generator raised {err!r}")
            else:
                raise fail(f"{e}: {call} answered on a closed generator")
        g.close()
        check(g.closed, f"{e}: closed")
        self.count(f"closed: {call}")

    def cut_short(self, e: Entry, outcome: list[Any], closed_at_us: int, what: str) -> None:
        """A call that close() may have cut short: the closed error, or IDs issued
        before close() returned (their ticks not after it)."""
        check(len(outcome) == 1, f"{e}: {what}: no outcome {outcome}")
        result = outcome[0]
        if isinstance(result, BaseException):
            ids = list(getattr(result, "ids", None) or [])
            e.issued += len(ids)
            self.accept(e, ids)
            if is_closed_error(result, e):
                self.count(f"{what}: closed error")
                return
            check(self.allowed(e, result), f"{e}: {what} raised {result!r}")
            self.count(f"{what}: {type(result).__name__}")
            return
        ids = result if isinstance(result, list) else [result]
        e.issued += len(ids)
        self.accept(e, ids)
        layout = e.shape.layout
        for id_ in ids[-1:]:
            start_us = sfc.decode(id_, layout).time_us
            # One tick of slack (the generator's clock, monotonic or counter, is not
            # the wall clock read here), and the drift it may borrow ahead of it.
            check(
                start_us <= closed_at_us + layout.unit_us + e.drift_ms * 1000,
                f"{e}: {what} returned ID {id_} of a tick after close() returned ({start_us} > {closed_at_us})",
            )
        self.count(f"{what}: issued before close")

    @precondition(lambda self: any(e.live and e.shape.layout.unit_us == 1000 for e in self.entries))
    @rule(i=PICK, pause_ms=st.sampled_from([0, 1, 3]))
    @ran
    def close_while_another_thread_issues(self, i: int, pause_ms: int) -> None:
        """close() while another thread is inside a large next_ids (the GIL released)."""
        e = self.pick(i, [e for e in self.live() if e.shape.layout.unit_us == 1000])
        g = e.gen
        assert g is not None
        entered = threading.Event()
        outcome: list[Any] = []

        def big() -> None:
            entered.set()
            try:
                outcome.append(g.next_ids(100_000))
            except BaseException as err:  # noqa: BLE001 - judged below
                outcome.append(err)

        t = threading.Thread(target=big)
        t.start()
        entered.wait()
        time.sleep(pause_ms / 1000)
        g.close()
        closed_at = time.time_ns() // 1000
        self.closed_now(e)
        t.join()
        self.cut_short(e, outcome, closed_at, "close while issuing")

    def make_wait(self, e: Entry, ahead_ms: int) -> bool:
        """An ID ahead_ms ahead of e's clock at the caller's time: e's next call at
        the clock's time waits (rollback=wait). False if e would not."""
        assert e.gen is not None
        if e.live and not e.clock_timed:
            e.fresh_timeline = True
        self.expose(e)
        now = e.gen.now_us()
        try:
            id_, _ = e.gen.next_id_at(now + ahead_ms * 1000)
        except sfc.ClockMovedBackwards:
            return False
        if id_ is None:
            return False
        e.issued += 1
        self.accept(e, [id_], clock_timed=False)
        return True

    @staticmethod
    def wait_counts(g: sfc.Generator) -> tuple[int, int, int]:
        s = g.stats()
        return s["waits"], s["rollbacks"], s["rollbacks_waited"]

    @staticmethod
    def waits(e: Entry) -> bool:
        max_wait = e.options.get("max_wait")
        return e.live and e.options.get("rollback") == "wait" and max_wait in (None, "2s")

    @precondition(lambda self: any(self.waits(e) for e in self.entries))
    @rule(i=PICK, ahead_ms=st.sampled_from([300, 800]))
    @ran
    def close_while_another_thread_waits(self, i: int, ahead_ms: int) -> None:
        """close() while another thread's next_id waits for the clock."""
        e = self.pick(i, [e for e in self.entries if self.waits(e)])
        g = e.gen
        assert g is not None
        before = self.wait_counts(g)
        if not self.make_wait(e, ahead_ms):
            self.count("close while waiting: could not make it wait")
            return
        outcome: list[Any] = []

        def waiter() -> None:
            try:
                outcome.append(g.next_id())
            except BaseException as err:  # noqa: BLE001 - judged below
                outcome.append(err)

        t = threading.Thread(target=waiter)
        t.start()
        # Until the call waits (or is over): a poll, no verdict on time.
        while t.is_alive() and self.wait_counts(g) == before:
            time.sleep(0.001)
        g.close()
        closed_at = time.time_ns() // 1000
        self.closed_now(e)
        t.join()
        self.cut_short(e, outcome, closed_at, "close while another thread waits")

    @precondition(lambda self: HAS_ITIMER and any(self.waits(e) for e in self.entries))
    @rule(i=PICK, ahead_ms=st.sampled_from([300, 800]), delay_ms=st.sampled_from([1, 20, 60]))
    @ran
    def close_from_a_signal_handler_while_waiting(self, i: int, ahead_ms: int, delay_ms: int) -> None:
        """A SIGALRM handler closes the generator while next_id waits for the clock."""
        e = self.pick(i, [e for e in self.entries if self.waits(e)])
        g = e.gen
        assert g is not None
        if not self.make_wait(e, ahead_ms):
            self.count("close from a signal: could not make it wait")
            return
        closed_at: list[int] = []

        def handler(signum: int, frame: object) -> None:
            g.close()
            closed_at.append(time.time_ns() // 1000)

        outcome: list[Any] = []
        old = signal.signal(signal.SIGALRM, handler)
        try:
            signal.setitimer(signal.ITIMER_REAL, delay_ms / 1000)
            try:
                outcome.append(g.next_id())
            except sfc.SnowflakeError as err:
                outcome.append(err)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        if not closed_at:  # the call was over before the signal
            g.close()
            closed_at.append(time.time_ns() // 1000)
        self.closed_now(e)
        self.cut_short(e, outcome, closed_at[0], "close from a signal handler")

    @precondition(lambda self: bool(self.known()))
    @rule(i=PICK)
    @ran
    def drop(self, i: int) -> None:
        """The last reference dropped: the finalizer closes and frees it, and its value
        is free again (the next create of it starts)."""
        e = self.pick(i)
        e.gen = None
        gc.collect()
        check(e.ref() is None, f"{e}: still referenced after its last reference went")
        e.dropped = True
        self.count("drop")

    # --- threads and processes ---

    @precondition(lambda self: bool(self.live()))
    @rule(picks=st.lists(PICK, min_size=1, max_size=2), threads=st.integers(2, 4))
    @ran
    def threads(self, picks: list[int], threads: int) -> None:
        """Threads share generators: per thread, each generator's IDs increase."""
        chosen = list({id(e): e for e in (self.pick(i, self.live()) for i in picks)}.values())
        barrier = threading.Barrier(threads)
        results: list[list[tuple[Entry, list[int], BaseException | None]]] = [[] for _ in range(threads)]

        def work(slot: int) -> None:
            barrier.wait()
            for e in chosen:
                g = e.gen
                assert g is not None
                ids: list[int] = []
                try:
                    for _ in range(100):
                        ids.append(g.next_id())
                    ids += g.next_ids(500)
                except sfc.SnowflakeError as err:
                    results[slot].append((e, ids + list(getattr(err, "ids", None) or []), err))
                else:
                    results[slot].append((e, ids, None))

        ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        before = {id(e): e.last for e in chosen}
        after = dict(before)
        for slot in results:
            for e, ids, err in slot:
                e.last = before[id(e)]  # each thread's IDs follow those issued before it started
                e.issued += len(ids)
                self.accept(e, ids)
                if ids:
                    after[id(e)] = max(after[id(e)] or 0, *ids)
                if err is not None:
                    self.answer(e, err, "threads")
        for e in chosen:
            # Joined: what comes next is above them all, but where a clock bump or a
            # switch may have come between (then no order is known).
            e.last = None if e.shape.has_clock or e.auto else after[id(e)]
        self.count(f"threads: {threads}")

    @precondition(lambda self: HAS_FORK and bool(self.known()))
    @rule()
    @ran
    def fork(self) -> None:
        """A forked child: its checks run in the child, which reports through a pipe and
        its exit status."""
        entries = self.known()
        r, w = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # forking a threaded process
            pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 3
            try:
                os.close(r)
                try:
                    report = self.in_child(entries)
                except BaseException:  # noqa: BLE001 - reported to the parent
                    report = {"problems": [traceback.format_exc()], "ids": {}, "nodes": {}}
                code = 0 if not report["problems"] else 1
                os.write(w, json.dumps(report).encode())
            finally:
                os._exit(code)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            text = f.read()
        _, status = os.waitpid(pid, 0)
        check(os.WIFEXITED(status), f"fork: the child died: status {status}")
        report = json.loads(text) if text else {"problems": ["no report"], "ids": {}, "nodes": {}}
        check(os.WEXITSTATUS(status) == 0 and not report["problems"], f"fork: the child: {report['problems']}")
        for e in entries:
            child_ids = report["ids"].get(str(e.n), [])
            if child_ids:
                nodes = list(report["nodes"][str(e.n)])
                child = Entry(e.n, None, e.ref, e.shape, nodes[0], e.options, nodes_seen=nodes)
                child.floor = dict(self.run.highest.get(timeline(e.shape.layout), {}))
                # Its IDs are new to the run; the child's value was left without a
                # close (os._exit): its mark stays ahead of the clock.
                self.accept(child, child_ids)
                for node in child.nodes_seen:
                    self.ahead(e.shape.layout, node)
        self.count("fork")

    def in_child(self, entries: list[Entry]) -> dict[str, Any]:  # pragma: no cover - in the child
        problems: list[str] = []
        ids: dict[str, list[int]] = {}
        nodes: dict[str, list[dict[str, int]]] = {}
        parent_live = [e for e in entries if e.live]
        for e in entries:
            if e.n < 0:
                continue  # a value the child took (below)
            g = e.gen
            assert g is not None
            try:
                got = g.next_ids(3)
            except sfc.GeneratorForked:
                if e.live and e.auto:
                    problems.append(f"{e}: GeneratorForked from a pool generator")
                elif not e.live:
                    problems.append(f"{e}: GeneratorForked, not the closed error")
                continue
            except sfc.WorkerUnavailable as err:
                if not (e.live and e.auto and not self.pool_has_free(e.shape)):
                    problems.append(f"{e}: {err!r}")
                continue
            except sfc.SnowflakeError as err:
                if (e.closed or e.taken_over) and is_closed_error(err, e):
                    continue
                if e.live and isinstance(err, sfc.ClockMovedBackwards) and (e.exposed or e.auto):
                    continue  # a pool value last held by a crashed holder, its mark ahead
                problems.append(f"{e}: {err!r}")
                continue
            if not e.live:
                problems.append(f"{e}: issued in the child though closed")
            elif not e.auto:
                problems.append(f"{e}: a static value issued in a forked child: {got}")
            else:
                node = g.node
                if got != sorted(set(got)):
                    problems.append(f"{e}: child IDs not increasing: {got}")
                if any(node_of(e.shape.layout, i) != node for i in got):
                    problems.append(f"{e}: child IDs {got} not of its node {node}")
                if node == e.node:
                    problems.append(f"{e}: the child kept the parent's value {node}")
                meets = self.conflicts(e.shape.layout, node)
                if meets:
                    problems.append(f"{e}: the child's value {node} meets live {[str(o) for o in meets]}")
                ids[str(e.n)] = got
                nodes[str(e.n)] = [node]
                # Held by the child from now on, beside the parent's.
                self.entries.append(Entry(-e.n, None, e.ref, e.shape, node, e.options))
        # A static value the parent holds is refused to a generator made in the child.
        for e in parent_live:
            if e.auto:
                continue
            try:
                sfc.Generator(layout=e.shape.layout, node=e.node).close()
                problems.append(f"{e}: a generator of its value started in the child")
            except sfc.WorkerUnavailable:
                pass
            except sfc.SnowflakeError as err:
                problems.append(f"{e}: in the child: {err!r}")
            break
        return {"problems": problems, "ids": ids, "nodes": nodes}

    # --- after every step ---

    @invariant()
    def generators_agree_with_the_model(self) -> None:
        self.run.steps += 1
        live = self.live()
        for e in self.entries:
            if e.dropped:
                check(e.ref() is None, f"{e}: alive after it was dropped")
                continue
            assert e.gen is not None
            # Closed by close(), or by the same generator made again.
            check(e.gen.closed == (e.closed or e.taken_over), f"{e}: closed is {e.gen.closed}")
        for e in live:
            if e.auto:
                self.refresh_node(e)
        for a_i, a in enumerate(live):
            for b in live[a_i + 1 :]:
                check(
                    not can_meet((a.shape.layout, a.node), (b.shape.layout, b.node)),
                    f"live {a} and {b} can issue the same integers",
                )

    def teardown(self) -> None:
        for e in self.entries:
            if e.gen is not None:
                e.gen.close()
        self.entries.clear()


def main(argv: list[str]) -> int:
    global RUN
    epoch, narrow_epoch, examples, steps, shared = (int(a) for a in argv[1:6])
    warnings.simplefilter("error", sfc.UnguardedWarning)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="snowflake-c-machine-") as tmp:
        RUN = Run(make_shapes(epoch, narrow_epoch), tmp, shared=bool(shared))
        failed = None
        try:
            run_state_machine_as_test(  # type: ignore[no-untyped-call]
                GeneratorMachine,
                settings=settings(
                    max_examples=examples,
                    stateful_step_count=steps,
                    deadline=None,
                    database=None,
                    print_blob=True,
                    suppress_health_check=list(HealthCheck),
                ),
            )
        except BaseException as err:  # noqa: BLE001 - reported, then the exit status
            failed = err
            traceback.print_exc()
    summary = {
        "examples": RUN.examples,
        "steps": RUN.steps,
        "generators": RUN.generators,
        "ids": len(RUN.issued),
        "seconds": round(time.monotonic() - started, 1),
        "failed": None if failed is None else repr(failed)[:2000],
        "failures seen": RUN.failures,
        "counts": dict(sorted(RUN.counts.items())),
    }
    print(json.dumps(summary), flush=True)
    return 0 if failed is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
