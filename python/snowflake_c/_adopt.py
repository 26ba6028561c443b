"""The core types' C methods as their Python subclasses' own."""

from __future__ import annotations

from . import _snowflake_c as _c


def adopt(cls: type, keep: tuple[str, ...] = ()) -> None:
    """Gives `cls` its core base type's C methods as its own: CPython's fast
    path for `obj.method()` only takes a method of the object's exact type.
    `cls` must not override one of them (the copy would replace it), but for
    the names in `keep`, which stay its own."""
    base = cls.__mro__[1]
    methods = {name for name, value in vars(base).items() if type(value).__name__ == "method_descriptor"}
    clash = methods & set(vars(cls)) - set(keep)
    if clash:
        raise TypeError(f"{cls.__name__} overrides {sorted(clash)} of {base.__name__}")
    _c._adopt(cls, keep)
