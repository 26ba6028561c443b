"""Layouts: how an ID is packed, described by the core's facts."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from . import _snowflake_c as _c
from ._adopt import adopt
from ._time import epoch_text, to_datetime
from ._types import Epoch, LayoutDescription, PresetName

if TYPE_CHECKING:
    from typing_extensions import Self

    from ._types import _FieldKind


class Field(NamedTuple):
    """One field of a layout: (name, kind, bits, shift, max)."""

    name: str
    kind: _FieldKind
    bits: int
    shift: int
    max: int


class Layout(_c.CoreLayout):
    """How an ID is packed: fields, most significant first, and an epoch.

    ``Layout(spec, epoch)`` parses a spec such as ``"time:41@1ms,worker:10,seq:12"``
    with its epoch (Unix ms, ISO-8601 UTC or an aware datetime);
    ``Layout.preset(name)`` gives a preset's layout. Immutable and hashable.
    """

    __slots__ = ("_facts", "_index", "_named")

    _facts: LayoutDescription
    _index: dict[str, int]  # every field's position, by name
    _named: tuple[tuple[str, int], ...]  # (name, position) of every field but time

    def __new__(cls, spec: str, epoch: Epoch) -> Self:
        return _made(_c.layout(cls, {"layout": spec, "epoch": epoch_text(epoch)}))

    @classmethod
    def preset(cls, name: PresetName, /) -> Layout:
        """The layout of a preset: "default", "twitter", "discord", "sonyflake", "baidu", "instagram" or "jssafe"."""
        return resolve(None, name, None)

    def describe(self) -> LayoutDescription:
        """Everything the layout tells about itself, keyed as the core names it (JSON-ready)."""
        return self._describe()

    @property
    def name(self) -> str | None:
        """The preset this layout is (same spec and epoch), or None."""
        return self._facts["name"]

    @property
    def spec(self) -> str:
        """The canonical spec, time unit always given: 'time:41@1ms,worker:10,seq:12'."""
        return self._facts["spec"]

    @property
    def epoch_ms(self) -> int:
        """The epoch in Unix milliseconds."""
        return self._facts["epoch_ms"]

    @property
    def epoch(self) -> datetime:
        """The epoch as an aware UTC datetime."""
        return to_datetime(self.epoch_ms * 1000)

    @property
    def unit_us(self) -> int:
        """The length of one tick in microseconds."""
        return self._facts["unit_us"]

    @property
    def total_bits(self) -> int:
        """The sum of the field widths."""
        return self._facts["total_bits"]

    @property
    def fields(self) -> tuple[Field, ...]:
        """The fields, most significant first."""
        return tuple(Field(**f) for f in self._facts["fields"])

    @property
    def node_fields(self) -> tuple[str, ...]:
        """The names of the node fields, in layout order."""
        return tuple(f["name"] for f in self._facts["fields"] if f["kind"] == "node")

    @property
    def ids_per_second(self) -> float:
        """The most IDs one node can issue per second."""
        return self._facts["ids_per_second"]

    @property
    def node_capacity(self) -> int:
        """How many distinct node values the layout can address."""
        return int(self._facts["node_capacity"])

    @property
    def time_end_ms(self) -> int:
        """The first instant (Unix ms) the time field cannot hold."""
        return self._facts["time_end_ms"]

    @property
    def time_end(self) -> str:
        """time_end_ms as an ISO-8601 UTC string."""
        return _c.format_time(self.time_end_ms)

    @property
    def max_id(self) -> int:
        """The largest ID the layout can hold."""
        return self._facts["max_id"]

    def __eq__(self, other: object) -> bool:
        """Layouts are equal when they pack IDs the same way: same spec, same epoch."""
        if not isinstance(other, Layout):
            return NotImplemented
        return (self.spec, self.epoch_ms) == (other.spec, other.epoch_ms)

    def __hash__(self) -> int:
        return hash((self.spec, self.epoch_ms))

    def __repr__(self) -> str:
        if self.name is not None:
            return f"Layout.preset({self.name!r})"
        return f"Layout({self.spec!r}, {self.epoch_ms})"

    def __str__(self) -> str:
        return self.spec

    def __reduce__(self) -> tuple[Any, ...]:
        if self.name is not None:
            return (resolve, (None, self.name, None))
        return (Layout, (self.spec, self.epoch_ms))


adopt(Layout)  # the core type's methods as its own: calls at full speed

_L = TypeVar("_L", bound=Layout)


def _made(layout: _L) -> _L:
    """A layout from the core, with the facts every call reads."""
    layout._facts = layout._describe()
    fields = layout._facts["fields"]
    layout._index = {f["name"]: i for i, f in enumerate(fields)}
    layout._named = tuple((f["name"], i) for i, f in enumerate(fields) if f["kind"] != "time")
    return layout


def _from_texts(preset: str | None, spec: str | None, epoch: str | None, for_ids: bool = False) -> Layout:
    return _made(_c.layout(Layout, {"preset": preset, "layout": spec, "epoch": epoch}, for_ids))


_cached = lru_cache(maxsize=256)(_from_texts)


def resolve(layout: Layout | str | None, preset: str | None, epoch: Epoch | None, *, for_ids: bool = False) -> Layout:
    """The layout of the keyword trio every entry point takes (a Layout, or a
    spec with its epoch, or a preset), by the core's one rule: nothing given
    is the default preset for a generator, and refused for IDs made elsewhere
    (`for_ids`: decode, encode, range), which no layout is assumed for.
    Layouts are immutable: one object serves every call that names the same
    one."""
    if isinstance(layout, Layout):
        if preset is None and epoch is None:
            return layout
        # The core's rule refuses what comes beside a Layout (it carries its epoch).
        return _made(_c.layout(Layout, {"layout": layout, "preset": preset, "epoch": epoch_text(epoch)}))
    text = epoch_text(epoch)
    if type(preset) in _TEXT_OR_NONE and type(layout) in _TEXT_OR_NONE and type(text) in _TEXT_OR_NONE:
        return _cached(preset, layout, text, for_ids)
    return _from_texts(preset, layout, text, for_ids)  # the core says what is wrong


_TEXT_OR_NONE = frozenset((str, type(None)))  # what the cache can key on


def presets() -> dict[str, Layout]:
    """The presets' layouts, by name."""
    return {name: Layout.preset(name) for name in _c.preset_names()}  # type: ignore[arg-type]  # the table's names
