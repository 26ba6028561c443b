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

import os as _os

from ._snowflake_c import (
    CORE_VERSION,
    ClockMovedBackwards,
    Field,
    Generator,
    GeneratorForked,
    InvalidArgument,
    InvalidLayout,
    Layout,
    Parts,
    SnowflakeError,
    StateError,
    TimeExhausted,
    WorkerUnavailable,
    __version__,
    _after_fork_child,
    decode,
    encode,
    format_id,
    format_time,
    parse_id,
    presets,
    range,
)

__all__ = [
    "CORE_VERSION",
    "ClockMovedBackwards",
    "Field",
    "Generator",
    "GeneratorForked",
    "InvalidArgument",
    "InvalidLayout",
    "Layout",
    "Parts",
    "SnowflakeError",
    "StateError",
    "TimeExhausted",
    "WorkerUnavailable",
    "__version__",
    "decode",
    "encode",
    "format_id",
    "format_time",
    "parse_id",
    "presets",
    "range",
]

# A forked child has only the thread that forked: forget the calls other
# threads had in progress in the parent. The core itself notices the fork
# (pthread_atfork): a pool-mode generator (node "auto" with a state_dir)
# takes a fresh worker on its next call, a static one raises
# GeneratorForked.
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_after_fork_child)
