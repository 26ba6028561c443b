"""SQLAlchemy 2: snowflake primary keys, and IDs stored as BIGINT shown as strings.

``snowflake_column(source)`` is a ``mapped_column()`` of a BIGINT primary key
whose value is drawn from a Generator when a row is inserted without one;
``snowflake_default(source)`` is the same default for a ``Column(...,
default=...)``. The source is a Generator, or a zero-argument callable that
makes one: called once in each process that inserts, so that a server that
forks after import never shares one (see docs/integrations/python-sqlalchemy.md).

``IdString(encoding)`` is a column type that stores the ID as BIGINT and
gives it to Python as a string form (``format_id``/``parse_id``): decimal,
hex, base32, base36, base58 or base62. Needs ``pip install snowflake-c[sqlalchemy]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

from sqlalchemy import BigInteger
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import MappedColumn, mapped_column
from sqlalchemy.types import TypeDecorator

from ._per_process import GeneratorSource, for_bigint
from ._snowflake_c import format_id, parse_id

if TYPE_CHECKING:
    from ._types import _Encoding

__all__ = ["IdString", "snowflake_column", "snowflake_default"]


@overload
def snowflake_default(source: GeneratorSource, *, encoding: None = None) -> Callable[[], int]: ...
@overload
def snowflake_default(source: GeneratorSource, *, encoding: _Encoding) -> Callable[[], str]: ...
def snowflake_default(source: GeneratorSource, *, encoding: _Encoding | None = None) -> Callable[[], int | str]:
    """A column default that draws the next ID from the source's Generator
    (checked to fit a signed BIGINT; defaults of one source share it); with
    an encoding, the ID in that string form (its default: dec's plain
    number, the others' fixed width), for an IdString column of the same
    encoding."""
    generator = for_bigint(source)  # one per source: columns of one factory share its Generator
    if encoding is None:

        def next_id() -> int:
            return generator().next_id()

        return next_id
    format_id(0, encoding)  # an unknown encoding fails here, not at the first insert

    def next_id_text() -> str:
        return format_id(generator().next_id(), encoding)

    return next_id_text


def snowflake_column(
    source: GeneratorSource, *, encoding: _Encoding | None = None, primary_key: bool = True, **kwargs: Any
) -> MappedColumn[Any]:
    """A ``mapped_column()`` holding snowflake IDs as BIGINT, drawn from the
    source's Generator when a row is inserted without one: a primary key
    unless ``primary_key=False``. With an encoding, its type is
    ``IdString(encoding)`` (the attribute a string); other keywords go to
    ``mapped_column()``."""
    column_type = BigInteger() if encoding is None else IdString(encoding)
    return mapped_column(
        column_type,
        primary_key=primary_key,
        autoincrement=False,
        default=snowflake_default(source, encoding=encoding),
        **kwargs,
    )


class IdString(TypeDecorator[str]):
    """A snowflake ID stored as BIGINT and seen in Python as a string form:
    "dec", "hex", "base32", "base36", "base58" or "base62", in the
    encoding's default form as ``format_id`` gives it: dec the plain number
    ("175928847299117063", as JSON and every API print it), the others fixed
    width (so that strings sort as the IDs do). ``pad=True`` gives the fixed
    width in any encoding (dec's 20 digits, which sort as the IDs do),
    ``pad=False`` the shortest form. Binds take any form or an int; an
    invalid string is InvalidArgument (a ValueError)."""

    impl = BigInteger
    cache_ok = True

    def __init__(self, encoding: _Encoding = "dec", *, pad: bool | None = None) -> None:
        format_id(0, encoding, pad=pad)  # an unknown encoding or pad fails at the model's definition
        super().__init__()
        self.encoding: _Encoding = encoding
        self.pad = pad

    def process_bind_param(self, value: str | int | None, dialect: Dialect) -> int | None:
        """The ID to store: a string form parsed, an int as it is."""
        if value is None:
            return None
        if isinstance(value, str):
            return parse_id(value, self.encoding)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"a snowflake ID is a str or an int, not {type(value).__qualname__}")
        return value

    def process_result_value(self, value: int | None, dialect: Dialect) -> str | None:
        """The stored ID in the column's string form."""
        return None if value is None else format_id(value, self.encoding, pad=self.pad)

    @property
    def python_type(self) -> type[str]:
        """Python's type of the column's values: str."""
        return str

    def __repr__(self) -> str:
        return f"IdString({self.encoding!r}, pad={self.pad!r})"
