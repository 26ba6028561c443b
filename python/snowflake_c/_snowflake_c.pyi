"""Type stubs for the CPython glue over the snowflake-c core."""

import os
import sys
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, ClassVar, Final, Literal, TypedDict, final, type_check_only

from typing_extensions import Buffer, Self

__version__: Final[str]
CORE_VERSION: Final[str]

_Time = int | str | datetime
_Epoch = int | str | datetime
_Duration = int | timedelta
_NodeValue = int | Literal["auto", "host"] | str
_Rollback = Literal["default", "error", "wait", "clock", "borrow", "switch"]
_TimeSource = Literal["wall", "monotonic"]
_Encoding = Literal["dec", "hex", "base32", "base36", "base58", "base62"]

class SnowflakeError(Exception):
    """Base of every snowflake_c error; ``status``/``code`` name the kind."""

    status: ClassVar[str | None]
    code: ClassVar[str | None]
    ids: list[int]

class InvalidLayout(SnowflakeError, ValueError):
    status: ClassVar[str]
    code: ClassVar[str]

class InvalidArgument(SnowflakeError, ValueError):
    status: ClassVar[str]
    code: ClassVar[str]

class ClockMovedBackwards(SnowflakeError):
    status: ClassVar[str]
    code: ClassVar[str]

class TimeExhausted(SnowflakeError):
    status: ClassVar[str]
    code: ClassVar[str]

class GeneratorForked(SnowflakeError):
    status: ClassVar[str]
    code: ClassVar[str]

class WorkerUnavailable(SnowflakeError):
    status: ClassVar[str]
    code: ClassVar[str]

class StateError(SnowflakeError):
    status: ClassVar[str]
    code: ClassVar[str]

@final
class Field(tuple[str, str, int, int, int]):
    """One field of a layout: (name, kind, bits, shift, max)."""

    __match_args__: ClassVar[tuple[str, str, str, str, str]]
    n_fields: ClassVar[int]
    n_sequence_fields: ClassVar[int]
    n_unnamed_fields: ClassVar[int]
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> Literal["time", "seq", "clock", "node"]: ...
    @property
    def bits(self) -> int: ...
    @property
    def shift(self) -> int: ...
    @property
    def max(self) -> int: ...
    if sys.version_info >= (3, 13):
        def __replace__(self, **changes: Any) -> Self: ...

@type_check_only
class _LayoutDescription(TypedDict):
    name: str | None
    spec: str
    epoch_ms: int
    unit_us: int
    total_bits: int
    ids_per_second: float
    node_capacity: int
    time_end_ms: int
    time_end: str
    max_id: int
    fields: list[dict[str, Any]]

@final
class Layout:
    """How an ID is packed: fields, most significant first, and an epoch."""

    def __new__(cls, spec: str, epoch: _Epoch) -> Self: ...
    @classmethod
    def preset(cls, name: str, /) -> Layout: ...
    def describe(self) -> _LayoutDescription: ...
    @property
    def name(self) -> str | None: ...
    @property
    def spec(self) -> str: ...
    @property
    def epoch_ms(self) -> int: ...
    @property
    def epoch(self) -> datetime: ...
    @property
    def unit_us(self) -> int: ...
    @property
    def total_bits(self) -> int: ...
    @property
    def fields(self) -> tuple[Field, ...]: ...
    @property
    def node_fields(self) -> tuple[str, ...]: ...
    @property
    def ids_per_second(self) -> float: ...
    @property
    def node_capacity(self) -> int: ...
    @property
    def time_end_ms(self) -> int: ...
    @property
    def time_end(self) -> str: ...
    @property
    def max_id(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class Parts:
    """An ID split into its time and fields (see decode())."""

    @property
    def id(self) -> int: ...
    @property
    def time_ms(self) -> int: ...
    @property
    def time_us(self) -> int: ...
    @property
    def time(self) -> datetime: ...
    @property
    def fields(self) -> dict[str, int]: ...
    @property
    def layout(self) -> Layout: ...
    def to_json(self) -> str: ...
    def __getitem__(self, name: str, /) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@type_check_only
class _Stats(TypedDict):
    ids_issued: int
    waits: int
    borrowed_ticks: int
    rollbacks: int
    rollbacks_waited: int
    rollbacks_refused: int
    clock_bumps: int
    last_time_ms: int
    clock: int
    rollback: _Rollback
    max_wait_ms: int
    max_drift_ms: int
    node: dict[str, int]
    node_sources: dict[str, Literal["explicit", "env", "host", "pool"]]
    guard: str

@final
class Generator:
    """Issues unique, time-ordered IDs for one layout and one node value."""

    def __new__(
        cls,
        *,
        preset: str | None = None,
        layout: Layout | str | None = None,
        epoch: _Epoch | None = None,
        node: Mapping[str, _NodeValue] | _NodeValue | None = None,
        rollback: _Rollback | None = None,
        max_wait: _Duration | None = None,
        max_drift: _Duration | None = None,
        random_start: bool = False,
        state_dir: str | os.PathLike[str] | os.PathLike[bytes] | bytes | None = None,
        time_source: _TimeSource | None = None,
        state_reserve: _Duration | None = None,
        guard: bool = True,
        guard_dir: str | os.PathLike[str] | os.PathLike[bytes] | bytes | None = None,
    ) -> Self: ...
    def next_id(self) -> int: ...
    def next_ids(self, n: int, /) -> list[int]: ...
    def fill(self, buffer: Buffer, /) -> int: ...
    def next_id_at(self, now_us: int, /) -> tuple[int | None, int]: ...
    def next_ids_at(self, now_us: int, n: int, /) -> tuple[list[int], int]: ...
    def now_us(self) -> int: ...
    def stats(self) -> _Stats: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *args: object) -> None: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    def _after_fork_child(self) -> None: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def node(self) -> dict[str, int]: ...
    @property
    def closed(self) -> bool: ...

def decode(
    id: int | str,
    layout: Layout | str | None = None,
    *,
    preset: str | None = None,
    epoch: _Epoch | None = None,
    encoding: _Encoding | None = None,
) -> Parts: ...
def format_id(id: int | str, encoding: _Encoding, *, pad: bool = True) -> str: ...
def parse_id(text: str, encoding: _Encoding, /) -> int: ...
def encode(
    time: _Time,
    fields: Mapping[str, int] | None = None,
    *,
    layout: Layout | str | None = None,
    preset: str | None = None,
    epoch: _Epoch | None = None,
) -> int: ...
def range(
    start: _Time,
    end: _Time,
    *,
    layout: Layout | str | None = None,
    preset: str | None = None,
    epoch: _Epoch | None = None,
) -> tuple[int, int]: ...
def presets() -> dict[str, Layout]: ...
def format_time(time: _Time, /) -> str: ...
def _after_fork_child() -> None: ...
