"""UUIDv7s (RFC 9562): their time and random bits, decoded by the core."""

from __future__ import annotations

import uuid as _uuid
from dataclasses import dataclass, field
from datetime import datetime

from . import _snowflake_c as _c
from ._time import to_datetime


@dataclass(frozen=True)
class Uuid7:
    """A UUIDv7 split into its parts (see decode_uuid7()).

    ``uuid`` is its canonical text (8-4-4-4-12, lowercase), ``unix_ms`` its
    48-bit Unix time in ms, ``rand_a`` (12 bits) and ``rand_b`` (62 bits) its
    random bits; ``time`` is ``unix_ms`` as an aware UTC datetime and
    ``to_json()`` the canonical JSON line, byte for byte the CLI's
    ``decode --from uuid7 --json`` and every other binding's. Equal when
    they hold the same UUID.
    """

    uuid: str
    unix_ms: int
    rand_a: int
    rand_b: int
    _json: str = field(repr=False, compare=False)

    @property
    def time(self) -> datetime:
        """``unix_ms`` as an aware UTC datetime (OverflowError past the year
        9999, which datetime cannot hold; ``unix_ms`` can)."""
        return to_datetime(self.unix_ms * 1000)

    def to_json(self) -> str:
        """The canonical JSON line: ``uuid``, ``version`` (7), ``time_ms``,
        ``time`` (ISO-8601 UTC), ``rand_a``, ``rand_b`` (a decimal string)."""
        return self._json


def decode_uuid7(value: str | _uuid.UUID) -> Uuid7:
    """Splits a UUIDv7 (a uuid.UUID, or a str: 8-4-4-4-12 or 32 hex digits,
    either case) into its time and random bits. Anything else is
    InvalidArgument with the core's message: another length, a character
    that is not hex, a misplaced hyphen, another version ("... is a version 4
    UUID, not 7") or variant."""
    text = str(value) if isinstance(value, _uuid.UUID) else value
    return Uuid7(*_c._uuid7(text))
