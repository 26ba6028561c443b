"""Bad input gets the right exception type, with the status name and a message."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import snowflake_c as sfc
from conftest import own

ERRORS = [
    "InvalidLayout",
    "InvalidArgument",
    "ClockMovedBackwards",
    "TimeExhausted",
    "GeneratorForked",
    "WorkerUnavailable",
    "StateError",
    "OutOfMemory",
    "LeaseExpired",
]


@pytest.mark.parametrize("name", ERRORS)
def test_error_classes(name: str) -> None:
    cls = getattr(sfc, name)
    assert issubclass(cls, sfc.SnowflakeError)
    assert cls.status == cls.code == name
    assert issubclass(cls, ValueError) == (name in ("InvalidLayout", "InvalidArgument"))
    assert issubclass(cls, MemoryError) == (name == "OutOfMemory")
    assert cls.__module__ == "snowflake_c"


def test_error_classes_are_the_core_status_table() -> None:
    assert [cls.__name__ for cls in sfc.ERRORS] == ERRORS
    assert all(getattr(sfc, cls.__name__) is cls and cls.__doc__ for cls in sfc.ERRORS)


TWITTER_NODE = {"datacenter": 1, "worker": 1}

CASES: list[tuple[str, Any, type[BaseException]]] = [
    ("unknown preset", lambda: sfc.Layout.preset("nope"), sfc.InvalidLayout),  # type: ignore[arg-type]
    ("bad spec", lambda: sfc.Layout("time:41,worker:10", 0), sfc.InvalidLayout),
    ("bad epoch text", lambda: sfc.Layout("time:41,seq:12", "yesterday"), sfc.InvalidLayout),
    ("future epoch", lambda: sfc.Layout("time:41,seq:12", 2**62), sfc.InvalidLayout),
    ("huge epoch", lambda: sfc.Layout("time:41,seq:12", 2**70), sfc.InvalidLayout),
    ("epoch type", lambda: sfc.Layout("time:41,seq:12", 1.5), TypeError),  # type: ignore[arg-type]
    ("spec type", lambda: sfc.Layout(41, 0), TypeError),  # type: ignore[arg-type]
    ("naive datetime", lambda: sfc.range(__import__("datetime").datetime(2024, 1, 1), 0), sfc.InvalidArgument),
    ("negative id", lambda: sfc.decode(-1, preset="twitter"), sfc.InvalidArgument),
    ("id over 64 bits", lambda: sfc.decode(2**64, preset="twitter"), sfc.InvalidArgument),
    ("id too wide for layout", lambda: sfc.decode(2**63, preset="twitter"), sfc.InvalidArgument),
    ("id text", lambda: sfc.decode("12a", preset="twitter"), sfc.InvalidArgument),
    ("id type", lambda: sfc.decode(1.0, preset="twitter"), TypeError),  # type: ignore[arg-type]
    ("preset and layout", lambda: sfc.decode(1, "time:41,seq:22", preset="twitter"), sfc.InvalidArgument),
    ("spec without epoch", lambda: sfc.decode(1, "time:41,seq:22"), sfc.InvalidArgument),
    ("epoch without spec", lambda: sfc.decode(1, epoch=0), sfc.InvalidArgument),
    ("encode unknown field", lambda: sfc.encode(0, {"nope": 1}, preset="discord"), sfc.InvalidArgument),
    ("encode missing field", lambda: sfc.encode(1462015105796, {"worker": 1}, preset="discord"), sfc.InvalidArgument),
    (
        "encode value too big",
        lambda: sfc.encode(1462015105796, {"worker": 32, "process": 0, "seq": 0}, preset="discord"),
        sfc.InvalidArgument,
    ),
    (
        "encode negative value",
        lambda: sfc.encode(1462015105796, {"worker": -1, "process": 0, "seq": 0}, preset="discord"),
        sfc.InvalidArgument,
    ),
    (
        "encode before epoch",
        lambda: sfc.encode(0, {"worker": 1, "process": 0, "seq": 0}, preset="discord"),
        sfc.InvalidArgument,
    ),
    ("range reversed", lambda: sfc.range(2, 1, preset="twitter"), sfc.InvalidArgument),
    ("node missing", lambda: sfc.Generator(preset="twitter"), sfc.InvalidArgument),
    ("node unknown", lambda: sfc.Generator(preset="twitter", node={**TWITTER_NODE, "x": 1}), sfc.InvalidArgument),
    (
        "node out of range",
        lambda: sfc.Generator(preset="twitter", node={"datacenter": 32, "worker": 1}),
        sfc.InvalidArgument,
    ),
    (
        "node negative",
        lambda: sfc.Generator(preset="twitter", node={"datacenter": -1, "worker": 1}),
        sfc.InvalidArgument,
    ),
    (
        "node text",
        lambda: sfc.Generator(preset="twitter", node={"datacenter": "one", "worker": 1}),
        sfc.InvalidArgument,
    ),
    ("node float", lambda: sfc.Generator(preset="twitter", node={"datacenter": 1.0, "worker": 1}), sfc.InvalidArgument),  # type: ignore[dict-item]
    ("node type", lambda: sfc.Generator(preset="twitter", node={"datacenter": [1], "worker": 1}), TypeError),  # type: ignore[dict-item]
    ("single node, two fields", lambda: sfc.Generator(preset="twitter", node=1), sfc.InvalidArgument),
    ("auto without state_dir", lambda: sfc.Generator(preset="default", node={"worker": "auto"}), sfc.InvalidArgument),
    ("rollback name", lambda: sfc.Generator(preset="default", node=1, rollback="never"), sfc.InvalidArgument),  # type: ignore[arg-type]
    (
        "clock without clock field",
        lambda: sfc.Generator(preset="twitter", node=TWITTER_NODE, rollback="clock"),
        sfc.InvalidArgument,
    ),
    ("negative max_wait", lambda: sfc.Generator(preset="default", node=1, max_wait=-1), sfc.InvalidArgument),
    ("max_wait text", lambda: sfc.Generator(preset="default", node=1, max_wait="soon"), sfc.InvalidArgument),
    ("max_wait type", lambda: sfc.Generator(preset="default", node=1, max_wait=[1]), TypeError),  # type: ignore[arg-type]
    ("time_source", lambda: sfc.Generator(preset="default", node=1, time_source="tsc"), sfc.InvalidArgument),  # type: ignore[arg-type]
    ("positional", lambda: sfc.Generator("twitter"), TypeError),  # type: ignore[call-arg]
    ("unknown option", lambda: sfc.Generator(preset="default", worker=1), sfc.InvalidArgument),  # type: ignore[call-arg]
    # A typo's value of a type no option takes: still the unknown option, named.
    ("unknown option, a dict", lambda: sfc.Generator(preset="default", nodes={"worker": 1}), sfc.InvalidArgument),  # type: ignore[call-arg]
    ("closed", lambda: _closed().stats(), sfc.InvalidArgument),
    ("state_dir is a file", lambda: sfc.Generator(preset="default", node=1, state_dir=__file__), sfc.StateError),
]


def _closed() -> sfc.Generator:
    g = sfc.Generator(**own("default"), node=1)
    g.close()
    return g


@pytest.mark.parametrize(("what", "call", "exc"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises(what: str, call: Any, exc: type[BaseException]) -> None:
    with pytest.raises(exc) as info:
        call()
    assert str(info.value), f"{what}: the message says what was wrong"
    if isinstance(info.value, sfc.SnowflakeError):
        assert info.value.status == type(info.value).__name__


def test_unknown_option_named_whatever_its_value() -> None:
    with pytest.raises(
        sfc.InvalidArgument, match=r"unknown option 'nodes': did you mean node\? \(the options are rollback"
    ):
        sfc.Generator(preset="default", nodes={"worker": 1})  # type: ignore[call-arg]


def test_next_ids_negative() -> None:
    with sfc.Generator(**own("default"), node=1) as g:
        with pytest.raises(sfc.InvalidArgument):
            g.next_ids(-1)
        with pytest.raises(TypeError):
            g.next_ids("3")  # type: ignore[arg-type]
        assert g.next_ids(0) == []


def test_time_exhausted_is_reported_not_wrapped() -> None:
    with sfc.Generator(preset="baidu", node={"worker": 1}) as g, pytest.raises(sfc.TimeExhausted) as info:
        g.next_id()
    assert "baidu" in str(info.value) or "time" in str(info.value)


# A NUL byte is refused with its position, never taken for the end of the text
# (C would read "5" in "5\0x").
@pytest.mark.parametrize(("text", "position"), [("5\0garbage", 1), ("\x00175928847299117063", 0), ("5\0", 1)])
def test_nul_inside_an_id_is_refused(text: str, position: int) -> None:
    with pytest.raises(sfc.InvalidArgument, match=f"NUL byte at position {position}"):
        sfc.decode(text, preset="discord")


TWITTER: dict[str, Any] = {**own("twitter"), "node": {"datacenter": 1, "worker": 3}}


@pytest.mark.parametrize(
    "call",
    [
        lambda: sfc.Layout("time:41@1ms,worker:10,seq:12\0,x:1", 0),
        lambda: sfc.Layout("time:41@1ms,worker:10,seq:12", "2024-01-01\0junk"),
        lambda: sfc.Layout.preset("twitter\0junk"),  # type: ignore[arg-type]
        lambda: sfc.decode(1, preset="discord\0x"),  # type: ignore[arg-type]
        lambda: sfc.range("2024-01-01\0x", "2024-01-02", preset="twitter"),
        lambda: sfc.Generator(preset="twitter", node={"datacenter": "1\0junk", "worker": 3}),
        lambda: sfc.Generator(preset="twitter", node={"datacenter\0x": 1, "worker": 3}),
        lambda: sfc.Generator(**{**TWITTER, "rollback": "wait\0junk"}),
        lambda: sfc.Generator(**{**TWITTER, "time_source": "wall\0junk"}),
        lambda: sfc.Generator(**TWITTER, state_dir="/tmp/x\0y"),
        lambda: sfc.Generator(**TWITTER, state_dir=b"/tmp/x\0y"),
    ],
)
def test_nul_inside_any_text_is_refused(call: Any) -> None:
    with pytest.raises(sfc.InvalidArgument, match="NUL byte at position"):
        call()


def test_nul_inside_a_field_name_names_no_field() -> None:
    parts = sfc.decode(175928847299117063, preset="discord")
    with pytest.raises(KeyError):
        parts["seq\0x"]


# bool is not an int here, as everywhere else in the binding.
@pytest.mark.parametrize(
    "call",
    [
        lambda g: sfc.decode(True, preset="twitter"),
        lambda g: g.next_ids(True),
        lambda g: g.next_ids_at(1704067200000000, True),
        lambda g: g.next_id_at(True),
    ],
)
def test_bool_is_not_an_int(call: Any) -> None:
    with sfc.Generator(**TWITTER) as g, pytest.raises(TypeError, match="bool"):
        call(g)


def test_a_bool_is_no_duration_and_a_number_no_bool() -> None:
    with pytest.raises(sfc.InvalidArgument, match="max_wait"):
        sfc.Generator(**TWITTER, max_wait=True)
    with pytest.raises(sfc.InvalidArgument, match="random_start"):
        sfc.Generator(**TWITTER, random_start=1)  # type: ignore[arg-type]


def test_options_take_any_casing_and_name_it_in_messages() -> None:
    with sfc.Generator(**TWITTER, maxWait=7) as g:  # type: ignore[call-arg]
        assert g.stats()["max_wait_ms"] == 7
    with pytest.raises(sfc.InvalidArgument, match="maxWait"):
        sfc.Generator(**TWITTER, maxWait=-1)  # type: ignore[call-arg]


def test_durations_round_up_to_whole_ms() -> None:
    cases: list[tuple[Any, int]] = [
        (timedelta(microseconds=500), 1),
        (timedelta(microseconds=1), 1),
        (timedelta(milliseconds=1, microseconds=1), 2),
        (timedelta(0), 0),
        (2, 2),
        (2.5, 3),
        ("1.5s", 1500),
    ]
    for given, ms in cases:
        with sfc.Generator(**TWITTER, max_wait=given, max_drift=given) as g:
            assert (g.stats()["max_wait_ms"], g.stats()["max_drift_ms"]) == (ms, ms)
    # 500 µs of state_reserve is 1 ms; 0 is refused (no default hides in it).
    with sfc.Generator(**TWITTER, state_reserve=timedelta(microseconds=500)):
        pass
    bad_cases: list[tuple[str, Any]] = [
        ("max_wait", timedelta(microseconds=-1)),
        ("max_wait", -1),
        ("max_drift", timedelta(days=1, microseconds=1)),
        ("state_reserve", timedelta(hours=1, microseconds=1)),
        ("state_reserve", 3600001),
        ("state_reserve", 0),
    ]
    for option, bad in bad_cases:
        with pytest.raises(sfc.InvalidArgument, match=option):
            sfc.Generator(**TWITTER, **{option: bad})


class ReducesToText(timedelta):
    def __reduce__(self) -> Any:
        return "ReducesToText"


class ReducesToOne(timedelta):
    def __reduce__(self) -> Any:
        return (ReducesToText,)


@pytest.mark.parametrize("cls", [ReducesToText, ReducesToOne])
def test_a_timedelta_is_read_by_its_attributes_not_its_reduce(cls: type[timedelta]) -> None:
    with sfc.Generator(**TWITTER, max_wait=cls(milliseconds=7), max_drift=cls(microseconds=1500)) as g:
        assert (g.stats()["max_wait_ms"], g.stats()["max_drift_ms"]) == (7, 2)


def _odd(attribute: str, value: Any) -> timedelta:
    """A timedelta of 7 ms whose `attribute` says `value`."""
    odd = type("Odd", (timedelta,), {attribute: property(lambda self: value)})
    result: timedelta = odd(milliseconds=7)
    return result


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        ("days", "1"),
        ("days", 1.0),
        ("days", True),
        ("days", None),
        ("days", 10**30),
        ("days", -(10**9)),
        ("seconds", -1),
        ("seconds", 86400),
        ("microseconds", 10**6),
        ("microseconds", -1),
        ("microseconds", [1]),
    ],
)
def test_a_timedelta_with_odd_attributes_is_invalid_argument(attribute: str, value: Any) -> None:
    with pytest.raises(sfc.InvalidArgument, match=f"max_wait: the timedelta's {attribute} must be an int"):
        sfc.Generator(**TWITTER, max_wait=_odd(attribute, value))


def test_a_timedelta_attribute_that_raises_gives_its_exception() -> None:
    def fail(self: timedelta) -> int:
        raise LookupError("no seconds here")

    odd = type("Odd", (timedelta,), {"seconds": property(fail)})
    with pytest.raises(LookupError, match="no seconds here"):
        sfc.Generator(**TWITTER, state_reserve=odd(seconds=1))
