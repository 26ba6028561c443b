"""Pydantic v2: snowflake IDs that travel through JSON as strings.

A 64-bit ID is exact in Python but not in JavaScript, whose numbers hold 53
bits: a ``SnowflakeId`` field is an ``int`` in Python (``model_dump()``) and a
decimal string in JSON (``model_dump_json()``), and validates from an int or
a string. ``Annotated[int, IdString("base62")]`` writes the fixed-width
base62 form instead (or hex, base32, base36, base58) and reads it or the
decimal string. See docs/integrations/python-pydantic.md. Needs
``pip install snowflake-c[pydantic]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypeAlias

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from ._snowflake_c import format_id, parse_id

if TYPE_CHECKING:
    from ._types import _Encoding

__all__ = ["IdString", "SnowflakeId"]


class IdString:
    """The marker of an ``Annotated[int, ...]`` ID written to JSON as a string.

    ``IdString()`` writes the decimal form ("175928847299117063");
    ``IdString("base62")`` (or "hex", "base32", "base36", "base58") the
    fixed-width string form, which sorts as the IDs do. Validation takes an
    int, the decimal string, or the chosen form: a string as long as the
    chosen form's fixed width is read in that form, any other as decimal
    (so decimal text of exactly that many digits is read in the chosen
    form: 16 digits for hex, 13 for base32 and base36, 11 for base58 and
    base62). An ID out of range or a bad string is a validation error
    naming the character and position.
    """

    __slots__ = ("encoding", "width")

    def __init__(self, encoding: _Encoding = "dec") -> None:
        self.encoding: _Encoding = encoding
        self.width = len(format_id(0, encoding, pad=True))  # an unknown encoding fails here

    def validate(self, value: object) -> int:
        """The ID that an int or a string stands for; ValueError (which pydantic
        reports as a validation error) otherwise."""
        if isinstance(value, str):
            if self.encoding != "dec" and len(value) == self.width:
                return parse_id(value, self.encoding)
            return parse_id(value, "dec")
        if isinstance(value, int) and not isinstance(value, bool):
            format_id(value, "dec")  # the core's range check: 0 to 2**64 - 1
            return value
        raise ValueError(f"a snowflake ID is an int or a string, not {type(value).__qualname__}")

    def serialize(self, value: int) -> str:
        """The ID as JSON's string: decimal, or the chosen fixed-width form."""
        return format_id(value, self.encoding)  # dec's default is the plain number

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        """Pydantic's schema: an int in Python, a string in JSON."""
        return core_schema.no_info_plain_validator_function(
            self.validate,
            json_schema_input_schema=core_schema.union_schema(
                [core_schema.int_schema(ge=0, le=2**64 - 1), core_schema.str_schema()]
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(
                self.serialize, when_used="json", return_schema=core_schema.str_schema()
            ),
        )

    def __repr__(self) -> str:
        return f"IdString({self.encoding!r})"


SnowflakeId: TypeAlias = Annotated[int, IdString()]
"""A snowflake ID field: an int in Python (``model_dump()``), a decimal
string in JSON (``model_dump_json()``); validates from an int or a decimal
string."""
