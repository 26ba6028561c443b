"""One Generator per process, made on first use: what the framework
integrations draw from, so that a server that forks after import (gunicorn
--preload, Django under a pre-forking server) never shares one."""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable

from ._generator import Generator

GeneratorSource = Generator | Callable[[], Generator]
"""A Generator, used as it is, or a zero-argument callable that makes one,
called once in each process that draws an ID."""

BIGINT_MAX = 2**63 - 1
"""The largest value of SQL's BIGINT (signed 64 bits)."""


def check_bigint(generator: Generator) -> None:
    """ValueError unless every ID of the generator's layout fits a signed BIGINT."""
    layout = generator.layout
    if layout.max_id > BIGINT_MAX:
        raise ValueError(
            f"layout {layout.spec} uses {layout.total_bits} bits: its IDs do not fit a signed BIGINT "
            "column; use a 63-bit layout (the presets default, twitter, sonyflake, baidu)"
        )


class PerProcess:
    """The current process's Generator from a source: a Generator is returned
    as it is; a factory is called on first use in each process (a forked
    child makes its own) and its Generator kept until reset()."""

    def __init__(self, source: GeneratorSource, *, bigint: bool = False) -> None:
        if not isinstance(source, Generator) and not callable(source):
            raise TypeError(
                f"expected a snowflake_c.Generator or a callable that makes one, not {type(source).__qualname__}"
            )
        self._source = source
        self._bigint = bigint
        self._lock = threading.Lock()
        self._pid = 0
        self._made: Generator | None = None
        if isinstance(source, Generator):
            self._checked(source)  # a given Generator: refused at once, not at the first ID
        _instances.add(self)

    def __call__(self) -> Generator:
        made, pid = self._made, os.getpid()
        if made is not None and self._pid == pid:
            return made
        with self._lock:
            if self._made is None or self._pid != pid:
                # A forked child's inherited copy belongs to its parent: it
                # is left alone (the core drops its claim in the child).
                self._made = self._make()
                self._pid = pid
            return self._made

    def _make(self) -> Generator:
        source = self._source
        made = source if isinstance(source, Generator) else source()
        if not isinstance(made, Generator):
            raise TypeError(f"the generator factory returned {type(made).__qualname__}, not a snowflake_c.Generator")
        return self._checked(made)

    def _checked(self, made: Generator) -> Generator:
        """The Generator, if its IDs fit where they go."""
        if self._bigint:
            check_bigint(made)
        return made

    def reset(self) -> None:
        """Closes the Generator this process made (a given one is left open),
        so that the next call makes a new one."""
        with self._lock:
            made, self._made = self._made, None
            if made is not None and made is not self._source and self._pid == os.getpid():
                made.close()


_instances: weakref.WeakSet[PerProcess] = weakref.WeakSet()
_by_source: weakref.WeakKeyDictionary[GeneratorSource, PerProcess] = weakref.WeakKeyDictionary()
_by_source_lock = threading.Lock()


def for_bigint(source: GeneratorSource) -> PerProcess:
    """The PerProcess of a source whose IDs go to BIGINT columns: one per
    source, so that columns given the same factory share its Generator (a
    second Generator of one static node value would be refused)."""
    with _by_source_lock:
        try:
            found = _by_source.get(source)
        except TypeError:  # a source that takes no weak reference: not shared
            return PerProcess(source, bigint=True)
        if found is None:
            found = _by_source[source] = PerProcess(source, bigint=True)
        return found


def _after_fork_child() -> None:
    # A lock held by a thread of the parent stays held in the child, where
    # that thread does not exist: each PerProcess gets a fresh one.
    for instance in list(_instances):
        instance._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_child)
