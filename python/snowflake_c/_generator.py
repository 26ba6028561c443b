"""The generator: the core's, with Python's buffers and batches."""

from __future__ import annotations

import os
import sys
import warnings
from array import array
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import _snowflake_c as _c
from ._adopt import adopt
from ._layout import Layout, resolve
from ._lease import LeaseHost
from ._types import Epoch, NodeValue, PresetName

if TYPE_CHECKING:
    from typing_extensions import Buffer, Self, Unpack

    from ._types import GeneratorOptions

# Fill() asks the core for this many IDs at a time.
_FILL_CHUNK = 65536
# Buffer formats of 64-bit integers and of bytes, in native byte order.
_NATIVE = ("", "@", "=", "<" if sys.byteorder == "little" else ">")
_UNSIGNED = frozenset(p + c for p in _NATIVE for c in "QLN")
_SIGNED = frozenset(p + c for p in _NATIVE for c in "qln")
_BYTES = frozenset(p + c for p in _NATIVE for c in "Bbc")


class Generator(_c.CoreGenerator):
    """Issues unique, time-ordered IDs for one layout and one node value.

    Thread-safe and lock-free. The layout comes from ``preset=``, or
    ``layout=`` (a Layout, or a spec with ``epoch=``), else the "default"
    preset; ``node=`` gives the node values (a dict by field, or one value for
    a layout with one node field: a number, "auto", "host" or "env:NAME").
    Every other keyword is an option of the core's table (see ``options()``),
    None meaning its default; an unknown one is InvalidArgument. Durations
    are milliseconds, text with a unit ("1.5s") or a timedelta. The guard (on
    unless guard=False) refuses a second live generator on the host with the
    same ID space and node bits with WorkerUnavailable; guard=False warns
    with UnguardedWarning. A layout whose time runs out within ten years
    warns with LayoutEndingWarning.

    A node value "lease" (``node={"worker": "lease"}`` or
    SNOWFLAKE_WORKER=lease) is leased from the PostgreSQL of ``lease=`` (a
    libpq URL or key=value text; else SNOWFLAKE_LEASE_URL) through psycopg
    (``pip install 'snowflake-c[lease]'``): acquired here, renewed on a
    daemon thread, given back by close(). Past a lease without a renewal,
    calls raise LeaseExpired until one succeeds (docs/leases.md).
    """

    __slots__ = ("_layout", "_lease", "__weakref__")

    _layout: Layout
    _lease: LeaseHost | None

    def __new__(
        cls,
        *,
        preset: PresetName | None = None,
        layout: Layout | str | None = None,
        epoch: Epoch | None = None,
        node: Mapping[str, NodeValue] | NodeValue | None = None,
        lease: str | None = None,
        **options: Unpack[GeneratorOptions],
    ) -> Self:
        found = resolve(layout, preset, epoch)
        # What the core reads: the node values (a dict by field, or the only
        # one), then the options, a path object as the bytes the file system uses.
        given: dict[str, Any] = {"layout": found, "node": dict(node) if isinstance(node, Mapping) else node}
        given.update((k, os.fsencode(v) if isinstance(v, os.PathLike) else v) for k, v in options.items())
        made = _c.generator(cls, given)  # a CoreLease when the node value is leased
        if not isinstance(made, _c.CoreLease):
            self = made
            self._lease = None
        else:
            self = _leased(cls, made, lease, given)
        self._layout = found
        try:
            for kind, text in self._warnings():  # the category is <kind>Warning
                category = getattr(_c, kind + "Warning", UserWarning)
                warnings.warn(text, category, stacklevel=2)  # at the caller's Generator(...)
        except BaseException:  # a warning made an error: no generator, nor its lease, is left running
            self.close()
            raise
        return self

    @property
    def layout(self) -> Layout:
        """The generator's Layout."""
        return self._layout

    def close(self) -> None:
        """Writes the state file (with a state_dir) and gives the node value
        back, without waiting: a call in progress (on another thread, or one
        that a signal handler calling close() interrupted) either issued
        before it or raises InvalidArgument, as every later call does. A
        leased value's renewer is stopped first, and the value given back
        with the last tick issued. Idempotent."""
        if self._lease is None:
            _c.CoreGenerator.close(self)
        else:
            self._lease.close()

    @property
    def node(self) -> dict[str, int]:
        """The node values in force, by field name (after auto, host and env)."""
        return self.stats()["node"]

    def next_id_at(self, now_us: int, /) -> tuple[int | None, int]:
        """The deterministic entry: takes the clock reading (Unix µs), never
        sleeps. Returns (id, 0), or (None, wait_us) when the caller must wait."""
        issued, count, wait_us = self._ids(1, now_us)
        return (array("Q", issued)[0], 0) if count else (None, wait_us)

    def fill(self, buffer: Buffer, /) -> int:
        """Fills a writable buffer of 64-bit integers (array('Q'), a numpy.uint64
        array, or a bytearray whose length is a multiple of 8; native byte
        order) with IDs, making no Python ints. Returns the number written; on
        failure the IDs issued before it are written too."""
        with memoryview(buffer) as view:
            target = self._fill_target(view)
            count = target.nbytes // 8
            for start in range(0, count, _FILL_CHUNK):
                try:
                    ids = self._ids(min(_FILL_CHUNK, count - start))
                except _c.SnowflakeError as e:
                    issued = array("Q", getattr(e, "ids", ())).tobytes()
                    target[start * 8 : start * 8 + len(issued)] = issued
                    raise
                target[start * 8 : start * 8 + len(ids)] = ids
            return count

    def _fill_target(self, view: memoryview) -> memoryview:
        """A byte view of what fill() can write to, or the reason it cannot."""
        if view.readonly:
            raise BufferError("fill() needs a writable buffer; this one is read-only")
        if not view.c_contiguous:
            raise BufferError("fill() needs a C-contiguous buffer")
        fmt = view.format
        if view.itemsize == 8 and fmt in _SIGNED and self._layout.total_bits > 63:
            raise _c.InvalidArgument(
                "this layout's IDs use all 64 bits and do not fit a signed buffer; use array('Q') or numpy.uint64"
            )
        if not (view.itemsize == 8 and fmt in _UNSIGNED | _SIGNED) and not (view.itemsize == 1 and fmt in _BYTES):
            raise TypeError(
                "fill() needs a writable buffer of 64-bit integers (array('Q'), numpy.uint64) "
                f"or bytes (bytearray), not format {fmt}"
            )
        if view.nbytes % 8:
            raise _c.InvalidArgument(
                f"a byte buffer for fill() needs a length that is a multiple of 8, got {view.nbytes}"
            )
        return view.cast("B") if view.nbytes else view

    def __enter__(self) -> Self:
        if self.closed:
            self.now_us()  # raises the core's answer to a closed generator
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError(
            "a Generator cannot be pickled: create one in each process "
            '(node={"worker": "auto"} with a state_dir gives each process its own worker)'
        )

    def __repr__(self) -> str:
        if self.closed:
            return f"<snowflake_c.Generator {self._layout!r} closed>"
        return f"<snowflake_c.Generator {self._layout!r} node={self.node!r}>"


def _leased(
    cls: type[Generator],
    lease: _c.CoreLease,
    url: str | None,
    given: dict[str, Any],
) -> Any:
    """A generator on a value of the lease, acquired before it is made."""
    url = url or os.environ.get("SNOWFLAKE_LEASE_URL") or None
    if url is None:
        raise _c.InvalidArgument(
            "a node value 'lease' needs the database: give lease='postgresql://…' or SNOWFLAKE_LEASE_URL"
        )
    host = LeaseHost(lease, url)
    host.acquire()
    try:
        self = lease.generator(cls, given)
    except BaseException:
        host.give_back()  # a value taken but never used goes back at once
        raise
    self._lease = host
    host.start(self)
    return self


# The core type's methods as its own (calls at full speed), but for close(),
# which stops a leased node value's renewer first.
adopt(Generator, keep=("close",))
