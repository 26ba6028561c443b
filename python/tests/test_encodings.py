"""String forms of IDs: format_id(), parse_id() and decode(..., encoding=)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import snowflake_c as sfc
from conftest import own

ENCODINGS = ["dec", "hex", "base32", "base36", "base58", "base62"]


def test_decode_takes_an_encoded_id() -> None:
    ident = sfc.parse_id("2N1lXKsHtJ", "base62")
    parts = sfc.decode("2N1lXKsHtJ", preset="twitter", encoding="base62")
    assert parts == sfc.decode(ident, preset="twitter")
    assert parts.to_json() == sfc.decode(str(ident), preset="twitter").to_json()


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_round_trip_and_order(encoding: Any) -> None:
    with sfc.Generator(**own("twitter"), node={"datacenter": 1, "worker": 3}) as g:
        ids = g.next_ids(2000)
    fixed = [sfc.format_id(i, encoding, pad=True) for i in ids]
    assert len({len(t) for t in fixed}) == 1, "fixed width"
    assert sorted(fixed) == fixed, "fixed-width strings sort as the IDs do"
    assert [sfc.parse_id(t, encoding) for t in fixed] == ids
    short = [sfc.format_id(i, encoding, pad=False) for i in ids]
    assert [sfc.parse_id(t, encoding) for t in short] == ids
    default = [sfc.format_id(i, encoding) for i in ids]
    assert default == (short if encoding == "dec" else fixed), "dec's default is the shortest, the others' fixed"
    assert sfc.decode(fixed[0], g.layout, encoding=encoding).id == ids[0]


def test_zero_and_the_largest_id() -> None:
    assert sfc.format_id(0, "hex", pad=False) == "0"
    assert sfc.format_id(2**64 - 1, "hex") == "ffffffffffffffff"
    assert sfc.parse_id("FFFFFFFFFFFFFFFF", "hex") == 2**64 - 1
    assert sfc.format_id(0, "dec") == "0"
    assert sfc.format_id(0, "dec", pad=True) == "0" * 20
    assert sfc.format_id(2**64 - 1, "dec") == sfc.format_id(2**64 - 1, "dec", pad=True) == str(2**64 - 1)
    assert sfc.format_id(0, "base62", pad=False) == "0"
    assert sfc.format_id(0, "base62") == "0" * 11


def test_decimal_text_is_the_json_text() -> None:
    """One decimal text everywhere: format_id's dec is what JSON and decode print."""
    parts = sfc.decode(175928847299117063, preset="discord")
    assert sfc.format_id(parts.id, "dec") == "175928847299117063" == json.loads(parts.to_json())["id"]
    assert sfc.format_id(parts.id, "dec", pad=True) == "00175928847299117063"
    assert sfc.parse_id("00175928847299117063", "dec") == sfc.parse_id("175928847299117063", "dec")


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: sfc.parse_id("12!4", "base62"), sfc.InvalidArgument, "position 2"),
        (lambda: sfc.parse_id("", "base62"), sfc.InvalidArgument, "empty"),
        (lambda: sfc.parse_id("1\0", "hex"), sfc.InvalidArgument, "position 1"),
        (lambda: sfc.format_id(1, "base64"), sfc.InvalidArgument, "base64"),  # type: ignore[arg-type]
        (lambda: sfc.format_id(-1, "hex"), sfc.InvalidArgument, "negative"),
        (lambda: sfc.format_id(2**64, "hex"), sfc.InvalidArgument, "64 bits"),
        (lambda: sfc.decode("zzzzzzzzzzzzz", preset="twitter", encoding="base36"), sfc.InvalidArgument, "2^64 - 1"),
        (lambda: sfc.decode("2N1lXKsHtJ", preset="twitter", encoding="b62"), sfc.InvalidArgument, "b62"),  # type: ignore[arg-type]
        (lambda: sfc.parse_id(12, "base62"), TypeError, "str, not int"),  # type: ignore[arg-type]
        (lambda: sfc.parse_id("12", None), TypeError, "encoding"),  # type: ignore[arg-type]
        (lambda: sfc.decode(12, preset="twitter", encoding="hex"), TypeError, "str, not int"),
        (lambda: sfc.format_id(1.0, "hex"), TypeError, "float"),  # type: ignore[arg-type]
        (lambda: sfc.format_id(1, "hex", True), TypeError, "positional"),  # type: ignore[call-arg]
        (lambda: sfc.format_id(1, "dec", pad=1), TypeError, "pad must be True, False or None"),  # type: ignore[arg-type]
        (lambda: sfc.format_id(1, "dec", pad="no"), TypeError, "not str"),  # type: ignore[arg-type]
    ],
)
def test_bad_input_is_refused(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message.replace("^", r"\^")):
        call()


def test_invalid_argument_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        sfc.parse_id("?", "base58")
