"""Decoding: an ID split into its time and fields."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from . import _snowflake_c as _c
from ._layout import Layout, resolve
from ._time import to_datetime
from ._types import Epoch

if TYPE_CHECKING:
    from ._types import _Encoding


class Parts:
    """An ID split into its time and fields (see decode())."""

    __slots__ = ("_layout", "_decoded")

    _layout: Layout
    _decoded: tuple[int, ...]  # id, time_ms, time_us, then every field's value

    @property
    def id(self) -> int:
        """The ID."""
        return self._decoded[0]

    @property
    def time_ms(self) -> int:
        """Unix milliseconds of the ID's tick (rounded down)."""
        return self._decoded[1]

    @property
    def time_us(self) -> int:
        """Unix microseconds of the tick."""
        return self._decoded[2]

    @property
    def time(self) -> datetime:
        """The tick as an aware UTC datetime."""
        return to_datetime(self._decoded[2])

    @property
    def layout(self) -> Layout:
        """The layout used to decode."""
        return self._layout

    @property
    def fields(self) -> dict[str, int]:
        """Every field but time, by name, in layout order."""
        fields = self._layout._facts["fields"]
        return {f["name"]: v for f, v in zip(fields, self._decoded[3:], strict=True) if f["kind"] != "time"}

    def __getitem__(self, name: str) -> int:
        """A field's value by name; "time" gives the raw tick count."""
        return self._decoded[3 + self._layout._index[name]]

    def to_json(self) -> str:
        """The canonical JSON line, byte for byte the CLI's `decode --json` and every other binding's."""
        return self._layout._core.json(self.id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Parts):
            return NotImplemented
        return (self.id, self._layout) == (other.id, other._layout)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<snowflake_c.Parts {self.to_json()}>"


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
    parts = _new(Parts)
    parts._decoded = layout._core.decode(id)
    parts._layout = layout
    return parts


_new = object.__new__
