"""Decoding: an ID split into its time and fields."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from . import _snowflake_c as _c
from ._adopt import adopt
from ._layout import Layout, resolve
from ._time import to_datetime
from ._types import Epoch, PresetName

if TYPE_CHECKING:
    from ._types import _Encoding


class Parts(_c.CoreParts):
    """An ID split into its time and fields (see decode()).

    ``id`` (the ID), ``time_ms`` (Unix ms of its tick, rounded down),
    ``time_us`` (Unix µs of the tick), ``layout`` (the Layout used to decode)
    and ``to_json()`` (the canonical JSON line, byte for byte the CLI's
    ``decode --json`` and every other binding's) are read from the core's
    parts, kept in C until asked for; ``time``, ``fields``, ``parts[name]``
    and ``as_dict()`` are made here.

    Parts are equal when they hold the same ID decoded by equal layouts, and
    hashable on the same terms (set members, dict keys). Parts of one layout
    are ordered by ID, which sorts by time first; ordering Parts of different
    layouts raises TypeError, as their IDs do not share one time line.
    ``int(parts)`` is the ID; a Parts is not an int otherwise (no
    ``__index__``: it cannot index a list). ``json.dumps()`` cannot write a
    Parts: ``to_json()`` is the canonical text, ``as_dict()`` a plain dict
    for json.dumps() or other serialisers.
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

    def as_dict(self) -> dict[str, int | str]:
        """The canonical JSON's keys and values as a plain dict, in its order:
        ``id`` (an int here, where the JSON has a decimal string),
        ``time_ms``, ``time`` (ISO-8601 UTC text), then every other field by
        name. ``json.dumps()`` writes it, the ID as a JSON number."""
        d: dict[str, int | str] = {"id": self.id, "time_ms": self.time_ms, "time": _c.format_time(self.time_ms)}
        d.update(self.fields)
        return d

    def __eq__(self, other: object) -> bool:
        """Equal: the same ID decoded by equal layouts (same spec and epoch)."""
        if not isinstance(other, Parts):
            return NotImplemented
        return (self.id, self.layout) == (other.id, other.layout)

    def __hash__(self) -> int:
        """Hashed on what equality compares: the ID and the layout."""
        return hash((self.id, self.layout))

    def __lt__(self, other: Parts) -> bool:
        """By ID, among Parts of one layout: TypeError for another layout's."""
        if not isinstance(other, Parts):
            return NotImplemented
        _same_layout(self, other)
        return self.id < other.id

    def __le__(self, other: Parts) -> bool:
        """By ID, among Parts of one layout: TypeError for another layout's."""
        if not isinstance(other, Parts):
            return NotImplemented
        _same_layout(self, other)
        return self.id <= other.id

    def __gt__(self, other: Parts) -> bool:
        """By ID, among Parts of one layout: TypeError for another layout's."""
        if not isinstance(other, Parts):
            return NotImplemented
        _same_layout(self, other)
        return self.id > other.id

    def __ge__(self, other: Parts) -> bool:
        """By ID, among Parts of one layout: TypeError for another layout's."""
        if not isinstance(other, Parts):
            return NotImplemented
        _same_layout(self, other)
        return self.id >= other.id

    def __int__(self) -> int:
        """The ID."""
        return self.id

    def __repr__(self) -> str:
        return f"<snowflake_c.Parts {self.to_json()}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (decode, (self.id, self.layout))


adopt(Parts)  # the core type's methods as its own: calls at full speed


def _same_layout(a: Parts, b: Parts) -> None:
    """Parts order by ID only within one layout: IDs of two layouts do not
    share a time line (another epoch, unit or time field), so their order
    would say nothing. Raises TypeError, as Python does for unorderable types."""
    if a.layout is not b.layout and a.layout != b.layout:
        raise TypeError(
            f"cannot order Parts of different layouts ({a.layout!r} and {b.layout!r}): "
            "their IDs do not share one time line; compare their .time instead"
        )


def decode(
    id: int | str,
    layout: Layout | str | None = None,
    *,
    preset: PresetName | None = None,
    epoch: Epoch | None = None,
    encoding: _Encoding | None = None,
) -> Parts:
    """Splits an ID (an int or a decimal str, or a str in `encoding` such as
    "base62") into its time and fields. The layout is a Layout, a spec with
    epoch=, or preset=: the one the ID was made with, which is never assumed
    (InvalidArgument when none is given)."""
    if encoding is not None:
        id = _c.parse_id(id, encoding)  # type: ignore[arg-type]  # the core says what it takes
    if type(layout) is not Layout or preset is not None or epoch is not None:
        layout = resolve(layout, preset, epoch, for_ids=True)
    return layout._parts(Parts, id)
