"""Every public name of snowflake_c says what it is: help() and IDEs show it."""

from __future__ import annotations

from collections.abc import Iterator

import snowflake_c as sfc

# What a docstring cannot be attached to: values, not callables or classes.
VALUES = (str, int, float, bool, tuple, list, dict, type(None))


def _own(cls: type) -> bool:
    """Whether a class is the package's (the core types included), not Python's."""
    return cls.__module__.split(".")[0] == "snowflake_c"


def public_api() -> Iterator[tuple[str, object]]:
    """(qualified name, object) of every public name: each name of __all__
    that is a callable or a class, and each public member of those classes
    that the package defines (in the class or a core base type), from
    methods and properties to the core's read-only members."""
    for name in sfc.__all__:
        obj = getattr(sfc, name)
        if isinstance(obj, VALUES):
            continue
        yield name, obj
        if not isinstance(obj, type):
            continue
        for member in dir(obj):
            if member.startswith("_"):
                continue
            owner = next(c for c in obj.__mro__ if member in vars(c))
            if not _own(owner):
                continue  # Exception.add_note, tuple.count: Python's own
            value = vars(owner)[member]
            if isinstance(value, (classmethod, staticmethod)):
                value = value.__func__
            if isinstance(value, VALUES):
                continue  # a class attribute such as an error's status
            yield f"{name}.{member}", value


def test_the_walk_sees_every_kind_of_public_name() -> None:
    names = dict(public_api())
    for name in (
        "decode",  # a function
        "format_id",  # a C function
        "Parts",  # a class
        "Parts.id",  # a core member
        "Parts.time",  # a property
        "Parts.to_json",  # a core method
        "Parts.as_dict",  # a method
        "Layout.preset",  # a classmethod
        "Generator.next_id",  # a core method of a class that adopts them
        "Generator.closed",  # a core property
        "Field.bits",  # a named tuple's field
        "InvalidArgument",  # an error class
    ):
        assert name in names, name
    assert "SnowflakeError.status" not in names  # a value
    assert "Field.count" not in names  # tuple's


def test_every_public_name_has_a_docstring() -> None:
    """Its own: __doc__, not inspect.getdoc(), which would borrow a base
    class's docstring for a class or an overriding method that has none."""
    missing = [name for name, obj in public_api() if not (getattr(obj, "__doc__", None) or "").strip()]
    assert not missing, f"public names without a docstring: {missing}"
