"""The types of the public API: the shapes of describe() and stats(), the
keywords of Generator(), and the values they take.

The keys of these mappings are the core's table rows (the tests hold them to
the tables): the runtime walks the tables, these only name them for type
checkers.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, TypedDict

Epoch = int | str | datetime
"""Unix ms, an ISO-8601 UTC instant, or an aware datetime."""
Time = int | str | datetime
Duration = int | float | str | timedelta
"""Milliseconds (a fraction rounds up), text with a unit ("1.5s"), or a timedelta."""
NodeValue = int | str
"""A number, "auto", "host" or "env:NAME"."""
Path = str | bytes | os.PathLike[str] | os.PathLike[bytes]

# <!-- generated: preset-name -->
PresetName = Literal["default", "twitter", "discord", "sonyflake", "baidu", "instagram", "jssafe"]
# <!-- end generated -->
"""The presets' names (the core's table)."""

if TYPE_CHECKING:  # names for type checkers only
    # The choices of the options (scripts/docs writes them from the core's table).
    # <!-- generated: choices -->
    _Rollback = Literal["default", "error", "wait", "clock", "borrow", "switch"]
    _TimeSource = Literal["wall", "monotonic", "counter"]
    # <!-- end generated -->
    # The names of the core's tables.
    # <!-- generated: names -->
    _Encoding = Literal["dec", "hex", "base32", "base36", "base58", "base62"]
    _FieldKind = Literal["time", "seq", "clock", "node"]
    _NodeSource = Literal["explicit", "env", "host", "pool", "lease"]
    # <!-- end generated -->


class FieldDescription(TypedDict):
    """The core's table of field facts (scripts/docs writes them from it)."""

    # <!-- generated: field-facts -->
    name: str
    """The field's name."""
    kind: _FieldKind
    """Time, seq, clock or node."""
    bits: int
    """Width in bits."""
    shift: int
    """Position of the lowest bit."""
    max: int
    """Largest value: 2^bits - 1."""
    # <!-- end generated -->


class LayoutDescription(TypedDict):
    """The core's table of layout facts (scripts/docs writes them from it)."""

    # <!-- generated: layout-facts -->
    name: str | None
    """The preset's name, none for other layouts."""
    spec: str
    """The canonical spec, time unit always given."""
    epoch_ms: int
    """Unix ms of time value 0."""
    unit_us: int
    """Length of one tick, in microseconds."""
    total_bits: int
    """Bits used by the fields (at most 64)."""
    ids_per_second: float
    """IDs per second per node value."""
    node_capacity: float
    """Distinct node values."""
    time_end_ms: int
    """First Unix ms the time field cannot hold."""
    max_id: int
    """Largest ID the layout can hold."""
    fields: list[FieldDescription]
    """The fields, most significant first."""
    # <!-- end generated -->


class LeaseStats(TypedDict):
    """A leased node value (docs/leases.md): the core's table of a lease's
    stats (scripts/docs writes them from it)."""

    # <!-- generated: lease-stats -->
    state: Literal["acquiring", "held", "expired", "lost", "released"]
    """Acquiring, held, expired (no renewal within a lease: no IDs until one succeeds), lost or released."""
    field: str
    """The node field leased."""
    value: int
    """The node value held, -1 before one is held."""
    expires_ms: int
    """Unix ms: the deadline on this host's clock, past which no ID is issued."""
    horizon_ms: int
    """Unix ms: no ID past it (the horizon written in the database)."""
    renewals: int
    """Renewals of the lease that succeeded."""
    failures: int
    """Statements of the lease that could not be run."""
    error: str
    """The last failure, or empty."""
    duration_ms: int
    """The lease in ms, by the database's clock: an acquire gives up after one, a statement times out at a third."""
    # <!-- end generated -->


class _CoreStats(TypedDict):
    """The core's table of stats (scripts/docs writes them from it)."""

    # <!-- generated: stats -->
    ids_issued: int
    """IDs issued."""
    waits: int
    """Times a call waited for the next tick."""
    borrowed_ticks: int
    """Ticks issued ahead of the clock."""
    rollbacks: int
    """Clock steps backwards beyond max_drift."""
    rollbacks_waited: int
    """Rollbacks waited out."""
    rollbacks_refused: int
    """Rollbacks answered with an error."""
    clock_bumps: int
    """Times the clock field was bumped."""
    node_switches: int
    """Pool values taken by rollback=switch."""
    last_time_ms: int
    """Unix ms of the last tick issued."""
    clock: int
    """The clock field's value (0 without one)."""
    rollback: _Rollback
    """The rollback strategy in force."""
    max_wait_ms: int
    """The longest wait in force, in ms."""
    max_drift_ms: int
    """The drift allowed, in ms."""
    node: dict[str, int]
    """The node values, by field."""
    node_sources: dict[str, _NodeSource]
    """Where each node value came from."""
    guard: str
    """Held: <the host-wide claim>, or off."""
    # <!-- end generated -->


class Stats(_CoreStats, total=False):
    """The core's table of stats, and the lease of a leased node value."""

    lease: LeaseStats


class GeneratorOptions(TypedDict, total=False):
    """Generator()'s options: None (or leaving one out) is its default."""

    # <!-- generated: options -->
    rollback: _Rollback | None
    """What to do when the wall clock goes backwards. Default: `"default"`."""
    max_wait: Duration | None
    """Longest wait for the clock to catch up after it steps back. Takes a duration, 0 to 1 day. Default: the
    strategy's: 5 ms (default, switch), 0 ms (error, clock), 1000 ms (wait, borrow)."""
    max_drift: Duration | None
    """How far ahead of the clock IDs may be issued. Takes a duration, 0 to 1 day. Default: the strategy's: 0 ms
    (default, error, wait, clock, switch), 1000 ms (borrow)."""
    random_start: bool | None
    """Start each tick's sequence at a random value in its lower half. Default: `False`."""
    time_source: _TimeSource | None
    """Wall: read the wall clock on every call; monotonic: read it once; counter: read it when the processor's
    counter shows its tick over. Default: `"wall"`."""
    state_dir: Path | None
    """Folder of lock and state files: restarts, the pool (auto), the mark. Takes a folder. Default: none."""
    state_reserve: Duration | None
    """How far ahead the state file's high-water mark is reserved. Takes a duration, 1 ms to 1 hour. Default: 1000
    ms."""
    guard: bool | None
    """Claim the node value host-wide: refuse a second live generator that could issue the same IDs. Default: `True`."""
    lease_duration: Duration | None
    """How long a leased node value is held by the database's clock (renewed at a third of it). Takes a duration, 1 s
    to 1 hour. Default: 15000 ms."""
    lease_key: str | None
    """The instance's stable key: its last leased value is taken again when free. Takes text, 1 to 120 characters.
    Default: none."""
    # <!-- end generated -->
