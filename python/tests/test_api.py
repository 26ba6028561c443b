"""The Python API: layouts, decode/encode/range, generators, buffers."""

from __future__ import annotations

import json
import operator
import pickle
import time
import uuid
from array import array
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import snowflake_c as sfc
from conftest import OWN_EPOCH, own

DISCORD_ID = 175928847299117063
DISCORD_JSON = (
    '{"id":"175928847299117063","time_ms":1462015105796,"time":"2016-04-30T11:18:25.796Z",'
    '"worker":1,"process":0,"seq":7}'
)


def test_decode_discord_docs_example() -> None:
    parts = sfc.decode(DISCORD_ID, preset="discord")
    assert parts.id == DISCORD_ID
    assert parts.time_ms == 1462015105796
    assert parts.time == datetime(2016, 4, 30, 11, 18, 25, 796000, tzinfo=timezone.utc)
    assert parts.time.tzinfo is not None
    assert parts.fields == {"worker": 1, "process": 0, "seq": 7}
    assert parts["process"] == 0
    assert parts.to_json() == DISCORD_JSON
    assert DISCORD_JSON in repr(parts)
    with pytest.raises(KeyError):
        parts["nope"]


def test_decode_accepts_layout_object_spec_and_string_ids() -> None:
    layout = sfc.Layout("time:42@1ms,worker:5,process:5,seq:12", "2015-01-01T00:00:00Z")
    assert layout == sfc.Layout.preset("discord")
    assert sfc.decode(DISCORD_ID, layout).to_json() == DISCORD_JSON
    assert sfc.decode(str(DISCORD_ID), layout=layout.spec, epoch=1420070400000).to_json() == DISCORD_JSON
    spec_epoch_dt = datetime(2015, 1, 1, tzinfo=timezone.utc)
    assert sfc.decode(DISCORD_ID, layout=layout.spec, epoch=spec_epoch_dt) == sfc.decode(DISCORD_ID, layout)


def test_parts_keep_the_layout_given_and_read_every_field() -> None:
    layout = sfc.Layout.preset("twitter")
    ident = sfc.encode(1700000000123, {"datacenter": 31, "worker": 2, "seq": 4095}, layout=layout)
    parts = sfc.decode(ident, layout)
    assert parts.layout is layout
    assert (parts.id, parts.time_ms, parts.time_us) == (ident, 1700000000123, 1700000000123000)
    assert parts.fields == {"datacenter": 31, "worker": 2, "seq": 4095}
    assert [parts[name] for name in ("datacenter", "worker", "seq")] == [31, 2, 4095]
    assert parts["time"] == (1700000000123 - layout.epoch_ms)  # the raw tick count
    assert pickle.loads(pickle.dumps(parts)) == parts
    assert parts != sfc.decode(ident + 1, layout) and parts != sfc.decode(ident, preset="default")
    with pytest.raises(AttributeError):
        parts.id = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        sfc.Parts()


def test_parts_hash_as_they_compare() -> None:
    preset = sfc.Layout.preset("discord")
    same = sfc.Layout(preset.spec, preset.epoch_ms)  # equal, another object
    a, b = sfc.decode(DISCORD_ID, preset), sfc.decode(DISCORD_ID, same)
    assert a == b and hash(a) == hash(b)
    assert len({a, b, sfc.decode(DISCORD_ID + 1, preset)}) == 2
    assert {a: "seen"}[b] == "seen"
    other = sfc.decode(DISCORD_ID, preset="twitter")  # same ID, another layout
    assert other != a and len({a, other}) == 2
    assert hash(pickle.loads(pickle.dumps(a))) == hash(a)


def test_parts_order_by_id_within_one_layout() -> None:
    layout = sfc.Layout.preset("twitter")
    ids = [
        sfc.encode(1700000000000 + i % 3, {"datacenter": 1, "worker": i % 5, "seq": i}, layout=layout)
        for i in range(30)
    ]
    parts = [sfc.decode(i, layout) for i in ids]
    assert [p.id for p in sorted(parts)] == sorted(ids)
    assert [p.id for p in sorted(parts, reverse=True)] == sorted(ids, reverse=True)
    assert min(parts).id == min(ids) and max(parts).id == max(ids)
    lo, hi = sfc.decode(min(ids), layout), sfc.decode(max(ids), sfc.Layout(layout.spec, layout.epoch_ms))
    assert lo < hi and lo <= hi and hi > lo and hi >= lo and lo <= lo and lo >= lo
    assert not (lo > hi or lo >= hi or hi < lo or hi <= lo or lo < lo or lo > lo)
    # IDs sort by time first: so do the Parts of one layout.
    assert [p.time_ms for p in sorted(parts)] == sorted(p.time_ms for p in parts)


def test_parts_of_different_layouts_do_not_order() -> None:
    twitter = sfc.decode(DISCORD_ID, preset="twitter")
    discord = sfc.decode(DISCORD_ID, preset="discord")
    for compare in (operator.lt, operator.le, operator.gt, operator.ge):
        with pytest.raises(TypeError, match=r"cannot order Parts of different layouts .*twitter.*discord"):
            compare(twitter, discord)
    # Nor with anything but a Parts: Python's own TypeError.
    with pytest.raises(TypeError, match="not supported"):
        sorted([twitter, discord.id])  # type: ignore[type-var]
    with pytest.raises(TypeError, match="not supported"):
        _ = twitter < 5  # type: ignore[operator]


def test_int_of_parts_is_the_id_and_nothing_more() -> None:
    parts = sfc.decode(DISCORD_ID, preset="discord")
    assert int(parts) == DISCORD_ID and type(int(parts)) is int
    # Not an integer otherwise: no __index__, so no list index, hex() or slice.
    assert not hasattr(parts, "__index__")
    with pytest.raises(TypeError):
        [0, 1][parts]  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        hex(parts)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        operator.index(parts)  # type: ignore[arg-type]
    # The widest IDs too: all 64 bits.
    full = sfc.decode(2**64 - 1, layout="time:40@1ms,worker:12,seq:12", epoch=0)
    assert int(full) == 2**64 - 1


def test_parts_serialise_through_to_json_and_as_dict() -> None:
    parts = sfc.decode(DISCORD_ID, preset="discord")
    as_dict = parts.as_dict()
    assert as_dict == {
        "id": DISCORD_ID,
        "time_ms": 1462015105796,
        "time": "2016-04-30T11:18:25.796Z",
        "worker": 1,
        "process": 0,
        "seq": 7,
    }
    assert list(as_dict) == list(json.loads(parts.to_json()))  # the canonical order
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert json.dumps(as_dict, separators=(",", ":")) == DISCORD_JSON.replace(f'"{DISCORD_ID}"', str(DISCORD_ID))
    as_dict["seq"] = 8  # a fresh dict each call
    assert parts.as_dict()["seq"] == 7
    # json.dumps() cannot write a Parts itself (Python has no hook for it): the
    # documented ways are to_json() and as_dict().
    with pytest.raises(TypeError, match="Parts is not JSON serializable"):
        json.dumps(parts)
    assert "to_json()" in (sfc.Parts.__doc__ or "") and "as_dict()" in (sfc.Parts.__doc__ or "")


def test_core_types_are_made_by_the_package_only() -> None:
    from snowflake_c import _snowflake_c

    # A core object made directly would have no core handle behind it.
    for core_type in (_snowflake_c.CoreLayout, _snowflake_c.CoreParts, _snowflake_c.CoreGenerator):
        with pytest.raises(TypeError):
            core_type()
    with pytest.raises(TypeError):
        object.__new__(sfc.Parts)


def test_public_classes_own_their_core_methods() -> None:
    """CPython's fast path for a method call takes only methods of the object's own type."""
    from snowflake_c import _snowflake_c

    for cls, core in ((sfc.Layout, _snowflake_c.CoreLayout), (sfc.Parts, _snowflake_c.CoreParts)):
        for name, method in vars(core).items():
            if callable(method) and not name.startswith("__"):
                assert vars(cls)[name].__objclass__ is cls, name
    assert vars(sfc.Generator)["next_id"].__objclass__ is sfc.Generator
    assert vars(sfc.Generator)["__enter__"].__module__ == "snowflake_c._generator"


def test_a_layout_ending_within_ten_years_warns_at_creation() -> None:
    # 2^28 s is 8.5 years: from an epoch a year ago, the layout ends in 7.5.
    epoch = (int(time.time()) - 365 * 86400) * 1000
    with pytest.warns(sfc.LayoutEndingWarning, match=r"runs out on .* in 7\.5 years") as record:
        gen = sfc.Generator(layout="time:28@1s,worker:4,seq:13", epoch=epoch, node={"worker": 11})
    gen.close()
    assert [w.category for w in record] == [sfc.LayoutEndingWarning]
    assert issubclass(sfc.LayoutEndingWarning, UserWarning)


def test_no_layout_is_assumed_for_ids_made_elsewhere() -> None:
    # A Discord ID read under the default preset would give a believable
    # year and worker: decode, encode and range name their layout.
    for call in (
        lambda: sfc.decode(175928847299117063),
        lambda: sfc.encode(0, {"worker": 1}),
        lambda: sfc.range(0, 1000),
    ):
        with pytest.raises(sfc.InvalidArgument, match="no layout given"):
            call()
    assert sfc.decode(175928847299117063, preset="discord")["process"] == 0
    with sfc.Generator(node={"worker": 1}) as gen:  # a generator's own: the default preset
        assert gen.layout == sfc.Layout.preset("default")


def test_decode_uuid7() -> None:
    """A UUIDv7 from a str or a uuid.UUID: its parts typed, its time aware
    UTC, the core's JSON; a UUID of another version, or not a str, refused."""
    u = sfc.decode_uuid7("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")
    assert isinstance(u, sfc.Uuid7)
    assert u.uuid == "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"
    assert u.time == datetime(2022, 2, 22, 19, 22, 22, tzinfo=timezone.utc)
    assert (u.unix_ms, u.rand_a, u.rand_b) == (1645557742000, 0xCC3, 0x18C4DC0C0C07398F)
    assert json.loads(u.to_json())["time"] == "2022-02-22T19:22:22.000Z"
    assert sfc.decode_uuid7(uuid.UUID(int=int(u.uuid.replace("-", ""), 16))) == u
    assert "_json" not in repr(u)
    with pytest.raises(sfc.InvalidArgument, match="is a version 4 UUID, not 7"):
        sfc.decode_uuid7(uuid.uuid4())
    with pytest.raises(TypeError, match="uuid must be a str or a uuid.UUID"):
        sfc.decode_uuid7(1645557742000)  # type: ignore[arg-type]


def test_encode_is_the_inverse_of_decode() -> None:
    parts = sfc.decode(DISCORD_ID, preset="discord")
    assert sfc.encode(parts.time_ms, parts.fields, preset="discord") == DISCORD_ID
    assert sfc.encode(parts.time, parts.fields, preset="discord") == DISCORD_ID
    assert sfc.encode("2016-04-30T11:18:25.796Z", parts.fields, preset="discord") == DISCORD_ID


def test_range_brackets_ids_of_the_interval() -> None:
    lo, hi = sfc.range(1462015105796, 1462015105797, preset="discord")
    assert lo <= DISCORD_ID <= hi
    # Half-open: the next millisecond's window starts right after this one.
    assert sfc.range(1462015105797, 1462015105798, preset="discord")[0] == hi + 1
    with pytest.raises(sfc.InvalidArgument):
        sfc.range(1462015105796, 1462015105796, preset="discord")
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert sfc.range(start, start + timedelta(days=1), preset="twitter") == sfc.range(
        "2024-01-01", "2024-01-02", preset="twitter"
    )


def test_layout_describes_itself() -> None:
    layout = sfc.Layout("time:41@1ms,worker:10,seq:12", 1704067200000)
    assert layout.spec == "time:41@1ms,worker:10,seq:12"
    assert layout.name is None
    assert layout.epoch == datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert layout.unit_us == 1000
    assert layout.total_bits == 63
    assert [f.name for f in layout.fields] == ["time", "worker", "seq"]
    assert layout.fields[1] == ("worker", "node", 10, 12, 1023)
    assert layout.node_fields == ("worker",)
    assert layout.ids_per_second == 4_096_000
    assert layout.node_capacity == 1024
    assert layout.max_id == 2**63 - 1
    assert layout.time_end.endswith("Z")
    doc = layout.describe()
    assert doc["spec"] == layout.spec and doc["fields"][2]["max"] == 4095
    json.dumps(doc)
    assert str(layout) == layout.spec
    assert eval(repr(layout), {"Layout": sfc.Layout}) == layout
    assert hash(layout) == hash(sfc.Layout(layout.spec, layout.epoch_ms))
    assert pickle.loads(pickle.dumps(layout)) == layout
    preset = sfc.Layout.preset("twitter")
    assert pickle.loads(pickle.dumps(preset)).name == "twitter"


def test_presets_lists_every_preset() -> None:
    presets = sfc.presets()
    assert list(presets) == ["default", "twitter", "discord", "sonyflake", "baidu", "instagram", "jssafe"]
    assert presets["sonyflake"].spec == "time:39@10ms,seq:8,machine:16"
    assert all(layout.name == name for name, layout in presets.items())


def test_generator_issues_increasing_unique_ids() -> None:
    with sfc.Generator(**own("twitter"), node={"datacenter": 1, "worker": 3}) as g:
        ids = [g.next_id() for _ in range(10_000)] + g.next_ids(10_000)
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        parts = sfc.decode(ids[-1], g.layout)
        assert parts.fields["datacenter"] == 1 and parts.fields["worker"] == 3
        assert g.node == {"datacenter": 1, "worker": 3}
        stats = g.stats()
        assert stats["ids_issued"] == 20_000
        assert stats["node_sources"] == {"datacenter": "explicit", "worker": "explicit"}
    assert g.closed
    with pytest.raises(sfc.InvalidArgument, match="closed"):
        g.next_id()
    with pytest.raises(sfc.InvalidArgument, match="closed"):
        with g:
            pass
    g.close()  # idempotent


def test_single_node_value_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    with sfc.Generator(layout="time:41@1ms,worker:10,seq:12", epoch=OWN_EPOCH, node=7) as g:
        assert g.node == {"worker": 7}
    monkeypatch.setenv("SNOWFLAKE_WORKER", "9")
    with sfc.Generator(layout="time:41@1ms,worker:10,seq:12", epoch=OWN_EPOCH) as g:
        assert g.node == {"worker": 9}
        assert g.stats()["node_sources"] == {"worker": "env"}


def test_options_are_passed_to_the_core() -> None:
    with sfc.Generator(
        **own("default"),
        node={"worker": 1},
        rollback="borrow",
        max_wait=timedelta(milliseconds=20),
        max_drift=50,
        random_start=True,
        time_source="monotonic",
    ) as g:
        stats = g.stats()
        assert (stats["rollback"], stats["max_wait_ms"], stats["max_drift_ms"]) == ("borrow", 20, 50)
        assert g.next_ids(3)
        assert abs(g.now_us() / 1000 - datetime.now(timezone.utc).timestamp() * 1000) < 5000


@pytest.mark.parametrize("typecode", ["Q", "L", "q"])
def test_fill_array(typecode: str) -> None:
    if array(typecode).itemsize != 8:
        pytest.skip(f"array({typecode!r}) is not 64-bit here")
    buf = array(typecode, [0]) * 5000
    with sfc.Generator(**own("default"), node={"worker": 2}) as g:
        assert g.fill(buf) == 5000
        assert list(buf) == sorted(buf) and len(set(buf)) == 5000
        assert sfc.decode(buf[0], g.layout).fields["worker"] == 2
        assert g.next_id() > buf[-1]


def test_fill_bytearray_and_unaligned_memoryview() -> None:
    raw = bytearray(8 * 101)
    with sfc.Generator(**own("default"), node={"worker": 2}) as g:
        assert g.fill(memoryview(raw)[8:]) == 100
        ids = array("Q", bytes(raw[8:]))
        assert list(ids) == sorted(ids) and len(set(ids)) == 100 and raw[:8] == bytes(8)
        odd = bytearray(8 * 10 + 1)
        assert g.fill(memoryview(odd)[1:]) == 10
        assert len(set(array("Q", bytes(odd[1:])))) == 10


def test_fill_numpy() -> None:
    np = pytest.importorskip("numpy")
    a = np.zeros(100_000, dtype=np.uint64)
    with sfc.Generator(**own("default"), node={"worker": 2}) as g:
        assert g.fill(a) == a.size
    assert (np.diff(a.astype(np.int64)) > 0).all()
    signed = np.zeros(10, dtype=np.int64)
    with sfc.Generator(**own("default"), node={"worker": 3}) as g:
        assert g.fill(signed) == 10 and (signed > 0).all()


def test_fill_rejects_wrong_buffers() -> None:
    with sfc.Generator(**own("default"), node={"worker": 2}) as g:
        with pytest.raises(TypeError):
            g.fill(array("d", [0.0]))
        with pytest.raises(TypeError):
            g.fill(array("I", [0]))
        with pytest.raises(BufferError):
            g.fill(b"\0" * 8)  # read-only
        with pytest.raises(sfc.InvalidArgument):
            g.fill(bytearray(7))
    with sfc.Generator(layout="time:41@1ms,worker:11,seq:12", epoch=OWN_EPOCH, node=1) as g:
        with pytest.raises(sfc.InvalidArgument, match="signed"):
            g.fill(array("q", [0]))


def test_deterministic_entry() -> None:
    with sfc.Generator(**own("default"), node={"worker": 5}) as g:
        now = OWN_EPOCH * 1000 + 1000
        first, wait = g.next_id_at(now)
        assert first is not None and wait == 0
        ids, wait = g.next_ids_at(now, 5000)
        assert len(ids) == 4095 and wait > 0 and ids[0] == first + 1
        assert g.next_id_at(now) == (None, wait)
        assert g.next_ids_at(now + 1000, 0) == ([], 0)


def test_batches_are_the_core_types_own() -> None:
    """next_ids() and next_ids_at() make their lists in C, straight from the
    core's buffer: the core type's methods, adopted, with no Python frame
    or copy between the caller and the core."""
    for name in ("next_ids", "next_ids_at"):
        assert type(vars(sfc.Generator)[name]) is type(sfc.Generator.next_id), name


# A batch of up to 1024 IDs is issued into the stack, a larger one into memory of its own.
@pytest.mark.parametrize("n", [1000, 3000])
def test_a_batch_that_fails_or_waits_gives_the_ids_it_issued(n: int) -> None:
    epoch = 1704067200000
    # Ticks 0..15 of 512 IDs: at tick 15, borrowing ahead runs into the end of the time field.
    layout = "time:4@1ms,worker:2,seq:9"
    with (
        pytest.warns(sfc.LayoutEndingWarning),
        sfc.Generator(layout=layout, epoch=epoch, node=1, rollback="borrow", max_drift=2) as g,
    ):
        last = epoch * 1000 + 15_000
        first = (15 << 11) | (1 << 9)
        with pytest.raises(sfc.TimeExhausted) as info:
            g.next_ids_at(last, n)
        assert info.value.ids == list(range(first, first + 512))
        with pytest.raises(sfc.TimeExhausted) as info:
            g.next_ids_at(last, n)
        assert info.value.ids == []
    with pytest.warns(sfc.LayoutEndingWarning), sfc.Generator(layout=layout, epoch=epoch, node=2) as g:
        ids, wait = g.next_ids_at(epoch * 1000 + 14_000, n)
        assert ids == list(range((14 << 11) | (2 << 9), (14 << 11) | (3 << 9))) and wait > 0


def test_generator_cannot_be_pickled() -> None:
    with sfc.Generator(**own("default"), node={"worker": 5}) as g, pytest.raises(TypeError, match="auto"):
        pickle.dumps(g)


def test_format_time_and_versions() -> None:
    assert sfc.format_time(1462015105796) == "2016-04-30T11:18:25.796Z"
    assert sfc.format_time(datetime(2024, 1, 1, tzinfo=timezone.utc)) == "2024-01-01T00:00:00.000Z"
    assert sfc.__version__ == sfc.CORE_VERSION
    from importlib.metadata import version

    assert version("snowflake-c") == sfc.__version__


def test_package_docstring_examples() -> None:
    import doctest

    failures, tried = doctest.testmod(sfc, verbose=False)
    assert tried >= 3 and failures == 0


def test_the_typed_shapes_name_the_core_tables() -> None:
    """The types for checkers (snowflake_c._types, Field) name exactly what the runtime walks."""
    from snowflake_c import _types

    layout = sfc.Layout.preset("twitter")
    described = layout.describe()
    assert list(_types.LayoutDescription.__annotations__) == list(described)
    assert list(_types.FieldDescription.__annotations__) == list(described["fields"][0]) == list(sfc.Field._fields)
    assert list(_types.GeneratorOptions.__annotations__) == sfc.options()
    with sfc.Generator(**own("twitter"), node={"datacenter": 1, "worker": 2}) as g:
        assert list(_types.Stats.__annotations__) == [*g.stats(), "lease"]  # "lease": a leased value's only
    assert _types.Stats.__optional_keys__ == {"lease"}


def test_a_path_object_is_taken_as_file_system_bytes(tmp_path: Path) -> None:
    with sfc.Generator(preset="default", node={"worker": "auto"}, state_dir=tmp_path) as g:
        assert g.stats()["node_sources"] == {"worker": "pool"}


def test_adopt_refuses_a_subclass_that_overrides_a_core_method() -> None:
    from snowflake_c import _types
    from snowflake_c._adopt import adopt

    class Shadow(sfc.Layout):
        __slots__ = ()

        def _describe(self) -> _types.LayoutDescription:  # a C method of the core type
            return super()._describe()

    with pytest.raises(TypeError, match="_describe"):
        adopt(Shadow)
