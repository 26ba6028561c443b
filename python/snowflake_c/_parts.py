"""Decoding: an ID split into its time and fields."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from . import _snowflake_c as _c
from ._adopt import adopt
from ._layout import Layout, resolve
from ._time import to_datetime
from ._types import Epoch

if TYPE_CHECKING:
    from ._types import _Encoding


class Parts(_c.CoreParts):
    """An ID split into its time and fields (see decode()).

    ``id`` (the ID), ``time_ms`` (Unix ms of its tick, rounded down),
    ``time_us`` (Unix µs of the tick), ``layout`` (the Layout used to decode)
    and ``to_json()`` (the canonical JSON line, byte for byte the CLI's
    ``decode --json`` and every other binding's) are read from the core's
    parts, kept in C until asked for; ``time``, ``fields`` and
    ``parts[name]`` are made here.
    """

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def layout(self) -> Layout:
            """The layout used to decode."""

    @property
    def time(self) -> datetime:
        """The tick as an aware UTC datetime."""
        return to_datetime(self.time_us)

    @property
    def fields(self) -> dict[str, int]:
        """Every field but time, by name, in layout order."""
        value = self._value
        fields = {}
        for name, i in self.layout._named:  # a plain loop: the cheapest way here
            fields[name] = value(i)
        return fields

    def __getitem__(self, name: str) -> int:
        """A field's value by name; "time" gives the raw tick count."""
        return self._value(self.layout._index[name])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Parts):
            return NotImplemented
        return (self.id, self.layout) == (other.id, other.layout)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<snowflake_c.Parts {self.to_json()}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (decode, (self.id, self.layout))


adopt(Parts)  # the core type's methods as its own: calls at full speed


def decode(
    id: int | str,
    layout: Layout | str | None = None,
    *,
    preset: str | None = None,
    epoch: Epoch | None = None,
    encoding: _Encoding | None = None,
) -> Parts:
    """Splits an ID (an int or a decimal str, or a str in `encoding` such as
    "base62") into its time and fields. The layout is a Layout, a spec with
    epoch=, or preset= (default: "default")."""
    if encoding is not None:
        id = _c.parse_id(id, encoding)  # type: ignore[arg-type]  # the core says what it takes
    if type(layout) is not Layout or preset is not None or epoch is not None:
        layout = resolve(layout, preset, epoch)
    return layout._parts(Parts, id)
