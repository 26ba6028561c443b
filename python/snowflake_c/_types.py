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

PresetName = Literal["default", "twitter", "discord", "sonyflake", "baidu", "instagram", "jssafe"]
"""The presets' names (the core's table)."""

if TYPE_CHECKING:  # names for type checkers only
    _Rollback = Literal["default", "error", "wait", "clock", "borrow", "switch"]
    _TimeSource = Literal["wall", "monotonic", "counter"]
    _Encoding = Literal["dec", "hex", "base32", "base36", "base58", "base62"]
    _FieldKind = Literal["time", "seq", "clock", "node"]
    _NodeSource = Literal["explicit", "env", "host", "pool", "lease"]


class FieldDescription(TypedDict):
    name: str
    kind: _FieldKind
    bits: int
    shift: int
    max: int


class LayoutDescription(TypedDict):
    name: str | None
    spec: str
    epoch_ms: int
    unit_us: int
    total_bits: int
    ids_per_second: float
    node_capacity: float
    time_end_ms: int
    max_id: int
    fields: list[FieldDescription]


class LeaseStats(TypedDict):
    """A leased node value (docs/leases.md): the keys of the CLI's
    ``gen --stats --json``, and the lease's duration."""

    state: Literal["acquiring", "held", "expired", "lost", "released"]
    field: str
    value: int
    expires_ms: int
    horizon_ms: int
    renewals: int
    failures: int
    error: str
    duration_ms: int


class _CoreStats(TypedDict):
    ids_issued: int
    waits: int
    borrowed_ticks: int
    rollbacks: int
    rollbacks_waited: int
    rollbacks_refused: int
    clock_bumps: int
    node_switches: int
    last_time_ms: int
    clock: int
    rollback: _Rollback
    max_wait_ms: int
    max_drift_ms: int
    node: dict[str, int]
    node_sources: dict[str, _NodeSource]
    guard: str


class Stats(_CoreStats, total=False):
    """The core's table of stats, and the lease of a leased node value."""

    lease: LeaseStats


class GeneratorOptions(TypedDict, total=False):
    """Generator()'s options: None (or leaving one out) is its default."""

    rollback: _Rollback | None
    max_wait: Duration | None
    max_drift: Duration | None
    random_start: bool | None
    time_source: _TimeSource | None
    state_dir: Path | None
    state_reserve: Duration | None
    guard: bool | None
    lease_duration: Duration | None
    lease_key: str | None
