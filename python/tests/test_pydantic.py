"""snowflake_c.pydantic: IDs as strings in JSON, ints in Python."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest

pytest.importorskip("pydantic")

from pydantic import BaseModel, TypeAdapter, ValidationError  # noqa: E402

import snowflake_c as sfc  # noqa: E402
from conftest import own  # noqa: E402
from doc_examples import scripts  # noqa: E402
from snowflake_c.pydantic import IdString, SnowflakeId  # noqa: E402

ENCODINGS = ("hex", "base32", "base36", "base58", "base62")


class Event(BaseModel):
    id: SnowflakeId
    parent: SnowflakeId | None = None


@pytest.fixture(scope="module")
def ids() -> list[int]:
    """IDs from a generator, with the ends of the 64-bit range."""
    with sfc.Generator(**own("twitter"), node={"datacenter": 2, "worker": 9}) as g:
        return [*g.next_ids(200), 0, 1, 2**63 - 1, 2**63, 2**64 - 1]


def test_json_string_and_python_int(ids: list[int]) -> None:
    for i in ids:
        event = Event(id=i)
        text = event.model_dump_json()
        # Independent of the type: json.loads and str() give what the JSON must hold.
        assert json.loads(text) == {"id": str(i), "parent": None}
        assert event.model_dump() == {"id": i, "parent": None}
        assert type(event.id) is int
        assert Event.model_validate_json(text) == event
        assert Event.model_validate_json(json.dumps({"id": i})) == event  # a JSON number


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_string_forms_round_trip_and_accept_decimal(encoding: str, ids: list[int]) -> None:
    adapter: TypeAdapter[int] = TypeAdapter(Annotated[int, IdString(encoding)])
    for i in ids:
        text = sfc.format_id(i, encoding)  # type: ignore[arg-type]
        assert adapter.dump_json(i) == json.dumps(text).encode()
        assert adapter.dump_python(i) == i
        assert adapter.validate_json(adapter.dump_json(i)) == i
        assert adapter.validate_python(text) == i
        if len(str(i)) != len(text):  # the decimal text, unless as long as the fixed form (documented)
            assert adapter.validate_python(str(i)) == i
        assert adapter.validate_python(i) == i


def test_equal_width_text_is_the_chosen_form() -> None:
    adapter: TypeAdapter[int] = TypeAdapter(Annotated[int, IdString("hex")])
    assert adapter.validate_python("0000000000000010") == 16
    assert adapter.validate_python("10") == 10
    assert adapter.validate_python("10000000000000000") == 10**16  # 17 digits: decimal


@pytest.mark.parametrize(
    "bad", [-1, 2**64, "", "12a", "-5", "18446744073709551616", True, 1.5, None, b"12", "00000000000000000000000"]
)
def test_invalid_ids_are_validation_errors(bad: object) -> None:
    with pytest.raises(ValidationError) as e:
        Event.model_validate({"id": bad})
    assert e.value.errors()[0]["loc"] == ("id",)


def test_invalid_character_is_named() -> None:
    with pytest.raises(ValidationError, match=r"'!' at position 3"):
        TypeAdapter(Annotated[int, IdString("base62")]).validate_python("02N!lXKsHtJ")


def test_unknown_encoding_fails_at_definition() -> None:
    with pytest.raises(sfc.InvalidArgument):
        IdString("base64")  # type: ignore[arg-type]


def test_json_schema_says_string() -> None:
    adapter: TypeAdapter[int] = TypeAdapter(SnowflakeId)
    assert adapter.json_schema(mode="serialization") == {"type": "string"}
    accepted = adapter.json_schema(mode="validation")["anyOf"]
    assert {"type": "string"} in accepted
    assert {"type": "integer", "minimum": 0, "maximum": 2**64 - 1} in accepted


@pytest.mark.parametrize("code", scripts("python-pydantic.md"))
def test_doc_example_runs(code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == '{"id":"175928847299117063","customer":"02N1lXKsHtJ"}'
