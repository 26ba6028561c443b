"""Type stubs for the CPython glue over the snowflake-c core (private: the
package's modules build the public API on it)."""

from typing import Any, ClassVar, Final, TypeVar

from typing_extensions import disjoint_base

from ._types import LayoutDescription, LeaseStats, Stats, _Encoding

CORE_VERSION: Final[str]

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

class OutOfMemory(SnowflakeError, MemoryError):
    status: ClassVar[str]
    code: ClassVar[str]

class LeaseExpired(SnowflakeError):
    status: ClassVar[str]
    code: ClassVar[str]

class UnguardedWarning(UserWarning):
    """A generator runs without the guard (guard=False): nothing stops
    another live generator with the same node value from issuing the same IDs."""

class LayoutEndingWarning(UserWarning):
    """A generator's layout runs out of time within ten years (or has): past
    that day it refuses with TimeExhausted."""

@disjoint_base
class CoreLayout:
    def _describe(self) -> LayoutDescription: ...
    def _parts(self, cls: type[_P], id: int | str, /) -> _P: ...
    def _encode(self, time_us: int, fields: dict[str, int], /) -> int: ...
    def _range(self, start_ms: int, end_ms: int, /) -> list[int]: ...

@disjoint_base
class CoreParts:
    @property
    def id(self) -> int:
        """The ID."""
    @property
    def time_ms(self) -> int:
        """Unix milliseconds of the ID's tick (rounded down)."""
    @property
    def time_us(self) -> int:
        """Unix microseconds of the ID's tick."""
    @property
    def layout(self) -> CoreLayout:
        """The Layout used to decode."""
    def to_json(self) -> str:
        """The canonical JSON line, byte for byte the CLI's `decode --json` and
        every other binding's: the ID as a decimal string, time_ms, time
        (ISO-8601 UTC), then every other field in layout order."""
    def _value(self, index: int, /) -> int: ...

_P = TypeVar("_P", bound=CoreParts)

@disjoint_base
class CoreGenerator:
    def next_id(self) -> int:
        """The next ID. Waits for the clock with the GIL released when the
        tick's sequence has run out or the clock stepped back."""
    def next_ids(self, n: int, /) -> list[int]:
        """A list of n consecutive IDs, each tick's run reserved at once. On
        failure the exception's `ids` holds the IDs already issued."""
    def next_ids_at(self, now_us: int, n: int, /) -> tuple[list[int], int]:
        """The deterministic batch entry: (ids, wait_us), wait_us 0 when all n
        were issued. On failure the exception's `ids` holds the IDs issued."""
    def now_us(self) -> int:
        """The generator's clock: Unix microseconds from its time source."""
    def stats(self) -> Stats:
        """The counters and settings, keyed as the core's table names them;
        with a leased node value, "lease": its state, value, expiry and
        horizon (Unix ms), renewals, failures and last failure."""
    def close(self) -> None:
        """Writes the state file (with a state_dir) and gives the node value
        back, without waiting: a call in progress (on another thread, or one
        that a signal handler calling close() interrupted) either issued
        before it or raises InvalidArgument, as every later call does.
        Idempotent."""
    @property
    def closed(self) -> bool:
        """Whether close() was called."""
    def _ids(self, n: int, now_us: int | None = None, /) -> Any: ...
    def _warnings(self) -> list[list[str]]: ...  # [[kind, text]]

_G = TypeVar("_G", bound=CoreGenerator)

_LeaseQuery = tuple[str, str, tuple[str, ...]]

@disjoint_base
class CoreLease:
    def due(self) -> _LeaseQuery | int: ...
    def done(self, row: tuple[str | None, ...] | None, /) -> None: ...
    def failed(self, why: str, /) -> None: ...
    def acquired(self) -> bool: ...
    def generator(self, cls: type[_G], args: dict[str, Any], /) -> _G: ...
    def valid(self) -> bool: ...
    def release(self) -> _LeaseQuery | None: ...
    def stats(self) -> LeaseStats: ...

_L = TypeVar("_L", bound=CoreLayout)

def layout(cls: type[_L], args: dict[str, Any], for_ids: bool = False, /) -> _L: ...
def generator(cls: type[_G], args: dict[str, Any], /) -> _G | CoreLease: ...
def lease_table_sql() -> str:
    """The SQL that creates the table of leased node values
    (snowflake_c_leases) if it is missing: for a migration, or run once by a
    role that may create tables."""

def format_id(id: int | str, encoding: _Encoding, *, pad: bool | None = None) -> str:
    """The ID (an int or a decimal str) as text in an encoding: "dec", "hex",
    "base32" (Crockford), "base36", "base58" (Bitcoin) or "base62". By
    default dec is the plain number (as JSON prints it) and the others are
    fixed width, so that the strings sort as the IDs do; pad=True gives the
    fixed width in any encoding (dec's 20 digits), pad=False the shortest
    form."""

def parse_id(text: str, encoding: _Encoding, /) -> int:
    """The ID that text in an encoding stands for, fixed width or shortest
    (hex, base32 and base36 in any case). Anything else is InvalidArgument,
    naming the character and its position."""

def _uuid7(text: str, /) -> list[Any]: ...  # [uuid, unix_ms, rand_a, rand_b, json]
def format_time(ms: int, /) -> str: ...
def parse_time(text: str, /) -> int: ...
def preset_names() -> list[str]: ...
def option_names() -> list[str]: ...
def _adopt(cls: type, keep: tuple[str, ...] = (), /) -> None: ...
