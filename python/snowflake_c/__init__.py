"""64-bit, time-ordered unique IDs (the Twitter Snowflake family).

A thin binding over the snowflake-c core: the same layouts, IDs, errors and
canonical JSON as the C library, the command-line tool and the Node and Java
bindings.

>>> import snowflake_c
>>> parts = snowflake_c.decode(175928847299117063, preset="discord")
>>> parts.to_json()
'{"id":"175928847299117063","time_ms":1462015105796,"time":"2016-04-30T11:18:25.796Z","worker":1,"process":0,"seq":7}'
>>> with snowflake_c.Generator(preset="twitter", node={"datacenter": 1, "worker": 3}) as g:
...     a, b = g.next_id(), g.next_id()
>>> a < b
True
"""

from . import _snowflake_c
from ._encode import encode, format_time, range
from ._generator import Generator
from ._layout import Field, Layout, presets
from ._parts import Parts, decode
from ._snowflake_c import (
    CORE_VERSION,
    ClockMovedBackwards,
    GeneratorForked,
    InvalidArgument,
    InvalidLayout,
    LayoutEndingWarning,
    LeaseExpired,
    OutOfMemory,
    SnowflakeError,
    StateError,
    TimeExhausted,
    UnguardedWarning,
    WorkerUnavailable,
    format_id,
    lease_table_sql,
    parse_id,
)
from ._snowflake_c import option_names as _option_names
from ._types import PresetName as PresetName  # for annotations: the presets' names
from ._uuid7 import Uuid7, decode_uuid7

__version__ = CORE_VERSION

ERRORS: tuple[type[SnowflakeError], ...] = tuple(
    value
    for value in vars(_snowflake_c).values()  # in the order made: the core's status order
    if isinstance(value, type) and issubclass(value, SnowflakeError) and value is not SnowflakeError
)
"""One error class per error status of the core's table, in its order."""


def options() -> list[str]:
    """The names of Generator()'s options, in the core's table order."""
    return _option_names()


__all__ = [
    "CORE_VERSION",
    "ERRORS",
    "ClockMovedBackwards",
    "Field",
    "Generator",
    "GeneratorForked",
    "InvalidArgument",
    "InvalidLayout",
    "Layout",
    "LayoutEndingWarning",
    "LeaseExpired",
    "OutOfMemory",
    "Parts",
    "SnowflakeError",
    "StateError",
    "TimeExhausted",
    "UnguardedWarning",
    "Uuid7",
    "WorkerUnavailable",
    "__version__",
    "decode",
    "decode_uuid7",
    "encode",
    "format_id",
    "format_time",
    "lease_table_sql",
    "options",
    "parse_id",
    "presets",
    "range",
]
