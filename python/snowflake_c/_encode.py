"""From times and fields to IDs: encode(), range(), and time as text."""

from __future__ import annotations

import builtins
from collections.abc import Mapping

from . import _snowflake_c as _c
from ._layout import Layout, resolve
from ._time import unix_ms, unix_us
from ._types import Epoch, PresetName, Time


def encode(
    time: Time,
    fields: Mapping[str, int] | None = None,
    *,
    layout: Layout | str | None = None,
    preset: PresetName | None = None,
    epoch: Epoch | None = None,
) -> int:
    """The ID of a time (Unix ms, ISO-8601 str or aware datetime, rounded down
    to the tick) and the value of every other field: the inverse of decode()."""
    time_us = unix_us(time, "time")
    if fields is not None and not isinstance(fields, Mapping):
        raise TypeError(f"fields must be a mapping of field name to int, not {type(fields).__qualname__}")
    return resolve(layout, preset, epoch, for_ids=True)._encode(time_us, dict(fields) if fields else {})


def range(
    start: Time,
    end: Time,
    *,
    layout: Layout | str | None = None,
    preset: PresetName | None = None,
    epoch: Epoch | None = None,
) -> builtins.tuple[int, int]:
    """The smallest and largest IDs whose time lies in [start, end): end
    excluded, so that consecutive windows never share an ID (range scans)."""
    t0, t1 = unix_ms(start, "start"), unix_ms(end, "end")
    lo, hi = resolve(layout, preset, epoch, for_ids=True)._range(t0, t1)
    return lo, hi


def format_time(time: Time, /) -> str:
    """A time as the ISO-8601 UTC text of the canonical JSON: '2016-04-30T11:18:25.796Z'."""
    return _c.format_time(unix_ms(time, "time"))
