"""Python's time values as the core takes them: Unix ms or µs, epoch text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from . import _snowflake_c as _c
from ._types import Epoch, Time

UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ONE_MS = timedelta(milliseconds=1)
_ONE_US = timedelta(microseconds=1)


def _since_1970(value: datetime, what: str) -> timedelta:
    if value.tzinfo is None:
        raise _c.InvalidArgument(
            f"{what} is a naive datetime; pass an aware one, e.g. datetime(..., tzinfo=timezone.utc)"
        )
    return value - UNIX_EPOCH


def _wrong_type(value: object, what: str) -> TypeError:
    return TypeError(
        f"{what} must be Unix milliseconds (int), an ISO-8601 str or an aware datetime, not {type(value).__qualname__}"
    )


def unix_ms(value: Time, what: str) -> int:
    """Unix ms of an int (ms), an ISO-8601 UTC str or an aware datetime."""
    if isinstance(value, datetime):
        return _since_1970(value, what) // _ONE_MS
    if isinstance(value, str):
        return _c.parse_time(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _wrong_type(value, what)


def unix_us(value: Time, what: str) -> int:
    """unix_ms(), to the µs for a datetime."""
    if isinstance(value, datetime):
        return _since_1970(value, what) // _ONE_US
    return unix_ms(value, what) * 1000


def epoch_text(value: Epoch | None) -> str | None:
    """An epoch as the core's text: Unix ms in decimal, or the ISO-8601 text given."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        return str(unix_ms(value, "epoch"))
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise _wrong_type(value, "epoch")


def to_datetime(us: int) -> datetime:
    """Unix µs as an aware UTC datetime."""
    return UNIX_EPOCH + timedelta(0, 0, us)  # (days, seconds, µs): faster than by keyword
