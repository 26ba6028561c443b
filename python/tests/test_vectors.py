"""Every case of every shared vector file (tests/vectors/*.json)."""

from __future__ import annotations

import json
import os
import re
import time
import uuid
import warnings
from contextlib import ExitStack
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import snowflake_c as sfc
from conftest import VECTORS, layout_kwargs

# The runners' generators run with the guard off (tests/vectors/README.md): a
# script's clock is its own, while the guard's claim is the host's and would
# hand it the IDs another generator of the machine left ahead of the wall
# clock. Only claims.json is about the guard: its runner sets the guard as each
# case gives it and expects the warning of an unguarded generator itself.
pytestmark = pytest.mark.filterwarnings("ignore::snowflake_c.UnguardedWarning")
UNGUARDED: dict[str, Any] = {"guard": False}

KINDS = ("layouts", "decode", "encodings", "encode", "range", "generate", "durations", "contract", "claims", "uuid7")


def _kind(path: Path, case: dict[str, Any]) -> str | None:
    for kind in KINDS:
        if path.stem.startswith(kind):
            return kind
    # A file named otherwise: recognise the case by its shape.
    if {"table", "call", "args", "for_ids"} & set(case) or ("option" in case and "value" in case):
        return "contract"
    if "first" in case and "second" in case:
        return "claims"
    if "encoding" in case:
        return "encodings"
    if "uuid" in case or ("text" in case and "message_has" in case):
        return "uuid7"
    if "option" in case and "nanos" in case:
        return "durations"
    if "steps" in case or "options" in case:
        return "generate"
    if "t0_ms" in case:
        return "range"
    if "time_ms" in case:
        return "encode"
    if "id" in case and "layout" in case:
        return "decode"
    if "spec" in case or "preset" in case:
        return "layouts"
    return None


def _cases() -> list[Any]:
    params = []
    files = sorted(p for p in VECTORS.glob("*.json") if p.name != "schema.json")
    assert files, f"no vector files in {VECTORS}"
    for path in files:
        cases = json.loads(path.read_text())
        assert isinstance(cases, list), f"{path.name}: a vector file is an array of cases"
        for i, case in enumerate(cases):
            params.append(pytest.param(path, case, id=f"{path.stem}[{i}] {case.get('description', '')[:60]}"))
    return params


def _raises(kind: str) -> Any:
    cls = getattr(sfc, kind)
    assert issubclass(cls, sfc.SnowflakeError)
    return pytest.raises(cls)


@pytest.mark.parametrize(("path", "case"), _cases())
def test_vector(path: Path, case: dict[str, Any], tmp_path: Path) -> None:
    kind = _kind(path, case)
    assert kind is not None, f"{path.name}: no runner for this case shape: {sorted(case)}"
    if kind == "durations":
        _run_durations(case, tmp_path)
    else:
        globals()[f"_run_{kind}"](case)


def _duration_text(seconds: int, nanos: int) -> str:
    """The duration to the nanosecond as text in seconds ("-0.000000001s"),
    which the binding hands to the core as written."""
    total = seconds * 1_000_000_000 + nanos
    whole, frac = divmod(abs(total), 1_000_000_000)
    return f"{'-' if total < 0 else ''}{whole}.{frac:09d}s"


# state_reserve shows in no stat: it shows in the state file, whose mark a
# generator reserves that far ahead of its clock. On a layout of 1 us ticks
# the mark less the reserve is the tick it was reserved at, which lies
# between a clock reading before the generator was made and one after the
# file was read (the keeper may move the mark on meanwhile, always a reserve
# ahead of the clock).
RESERVE_SPEC, RESERVE_EPOCH = "time:52@1us,worker:1,seq:10", 1704067200000


def _reserve_holds(option: Any, ms: int, tmp: Path) -> None:
    epoch_us = RESERVE_EPOCH * 1000
    before = time.time_ns() // 1000 - epoch_us
    with sfc.Generator(
        layout=RESERVE_SPEC,
        epoch=RESERVE_EPOCH,
        node={"worker": 0},
        state_dir=str(tmp),
        state_reserve=option,
        guard=False,
    ) as g:
        state = (tmp / "worker-0.state").read_text(encoding="ascii")
        after = g.now_us() - epoch_us
    found = re.search(r"^mark (\d+)$", state, re.M)
    assert found, state
    reserved_at = int(found[1]) - ms * 1000
    assert before <= reserved_at <= after, f"a mark {ms} ms ahead of tick {reserved_at}, not within [{before}, {after}]"


def _run_durations(case: dict[str, Any], tmp_path: Path) -> None:
    """The duration as text to the nanosecond and, where it holds it, as a
    timedelta (us resolution); the stats show max_wait and max_drift, the
    state file state_reserve."""
    seconds, nanos = int(case["seconds"]), case["nanos"]
    forms: list[Any] = [_duration_text(seconds, nanos)]
    if nanos % 1000 == 0:
        forms.append(timedelta(seconds=seconds, microseconds=nanos // 1000))
    if seconds == 0 and nanos % 1_000_000 == 0:
        forms.append(nanos // 1_000_000)  # whole milliseconds as an int
    option = case["option"]
    for i, value in enumerate(forms):
        kwargs: dict[str, Any] = {"preset": "twitter", "node": {"datacenter": 0, "worker": 0}, option: value}
        if "error" in case:
            with _raises(case["error"]) as info:
                sfc.Generator(**kwargs, **UNGUARDED)
            assert option in str(info.value)
            continue
        if option == "state_reserve":
            _reserve_holds(value, int(case["ms"]), tmp_path / str(i))
            continue
        with sfc.Generator(**kwargs, **UNGUARDED) as g:
            assert dict(g.stats())[f"{option}_ms"] == int(case["ms"]), value


def _run_layouts(case: dict[str, Any]) -> None:
    def build() -> sfc.Layout:
        if "preset" in case:
            return sfc.Layout.preset(case["preset"])
        return sfc.Layout(case["spec"], case["epoch"])

    if "error" in case:
        with _raises(case["error"]) as info:
            build()
        assert info.value.status == case["error"]
        assert str(info.value), "every error carries a message"
        return
    layout = build()
    want = case["expect"]
    got = {
        "spec": layout.spec,
        "epoch_ms": str(layout.epoch_ms),
        "unit_us": str(layout.unit_us),
        "total_bits": layout.total_bits,
        "fields": [
            {"name": f.name, "kind": f.kind, "bits": f.bits, "shift": f.shift, "max": str(f.max)} for f in layout.fields
        ],
        "ids_per_second": layout.ids_per_second,
        "node_capacity": layout.node_capacity,
        "time_end_ms": str(layout.time_end_ms),
        "time_end": layout.time_end,
        "max_id": str(layout.max_id),
    }
    assert {k: got[k] for k in want} == want
    # The canonical spec parses back to the same layout.
    assert sfc.Layout(layout.spec, layout.epoch_ms) == layout


def _run_decode(case: dict[str, Any]) -> None:
    kw = layout_kwargs(case["layout"])
    if "error" in case:
        with _raises(case["error"]):
            sfc.decode(case["id"], **kw)
        if case["id"].isdigit():
            with _raises(case["error"]):
                sfc.decode(int(case["id"]), **kw)
        return
    parts = sfc.decode(case["id"], **kw)
    assert parts.to_json() == case["json"]
    assert parts.id == int(case["id"])
    assert parts.fields == {k: int(v) for k, v in case["fields"].items()}
    assert list(parts.fields) == list(case["fields"]), "fields in layout order"
    doc = json.loads(case["json"])
    assert parts.time_ms == doc["time_ms"]
    assert parts.time.isoformat(timespec="milliseconds").replace("+00:00", "Z") == doc["time"]
    # as_dict(): the canonical JSON's keys and values, in its order, the ID an int.
    assert list(parts.as_dict().items()) == list({**doc, "id": parts.id}.items())
    assert int(parts) == parts.id
    assert sfc.decode(int(case["id"]), **kw) == parts
    # A passing decode case encodes back to its ID (the datetime keeps the
    # microseconds of sub-millisecond ticks).
    assert sfc.encode(parts.time, parts.fields, **kw) == parts.id


def _run_encode(case: dict[str, Any]) -> None:
    kw = layout_kwargs(case["layout"])
    fields = {k: int(v) for k, v in case["fields"].items()}
    if "error" in case:
        with _raises(case["error"]):
            sfc.encode(int(case["time_ms"]), fields, **kw)
        return
    assert sfc.encode(int(case["time_ms"]), fields, **kw) == int(case["id"])


def _run_uuid7(case: dict[str, Any]) -> None:
    if "error" in case:
        with _raises(case["error"]) as info:
            sfc.decode_uuid7(case["text"])
        for part in case["message_has"]:
            assert part in str(info.value)
        return
    u = sfc.decode_uuid7(case["text"])
    assert (u.uuid, u.unix_ms, u.rand_a, u.rand_b) == (
        case["uuid"],
        int(case["time_ms"]),
        case["rand_a"],
        int(case["rand_b"]),
    )
    assert u.to_json() == case["json"]
    assert sfc.format_time(u.unix_ms) == case["time"]
    if u.unix_ms < 253402300800000:  # datetime holds years up to 9999
        assert u.time == datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=int(case["time_ms"]))
    else:
        with pytest.raises(OverflowError):
            u.time  # noqa: B018
    # A uuid.UUID is taken as its text, and decodes the same.
    assert sfc.decode_uuid7(uuid.UUID(case["text"])) == u


FULL_64_BITS = sfc.Layout("time:52@1ms,seq:12", 0)


def _run_encodings(case: dict[str, Any]) -> None:
    encoding = case["encoding"]
    if "error" in case:
        with _raises(case["error"]) as info:
            if "text" in case:
                sfc.parse_id(case["text"], encoding)
            else:
                sfc.format_id(int(case["id"]), encoding)
        for part in case["message_has"]:
            assert part in str(info.value)
        return
    ident = int(case["id"])
    if "text" in case:
        assert sfc.parse_id(case["text"], encoding) == ident
        # decode() takes the same text when told its encoding (a layout
        # of all 64 bits holds every ID).
        assert sfc.decode(case["text"], FULL_64_BITS, encoding=encoding).id == ident
        return
    assert sfc.format_id(ident, encoding) == case["default"]
    assert sfc.format_id(ident, encoding, pad=None) == case["default"]
    assert sfc.format_id(ident, encoding, pad=True) == case["fixed"]
    assert sfc.format_id(ident, encoding, pad=False) == case["shortest"]
    assert sfc.format_id(case["id"], encoding) == case["default"], "a decimal str ID formats the same"
    assert sfc.format_id(case["id"], encoding, pad=True) == case["fixed"]
    assert sfc.parse_id(case["fixed"], encoding) == ident
    assert sfc.parse_id(case["shortest"], encoding) == ident


def _run_range(case: dict[str, Any]) -> None:
    kw = layout_kwargs(case["layout"])
    t0, t1 = int(case["t0_ms"]), int(case["t1_ms"])
    if "error" in case:
        with _raises(case["error"]):
            sfc.range(t0, t1, **kw)
        return
    assert sfc.range(t0, t1, **kw) == (int(case["min"]), int(case["max"]))


OPTION_KEYWORDS = {
    "node": "node",
    "rollback": "rollback",
    "max_wait_ms": "max_wait",
    "max_drift_ms": "max_drift",
    "random_start": "random_start",
}


def _run_generate(case: dict[str, Any]) -> None:
    unknown = set(case["options"]) - set(OPTION_KEYWORDS)
    assert not unknown, f"options this runner does not know: {unknown}"
    kw = layout_kwargs(case["layout"])
    kw.update({OPTION_KEYWORDS[k]: v for k, v in case["options"].items()}, **UNGUARDED)
    if "error" in case:
        with _raises(case["error"]):
            sfc.Generator(**kw)
        return
    with sfc.Generator(**kw) as g:
        for index, step in enumerate(case["steps"]):
            _run_step(g, index, step)


def _run_step(g: sfc.Generator, index: int, step: dict[str, Any]) -> None:
    now = int(step["now_us"])
    want = step["expect"]
    where = f"step {index}: {step}"
    if step["call"] == "next":
        if "error" in want:
            with _raises(want["error"]):
                g.next_id_at(now)
            return
        ident, wait = g.next_id_at(now)
        if "id" in want:
            assert (ident, wait) == (int(want["id"]), 0), where
        else:
            assert (ident, wait) == (None, int(want["wait_us"])), where
        return
    assert step["call"] == "next_ids", where
    if "error" in want:
        with _raises(want["error"]) as info:
            g.next_ids_at(now, step["n"])
        assert [str(i) for i in info.value.ids] == want["ids"], where
        return
    ids, wait = g.next_ids_at(now, step["n"])
    assert [str(i) for i in ids] == want["ids"], where
    assert wait == int(want.get("wait_us", 0)), where


# --- claims.json: two live generators of this process and the guard's claim ----


def _run_claims(case: dict[str, Any]) -> None:
    """`first` starts, then `second` starts or is refused with WorkerUnavailable
    by the host-wide claim `first` holds; then `first` issues, or (the same
    generator again took its value over) says it is closed; both are closed,
    second first."""
    # conftest's autouse fixture clears every SNOWFLAKE_* variable before each case.
    assert not [name for name in os.environ if name.startswith("SNOWFLAKE_")]
    with ExitStack() as started:  # closes what started, last first, whatever happens
        first = _start_claim_side(started, case["first"])
        if case["second_starts"]:
            _start_claim_side(started, case["second"])
        else:
            with _raises("WorkerUnavailable") as info:
                _start_claim_side(started, case["second"])
            assert info.value.status == "WorkerUnavailable"
            message = str(info.value)
            for part in [*case["message"], f"live process {os.getpid()}"]:
                assert part in message, f"{part!r} not in: {message}"
        if not case["first_closed"]:
            first.next_id()
            return
        with _raises("InvalidArgument") as closed:
            first.next_id()
        for part in case["closed_message"]:
            assert part in str(closed.value), f"{part!r} not in: {closed.value}"


def _start_claim_side(started: ExitStack, side: dict[str, Any]) -> sfc.Generator:
    """Creates one side's generator (layout, node values and guard as given) into
    `started`; it must start, its stats' guard "held: ..." when guarded, else "off"."""
    kwargs = {**layout_kwargs(side["layout"]), "node": side["node"], "guard": side["guard"]}
    if side["guard"]:
        with warnings.catch_warnings():
            warnings.simplefilter("error", sfc.UnguardedWarning)  # a guarded generator does not warn
            g = started.enter_context(sfc.Generator(**kwargs))
    else:
        with pytest.warns(sfc.UnguardedWarning, match="is not guarded"):
            g = started.enter_context(sfc.Generator(**kwargs))
    guard = g.stats()["guard"]
    if side["guard"]:
        assert guard.startswith("held: "), f"stats' guard: {guard!r}"
    else:
        assert guard == "off", f"stats' guard: {guard!r}"
    return g


# --- contract.json: the binding contract, walked from the core's tables ----

CONTRACT_NODE = {"datacenter": 1, "worker": 1}


def _same(got: Any, want: Any) -> bool:
    """A stats or describe value against the vector's (ms values as decimal strings)."""
    if isinstance(want, str) and isinstance(got, int) and not isinstance(got, bool):
        return str(got) == want
    return bool(got == want)


def _run_contract(case: dict[str, Any]) -> None:
    if "table" in case:
        assert _table(case["table"]) == case["names"]
        return
    if "for_ids" in case:
        _run_for_ids(case)
        return
    if "call" in case:
        g = sfc.Generator(preset="twitter", node=CONTRACT_NODE, **UNGUARDED)
        g.close()
        calls = {"next_id": g.next_id, "next_ids": lambda: g.next_ids(10), "stats": g.stats, "close": g.close}
        if "error" in case:
            with _raises(case["error"]) as info:
                calls[case["call"]]()
            assert "closed" in str(info.value)
        else:
            calls[case["call"]]()
        return
    if "option" in case:
        kwargs: dict[str, Any] = {"preset": "twitter", "node": CONTRACT_NODE, **UNGUARDED}
        kwargs[case["option"]] = case["value"]
    else:
        kwargs = {**case["args"], "node": case["node"], "guard": case.get("guard", False)}
        ref = kwargs.pop("layout_object", None)
        if ref is not None:  # the Layout object is made first, then given as the layout
            held = sfc.Layout.preset(ref["preset"]) if "preset" in ref else sfc.Layout(ref["spec"], ref["epoch"])
            kwargs["layout"] = held
    if "warnings" in case:
        _run_warnings(case, kwargs)
        return
    if "error" in case:
        with _raises(case["error"]) as info:
            sfc.Generator(**kwargs)
        if "option" in case:
            assert case["option"] in str(info.value), "the message names the option as given"
        said = case.get("message_in_terms", {}).get("snake")
        if said is not None:  # Python names the options as the core does: state_dir
            assert said in str(info.value), f"{said!r} not in: {info.value}"
        return
    with sfc.Generator(**kwargs) as g:
        got: dict[str, Any] = dict(g.layout.describe()) if "describe" in case else dict(g.stats())
        want = case.get("describe", case.get("stats"))
        assert want is not None
        for key, value in want.items():
            assert _same(got[key], value), f"{key}: {got[key]!r} != {value!r}"


def _run_warnings(case: dict[str, Any], kwargs: dict[str, Any]) -> None:
    """What the generator's creation says: one warning of the category
    <kind>Warning per warning of the case, in order, each text holding its
    message_has. Every warning is recorded, whatever was said before."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        sfc.Generator(**kwargs).close()
    got = [(w.category.__name__, str(w.message)) for w in said]
    want = case["warnings"]
    assert [name for name, _ in got] == [f"{w['kind']}Warning" for w in want], got
    for (name, text), w in zip(got, want, strict=True):
        assert issubclass(getattr(sfc, name), UserWarning), name
        for part in w["message_has"]:
            assert part in text, f"{part!r} not in {name}: {text}"


# decode, encode and range of IDs made elsewhere, with no layout named.
FOR_IDS: dict[str, Any] = {
    "decode": lambda c: sfc.decode(c["id"]),
    "encode": lambda c: sfc.encode(int(c["time_ms"]), {k: int(v) for k, v in c["fields"].items()}),
    "range": lambda c: sfc.range(int(c["t0_ms"]), int(c["t1_ms"])),
}


def _run_for_ids(case: dict[str, Any]) -> None:
    with _raises(case["error"]) as info:
        FOR_IDS[case["for_ids"]](case)
    assert str(info.value) == case["message"], "the core's message, word for word"


def _table(name: str) -> list[str]:
    """The names this binding gets by walking the core's tables."""
    layout = sfc.Layout.preset("twitter")
    if name == "options":
        return sfc.options()
    if name == "errors":
        return [cls.__name__ for cls in sfc.ERRORS]
    if name == "describe":
        return list(layout.describe())
    if name == "fields":
        return list(layout.describe()["fields"][0])
    assert name == "stats", name
    with sfc.Generator(preset="twitter", node=CONTRACT_NODE, **UNGUARDED) as g:
        return list(g.stats())
