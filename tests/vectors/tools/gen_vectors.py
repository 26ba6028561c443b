#!/usr/bin/env python3
"""Regenerates the shared test vectors in tests/vectors/*.json.

This is an independent reference model of the behaviour the public header
(core/include/snowflake_c.h) describes, written in plain Python (standard library only) so that the
expected values in the vectors never come from the C core they check. It
imports nothing from the project.

    python3 tests/vectors/tools/gen_vectors.py          # rewrite the files
    python3 tests/vectors/tools/gen_vectors.py --check  # fail if they differ

The cases themselves (inputs and, for errors, the expected kind) are listed
below by hand; the model computes every expected ID, time, JSON line,
wait and string form, and what each refusal's message names. Cases that
reproduce IDs or texts published by other systems assert the documented
values here as well, so a model error cannot silently rewrite them.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import sys
from pathlib import Path

VECTORS = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------

PRESETS = {
    "default": ("time:41@1ms,clock:3,worker:7,seq:12", 1704067200000),
    "twitter": ("time:41@1ms,datacenter:5,worker:5,seq:12", 1288834974657),
    "discord": ("time:42@1ms,worker:5,process:5,seq:12", 1420070400000),
    "sonyflake": ("time:39@10ms,seq:8,machine:16", 1409529600000),
    "baidu": ("time:28@1s,worker:22,seq:13", 1463673600000),
    "instagram": ("time:41@1ms,shard:13,seq:10", 1314220021721),
    "jssafe": ("time:41@1ms,worker:5,seq:7", 1704067200000),
}

# "now" for the "epoch in the future" rule: any epoch after this instant is
# in the future for as long as these vectors live.
FAR_FUTURE_MS = 7258118400000  # 2200-01-01T00:00:00Z

NAME_RE = re.compile(r"[a-z][a-z0-9_]*\Z")
BITS_RE = re.compile(r"[0-9]+\Z")
UNIT_RE = re.compile(r"([0-9]+)(us|ms|s)\Z")
ISO_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?Z)?\Z")
MAX_YEAR_MS = 9214646400000000  # 294000-01-01, the header's upper bound


class Fail(Exception):
    """An error of a given kind (InvalidLayout, InvalidArgument, ...)."""

    def __init__(self, kind: str, why: str = ""):
        super().__init__(f"{kind}: {why}")
        self.kind = kind


def parse_epoch(text: str) -> int:
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    m = ISO_RE.match(text)
    if not m:
        raise Fail("InvalidLayout", f"bad epoch {text!r}")
    y, mo, d, h, mi, s, ms = (int(g) if g else 0 for g in m.groups())
    try:
        t = _dt.datetime(y, mo, d, h, mi, s, tzinfo=_dt.timezone.utc)
    except ValueError as e:
        raise Fail("InvalidLayout", str(e)) from None
    return int(t.timestamp()) * 1000 + ms


class Layout:
    def __init__(self, spec: str, epoch_ms: int):
        if not spec:
            raise Fail("InvalidLayout", "empty spec")
        parts = spec.split(",")
        if len(parts) > 16:
            raise Fail("InvalidLayout", "more than 16 fields")
        self.fields = []  # (name, kind, bits)
        self.unit_us = 1000
        seen = set()
        for i, part in enumerate(parts):
            name, sep, rest = part.partition(":")
            if not sep:
                raise Fail("InvalidLayout", f"no ':' in {part!r}")
            if len(name) > 31 or not NAME_RE.match(name):
                raise Fail("InvalidLayout", f"bad name {name!r}")
            if name in ("id", "time_ms"):  # the canonical JSON's own keys
                raise Fail("InvalidLayout", f"reserved name {name!r}")
            if name in seen:
                raise Fail("InvalidLayout", f"duplicate {name}")
            seen.add(name)
            bits_text, at, unit = rest.partition("@")
            if not BITS_RE.match(bits_text):
                raise Fail("InvalidLayout", f"bad bits {bits_text!r}")
            bits = int(bits_text)
            if bits == 0 or bits > 64:
                raise Fail("InvalidLayout", "bits out of range")
            kind = {"time": "time", "seq": "seq", "clock": "clock"}.get(name, "node")
            if at:
                if kind != "time":
                    raise Fail("InvalidLayout", "unit on a non-time field")
                m = UNIT_RE.match(unit)
                if not m or int(m.group(1)) == 0:
                    raise Fail("InvalidLayout", f"bad unit {unit!r}")
                self.unit_us = int(m.group(1)) * {"us": 1, "ms": 1000, "s": 1000000}[m.group(2)]
            if kind == "time" and i != 0:
                raise Fail("InvalidLayout", "time not first")
            if kind == "clock" and bits > 8:
                raise Fail("InvalidLayout", "clock wider than 8 bits")
            self.fields.append((name, kind, bits))
        if self.fields[0][1] != "time":
            raise Fail("InvalidLayout", "time missing or not first")
        if "seq" not in seen:
            raise Fail("InvalidLayout", "no seq")
        self.total_bits = sum(f[2] for f in self.fields)
        if self.total_bits > 64:
            raise Fail("InvalidLayout", "over 64 bits")
        if epoch_ms < 0 or epoch_ms > FAR_FUTURE_MS - 1:
            raise Fail("InvalidLayout", "epoch out of range")
        self.epoch_ms = epoch_ms
        self.shifts = {}
        below = 0
        for name, _kind, bits in reversed(self.fields):
            self.shifts[name] = below
            below += bits
        if self.time_end_us() > MAX_YEAR_MS * 1000:
            raise Fail("InvalidLayout", "time field runs past year 294000")

    # --- derived values -------------------------------------------------
    def bits(self, name):
        return next(f[2] for f in self.fields if f[0] == name)

    def max(self, name):
        return (1 << self.bits(name)) - 1

    @property
    def time_max(self):
        return self.max("time")

    @property
    def seq_max(self):
        return self.max("seq")

    def has_clock(self):
        return any(f[1] == "clock" for f in self.fields)

    def node_names(self):
        return [f[0] for f in self.fields if f[1] == "node"]

    def epoch_us(self):
        return self.epoch_ms * 1000

    def time_end_us(self):
        return self.epoch_us() + (self.time_max + 1) * self.unit_us

    def canonical_unit(self):
        u = self.unit_us
        if u % 1000000 == 0:
            return f"{u // 1000000}s"
        if u % 1000 == 0:
            return f"{u // 1000}ms"
        return f"{u}us"

    def canonical_spec(self):
        out = []
        for name, kind, bits in self.fields:
            out.append(f"{name}:{bits}@{self.canonical_unit()}" if kind == "time" else f"{name}:{bits}")
        return ",".join(out)

    def describe(self):
        end_us = self.time_end_us()
        assert end_us % 1000 == 0, "keep time_end exact in ms in layouts.json"
        node_bits = sum(b for _n, k, b in self.fields if k == "node")
        ips = (self.seq_max + 1) * 1000000 / self.unit_us
        return {
            "spec": self.canonical_spec(),
            "epoch_ms": str(self.epoch_ms),
            "unit_us": str(self.unit_us),
            "total_bits": self.total_bits,
            "fields": [
                {
                    "name": n,
                    "kind": k,
                    "bits": b,
                    "shift": self.shifts[n],
                    "max": str((1 << b) - 1),
                }
                for n, k, b in self.fields
            ],
            "ids_per_second": int(ips) if ips == int(ips) else ips,
            "node_capacity": 1 << node_bits,
            "time_end_ms": str(end_us // 1000),
            "time_end": iso(end_us // 1000),
            "max_id": str((1 << self.total_bits) - 1),
        }

    # --- decode / encode / range ------------------------------------------
    def decode(self, id_: int):
        if id_ < 0 or id_ >> self.total_bits:
            raise Fail("InvalidArgument", "ID wider than the layout")
        values = {n: (id_ >> self.shifts[n]) & ((1 << b) - 1) for n, _k, b in self.fields}
        time_us = self.epoch_us() + values["time"] * self.unit_us
        return time_us, values

    def encode(self, time_us: int, values: dict) -> int:
        if time_us < self.epoch_us() or time_us >= self.time_end_us():
            raise Fail("InvalidArgument", "time outside the layout's life")
        tick = (time_us - self.epoch_us()) // self.unit_us
        out = tick << self.shifts["time"]
        named = {n for n, k, _b in self.fields if k != "time"}
        if set(values) != named:
            raise Fail("InvalidArgument", "fields missing, unknown or the time")
        for name, kind, bits in self.fields:
            if kind == "time":
                continue
            v = values[name]
            if v < 0 or v >> bits:
                raise Fail("InvalidArgument", f"{name} too large")
            out |= v << self.shifts[name]
        return out

    def range(self, t0_ms: int, t1_ms: int):
        # Ticks whose decoded time_ms = floor(start_us / 1000) is in [t0, t1)
        # (t1 excluded): t0*1000 <= start_us < t1*1000.
        lo = -((self.epoch_us() - t0_ms * 1000) // self.unit_us)  # ceil
        hi = (t1_ms * 1000 - 1 - self.epoch_us()) // self.unit_us
        lo = max(lo, 0)
        hi = min(hi, self.time_max)
        if t1_ms <= t0_ms or lo > hi:
            raise Fail("InvalidArgument", "empty range")
        shift = self.shifts["time"]
        return lo << shift, (hi << shift) | ((1 << shift) - 1)

    def json_line(self, id_: int) -> str:
        time_us, values = self.decode(id_)
        ms = time_us // 1000
        parts = [f'"id":"{id_}"', f'"time_ms":{ms}', f'"time":"{iso(ms)}"']
        parts += [f'"{n}":{values[n]}' for n, k, _b in self.fields if k != "time"]
        return "{" + ",".join(parts) + "}"


def iso(ms: int) -> str:
    t = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def resolve(ref: dict) -> Layout:
    if "preset" in ref:
        if ref["preset"] not in PRESETS:
            raise Fail("InvalidLayout", "unknown preset")
        spec, epoch = PRESETS[ref["preset"]]
        return Layout(spec, epoch)
    return Layout(ref["spec"], parse_epoch(ref["epoch"]))


# --------------------------------------------------------------------------
# Generation (the deterministic entry)
# --------------------------------------------------------------------------

STRATEGY_DEFAULTS = {  # (max_wait_ms, max_drift_ms)
    "error": (0, 0),
    "wait": (1000, 0),
    "clock": (0, 0),
    "borrow": (1000, 1000),
}


class Generator:
    def __init__(self, layout: Layout, options: dict):
        self.L = layout
        node = options.get("node", {})
        for name, value in node.items():
            if name not in layout.node_names():
                raise Fail("InvalidArgument", f"{name} is not a node field")
            if not (0 <= value <= layout.max(name)):
                raise Fail("InvalidArgument", f"{name} out of range")
        for name in layout.node_names():
            if name not in node:
                raise Fail("InvalidArgument", f"no value for {name}")
        self.node = node
        rb = options.get("rollback", "default")
        if rb == "clock" and not layout.has_clock():
            raise Fail("InvalidArgument", "clock strategy without clock field")
        if rb == "default":
            rb, wait, drift = ("clock" if layout.has_clock() else "wait"), 5, 0
        else:
            wait, drift = STRATEGY_DEFAULTS[rb]
        wait = options.get("max_wait_ms", wait)
        drift = options.get("max_drift_ms", drift)
        self.rollback = rb
        self.max_wait_us = wait * 1000
        self.drift = drift * 1000 // layout.unit_us
        assert not options.get("random_start", False)
        # state
        self.T = 0
        self.s = layout.seq_max
        self.c = 0
        self.last = {}

    def pack(self, tick, seq, clock):
        L = self.L
        out = (tick << L.shifts["time"]) | (seq << L.shifts["seq"])
        if L.has_clock():
            out |= clock << L.shifts["clock"]
        for name, v in self.node.items():
            out |= v << L.shifts[name]
        return out

    def issue(self, tick, seq):
        self.T, self.s = tick, seq
        return ("id", self.pack(tick, seq, self.c))

    def start_us(self, tick):
        return self.L.epoch_us() + tick * self.L.unit_us

    def next(self, now_us):
        L = self.L
        if now_us < L.epoch_us():
            return ("error", "InvalidArgument")
        n = (now_us - L.epoch_us()) // L.unit_us
        if n > L.time_max:
            return ("error", "TimeExhausted")
        T = self.T
        if n > T:
            return self.issue(n, 0)
        if T - n <= self.drift:
            if self.s < L.seq_max:
                return self.issue(T, self.s + 1)
            if T + 1 - n <= self.drift:
                if T + 1 > L.time_max:
                    return ("error", "TimeExhausted")
                return self.issue(T + 1, 0)
            return ("wait", self.start_us(T + 1 - self.drift) - now_us)
        # The clock is behind the last tick issued by more than max_drift.
        if self.rollback == "error":
            return ("error", "ClockMovedBackwards")
        if self.rollback in ("wait", "borrow"):
            need = self.start_us(T - self.drift) - now_us
            if need <= self.max_wait_us:
                return ("wait", need)
            return ("error", "ClockMovedBackwards")
        assert self.rollback == "clock"
        lag = self.start_us(T) - now_us
        if lag <= self.max_wait_us:
            return ("wait", lag)
        size = 1 << L.bits("clock")
        for k in range(1, size):
            c2 = (self.c + k) % size
            if self.last.get(c2, -1) < n:
                self.last[self.c] = T
                self.c = c2
                return self.issue(n, 0)
        return ("error", "ClockMovedBackwards")

    def next_ids(self, count, now_us):
        ids = []
        while len(ids) < count:
            r = self.next(now_us)
            if r[0] != "id":
                return ids, r
            ids.append(r[1])
        return ids, None


def outcome(r):
    kind, v = r
    if kind == "id":
        return {"id": str(v)}
    if kind == "wait":
        assert v > 0
        return {"wait_us": str(v)}
    return {"error": v}


# --------------------------------------------------------------------------
# The cases
# --------------------------------------------------------------------------


def ref_spec(spec, epoch):
    return {"spec": spec, "epoch": str(epoch)}


def layouts_cases():
    out = []

    def ok(desc, spec=None, epoch=None, preset=None):
        case = {"description": desc}
        if preset:
            case["preset"] = preset
            lay = resolve({"preset": preset})
        else:
            case["spec"], case["epoch"] = spec, epoch
            lay = Layout(spec, parse_epoch(epoch))
        case["expect"] = lay.describe()
        out.append(case)
        return case

    def bad(desc, spec=None, epoch="1704067200000", preset=None, kind="InvalidLayout"):
        case = {"description": desc}
        if preset is not None:
            case["preset"] = preset
            ref = {"preset": preset}
        else:
            case["spec"], case["epoch"] = spec, epoch
            ref = {"spec": spec, "epoch": epoch}
        try:
            resolve(ref)
        except Fail as e:
            assert e.kind == kind, (desc, e)
        else:
            raise AssertionError(f"model accepts invalid layout: {desc}")
        case["error"] = kind
        out.append(case)

    for p in PRESETS:
        ok(f"preset {p}", preset=p)
    ok("README example layout", "time:41@1ms,worker:10,seq:12", "1704067200000")
    ok("time unit defaults to 1ms", "time:41,worker:10,seq:12", "1704067200000")
    ok("epoch as ISO date", "time:41@1ms,worker:10,seq:12", "2024-01-01")
    ok("epoch as ISO instant", "time:41@1ms,worker:10,seq:12", "2024-01-01T00:00:00Z")
    ok(
        "epoch as ISO instant with ms",
        "time:41@1ms,worker:10,seq:12",
        "2015-01-01T00:00:00.000Z",
    )
    ok("epoch 0 (1970) is allowed", "time:41@1ms,worker:11,seq:12", "0")
    ok(
        "seq above the node field",
        "time:41@1ms,seq:12,region:4,host:6",
        "1704067200000",
    )
    ok("unit in seconds", "time:32@1s,worker:16,seq:15", "1704067200000")
    ok("unit in microseconds (250us)", "time:44@250us,worker:7,seq:12", "1704067200000")
    ok("unit 1000us is written 1ms", "time:41@1000us,worker:10,seq:12", "1704067200000")
    ok("unit 10ms stays 10ms", "time:39@10ms,seq:8,machine:16", "1704067200000")
    ok("unit 60s", "time:30@60s,worker:20,seq:13", "1704067200000")
    ok("unit 3000000us is written 3s", "time:30@3000000us,seq:10", "1704067200000")
    ok("64 bits wide", "time:41@1ms,worker:11,seq:12", "1288834974657")
    ok("no node field", "time:41@1ms,seq:22", "1704067200000")
    ok(
        "clock field 8 bits wide (the widest)",
        "time:40@1ms,clock:8,seq:15",
        "1704067200000",
    )
    ok(
        "one-bit clock, time 20 bits",
        "time:20@1ms,clock:1,worker:2,seq:2",
        "1704067200000",
    )
    ok("name of 31 bytes", "time:41@1ms," + "n" * 31 + ":10,seq:12", "1704067200000")
    ok(
        "names with digits and underscores",
        "time:41@1ms,dc_2:5,w0rker_id:5,seq:12",
        "1704067200000",
    )
    ok(
        "16 fields (the most)",
        "time:41@1ms," + ",".join(f"n{i}:1" for i in range(14)) + ",seq:8",
        "1704067200000",
    )
    ok("1-bit fields", "time:1@1ms,worker:1,seq:1", "1704067200000")

    bad("unknown preset", preset="flickr")
    bad("empty spec", "")
    bad("missing time field", "worker:10,seq:12")
    bad("time not first", "worker:10,time:41@1ms,seq:12")
    bad("missing seq field", "time:41@1ms,worker:10")
    bad("two seq fields", "time:41@1ms,seq:10,seq:12")
    bad("two clock fields", "time:41@1ms,clock:2,clock:3,seq:12")
    bad("two time fields", "time:30@1ms,time:10@1ms,seq:12")
    bad("duplicate node name", "time:41@1ms,worker:5,worker:5,seq:12")
    bad("zero-width node field", "time:41@1ms,worker:0,seq:12")
    bad("zero-width time field", "time:0@1ms,worker:10,seq:12")
    bad("zero-width seq field", "time:41@1ms,worker:10,seq:0")
    bad("bits not a number", "time:41@1ms,worker:ten,seq:12")
    bad("bits with a sign", "time:41@1ms,worker:+10,seq:12")
    bad("bits missing", "time:41@1ms,worker:,seq:12")
    bad("no colon", "time:41@1ms,worker,seq:12")
    bad("total over 64 bits", "time:42@1ms,worker:11,seq:12")
    bad("one field over 64 bits", "time:65@1ms,seq:12")
    bad("unit on a node field", "time:41@1ms,worker:10@1ms,seq:12")
    bad("unit on the seq field", "time:41,worker:10,seq:12@1ms")
    bad("unit in hours", "time:41@1h,worker:10,seq:12")
    bad("zero unit", "time:41@0ms,worker:10,seq:12")
    bad("unit without a number", "time:41@ms,worker:10,seq:12")
    bad("negative unit", "time:41@-1ms,worker:10,seq:12")
    bad("unit without a suffix", "time:41@10,worker:10,seq:12")
    bad("empty unit", "time:41@,worker:10,seq:12")
    bad("name with upper case", "time:41@1ms,Worker:10,seq:12")
    bad("name with a dash", "time:41@1ms,work-er:10,seq:12")
    bad("a field named id (the canonical JSON's key of the ID)", "time:41@1ms,id:10,seq:12")
    bad("a field named time_ms (the canonical JSON's key of the time)", "time:41@1ms,time_ms:10,seq:12")
    bad("name starting with a digit", "time:41@1ms,1worker:10,seq:12")
    bad("name of 32 bytes", "time:41@1ms," + "n" * 32 + ":10,seq:12")
    bad("empty name", "time:41@1ms,:10,seq:12")
    bad("empty field (trailing comma)", "time:41@1ms,worker:10,seq:12,")
    bad("17 fields", "time:40@1ms," + ",".join(f"n{i}:1" for i in range(15)) + ",seq:8")
    bad("clock wider than 8 bits", "time:41@1ms,clock:9,seq:12")
    bad(
        "epoch in the future (2200)",
        "time:41@1ms,worker:10,seq:12",
        "2200-01-01T00:00:00Z",
    )
    bad(
        "epoch in the future as ms (2200)",
        "time:41@1ms,worker:10,seq:12",
        "7258118400000",
    )
    bad(
        "epoch before 1970 (ISO)",
        "time:41@1ms,worker:10,seq:12",
        "1969-12-31T23:59:59Z",
    )
    for what, text in [
        ("negative ms", "-1"),
        ("ms with a fraction", "1704067200000.5"),
        ("month 13", "2024-13-01"),
        ("30 February", "2024-02-30"),
        ("a time-zone offset instead of Z", "2024-01-01T00:00:00+01:00"),
    ]:
        bad(f"epoch with {what}", "time:41@1ms,worker:10,seq:12", text)
    bad("epoch not a time", "time:41@1ms,worker:10,seq:12", "yesterday")
    bad("epoch empty", "time:41@1ms,worker:10,seq:12", "")
    bad("time field runs past the year 294000", "time:50@1s,seq:13", "1704067200000")
    return out


def decode_cases():
    out = []

    def case(desc, ref, id_text, expect_fields=None, expect_time=None):
        lay = resolve(ref)
        c = {"description": desc, "layout": ref, "id": id_text}
        id_ = int(id_text)
        time_us, values = lay.decode(id_)
        if expect_time is not None:
            assert time_us // 1000 == expect_time, (desc, time_us, expect_time)
        if expect_fields is not None:
            got = {k: v for k, v in values.items() if k != "time"}
            assert got == expect_fields, (desc, got, expect_fields)
        c["json"] = lay.json_line(id_)
        c["fields"] = {n: str(values[n]) for n, k, _b in lay.fields if k != "time"}
        # A passing decode case also encodes back to the same ID.
        assert lay.encode(time_us, {k: v for k, v in values.items() if k != "time"}) == id_
        out.append(c)

    def bad(desc, ref, id_text):
        lay = resolve(ref)
        try:
            if not re.fullmatch(r"[0-9]+", id_text) or int(id_text) >= 1 << 64:
                raise Fail("InvalidArgument", "not a decimal ID")
            lay.decode(int(id_text))
        except Fail as e:
            assert e.kind == "InvalidArgument"
        else:
            raise AssertionError(desc)
        out.append(
            {
                "description": desc,
                "layout": ref,
                "id": id_text,
                "error": "InvalidArgument",
            }
        )

    discord, twitter = {"preset": "discord"}, {"preset": "twitter"}
    instagram = {"preset": "instagram"}
    # --- IDs published by other systems ---------------------------------
    case(
        "Discord developer docs (Reference > Snowflakes): 175928847299117063 is "
        "2016-04-30T11:18:25.796Z, worker 1, process 0, increment 7",
        discord,
        "175928847299117063",
        {"worker": 1, "process": 0, "seq": 7},
        1462015105796,
    )
    case(
        "twilight-util docs (docs.rs, Snowflake::timestamp example): Discord user "
        "105484726235607040 was created 2015-10-19T01:58:38.546+00:00",
        discord,
        "105484726235607040",
        None,
        1445219918546,
    )
    case(
        "discord-snowflake npm README: 90339695967350784 has timestamp 1441609061949 "
        "(2015-09-07T06:57:41.949Z), worker 0, process 3, increment 0",
        discord,
        "90339695967350784",
        {"worker": 0, "process": 3, "seq": 0},
        1441609061949,
    )
    case(
        "Twitter developer docs (Tweet object): id 1050118621198921728 has "
        "created_at Wed Oct 10 20:19:24 +0000 2018 (ms and worker bits decoded here)",
        twitter,
        "1050118621198921728",
        None,
        1539202764211,
    )
    case(
        "X enterprise data dictionary: id_str 1228393702244134912 has created_at Fri Feb 14 19:00:55 +0000 2020",
        twitter,
        "1228393702244134912",
        None,
        1581706855723,
    )
    case(
        "Twitter API v2 example payload: Tweet 1307025659294674945 has created_at "
        "2020-09-18T18:36:15.000Z (the API truncates to the second)",
        twitter,
        "1307025659294674945",
        None,
        1600454175195,
    )
    case(
        "Instagram media ID 2384288897814875714 published 2020-08-26T13:43:27Z "
        "(Stack Overflow question 63683015, decoded with Instagram's our_epoch)",
        instagram,
        "2384288897814875714",
        None,
        1598449407313,
    )
    case(
        "Instagram media ID 2383568809444681765 published 2020-08-25T13:52:46Z (Stack Overflow question 63683015)",
        instagram,
        "2383568809444681765",
        None,
        1598363566090,
    )
    case(
        "Baidu uid-generator README: UID 180363646902239241 parses to timestamp "
        "2017-01-19 12:15:46 (UTC+8), workerId 4, sequence 9, with the README's "
        "timeBits 29, workerBits 21, seqBits 13, epochStr 2016-09-20 (UTC+8)",
        ref_spec("time:29@1s,worker:21,seq:13", 1474300800000),
        "180363646902239241",
        {"worker": 4, "seq": 9},
        1484799346000,
    )
    case(
        "npm sonyflake (TypeScript port) README: nextId() 1211144891006978 "
        "deconstructs to timestamp 1589832189861, machineId 2, sequence 0 with "
        "epoch Date.UTC(2020, 4, 18); that port counts 1 ms units, not 10 ms",
        ref_spec("time:39@1ms,seq:8,machine:16", 1589760000000),
        "1211144891006978",
        {"seq": 0, "machine": 2},
        1589832189861,
    )
    # --- edge cases ------------------------------------------------------
    for p in PRESETS:
        lay = resolve({"preset": p})
        case(f"{p}: ID 0 is the epoch itself", {"preset": p}, "0")
        case(f"{p}: the largest ID", {"preset": p}, str((1 << lay.total_bits) - 1))
        # the first ID of the last tick
        case(
            f"{p}: first ID of the last tick",
            {"preset": p},
            str(lay.time_max << lay.shifts["time"]),
        )
    case(
        "sonyflake: 10 ms ticks, machine in the low bits",
        {"preset": "sonyflake"},
        str((12345678 << 24) | (17 << 16) | 4242),
    )
    case("baidu: 1 s ticks", {"preset": "baidu"}, str((123456 << 35) | (77 << 13) | 8191))
    case(
        "instagram: shard 1341, seq 905",
        instagram,
        str((1387263000 << 23) | (1341 << 10) | 905),
    )
    case(
        "default preset: every field set",
        {"preset": "default"},
        str((63072000000 << 22) | (5 << 19) | (99 << 12) | 4095),
    )
    wide = ref_spec("time:41@1ms,worker:11,seq:12", 0)
    case("64-bit layout: the largest ID (2^64 - 1)", wide, str((1 << 64) - 1))
    case(
        "64-bit layout: an ID above 2^63",
        wide,
        str((1704067200123 << 23) | (2047 << 12) | 1),
    )
    case("64-bit layout: 2^63 exactly", wide, str(1 << 63))
    us = ref_spec("time:48@100us,worker:3,seq:12", 1704067200000)
    case(
        "100us ticks: time_ms rounds down (tick 12345678 = +1234567.8 ms)",
        us,
        str((12345678 << 15) | (5 << 12) | 7),
    )
    case("100us ticks: tick 9 is still in the epoch's ms", us, str(9 << 15))
    case(
        "seconds: 1 s ticks",
        ref_spec("time:32@1s,worker:16,seq:15", 1704067200000),
        str((86400 << 31) | (65535 << 15) | 1),
    )
    case(
        "seq above node: fields in layout order in JSON",
        ref_spec("time:41@1ms,seq:12,region:4,host:6", 1704067200000),
        str((1000 << 22) | (4095 << 10) | (15 << 6) | 63),
    )
    for when, ms_ in [
        ("the Unix epoch", 0),
        ("leap day 2024, last ms", 1709251199999),
        ("1 March 2000 (leap century)", 951868800000),
        ("1 March 2100 (not a leap year)", 4107542400000),
        ("end of 1999", 946684799999),
    ]:
        case(
            f"ISO time of {when}",
            ref_spec("time:44@1ms,seq:19", 0),
            str((ms_ << 19) | 1),
        )
    case(
        "epoch given as ISO",
        ref_spec("time:41@1ms,worker:10,seq:12", "2024-01-01T00:00:00Z"),
        str((1 << 22) | (3 << 12) | 2),
    )

    bad("ID wider than twitter's 63 bits", twitter, str(1 << 63))
    bad("ID 2^64 - 1 on twitter", twitter, str((1 << 64) - 1))
    bad(
        "ID wider than sonyflake's 63 bits",
        {"preset": "sonyflake"},
        "9223372036854775808",
    )
    bad(
        "ID one bit too wide for a 20-bit layout",
        ref_spec("time:10@1ms,worker:4,seq:6", 1704067200000),
        str(1 << 20),
    )
    bad("ID above 2^64 - 1 (text)", twitter, "18446744073709551616")
    bad("negative ID (text)", twitter, "-1")
    bad("empty ID text", twitter, "")
    bad("ID with a plus sign", twitter, "+5")
    bad("ID with a space", twitter, " 5")
    bad("ID that is not a number", twitter, "abc")
    # A NUL byte is part of the text, never its end: C would read "5" here.
    bad("ID with a NUL byte after the digits (5, NUL, garbage)", twitter, "5\x00garbage")
    bad("ID with a NUL byte before the digits", {"preset": "discord"}, "\x00175928847299117063")
    bad("ID ending in a NUL byte", twitter, "5\x00")
    return out


def encode_cases():
    out = []

    def case(desc, ref, time_ms, fields, expect_id=None):
        lay = resolve(ref)
        vals = dict(fields)
        got = lay.encode(time_ms * 1000, vals)
        if expect_id is not None:
            assert got == expect_id, (desc, got)
        out.append(
            {
                "description": desc,
                "layout": ref,
                "time_ms": str(time_ms),
                "fields": {k: str(v) for k, v in fields.items()},
                "id": str(got),
            }
        )

    def bad(desc, ref, time_ms, fields):
        lay = resolve(ref)
        try:
            lay.encode(time_ms * 1000, dict(fields))
        except Fail as e:
            assert e.kind == "InvalidArgument"
        else:
            raise AssertionError(desc)
        out.append(
            {
                "description": desc,
                "layout": ref,
                "time_ms": str(time_ms),
                "fields": {k: str(v) for k, v in fields.items()},
                "error": "InvalidArgument",
            }
        )

    discord, twitter = {"preset": "discord"}, {"preset": "twitter"}
    case(
        "Discord developer docs example, encoded",
        discord,
        1462015105796,
        {"worker": 1, "process": 0, "seq": 7},
        175928847299117063,
    )
    case(
        "Twitter: datacenter 10, worker 27, seq 0 at 2018-10-10T20:19:24.211Z",
        twitter,
        1539202764211,
        {"datacenter": 10, "worker": 27, "seq": 0},
        1050118621198921728,
    )
    case(
        "Baidu uid-generator README example, encoded",
        ref_spec("time:29@1s,worker:21,seq:13", 1474300800000),
        1484799346000,
        {"worker": 4, "seq": 9},
        180363646902239241,
    )
    case(
        "twitter: the epoch itself, all zero",
        twitter,
        1288834974657,
        {"datacenter": 0, "worker": 0, "seq": 0},
        0,
    )
    case(
        "twitter: all fields at their max in the last ms",
        twitter,
        1288834974657 + (1 << 41) - 1,
        {"datacenter": 31, "worker": 31, "seq": 4095},
        (1 << 63) - 1,
    )
    case(
        "default preset with a clock value",
        {"preset": "default"},
        1735689600000,
        {"clock": 7, "worker": 127, "seq": 1},
    )
    case(
        "sonyflake: time rounds down to the 10 ms tick",
        {"preset": "sonyflake"},
        1700000000019,
        {"seq": 3, "machine": 513},
    )
    case(
        "sonyflake: the first ms of the same 10 ms tick",
        {"preset": "sonyflake"},
        1700000000010,
        {"seq": 3, "machine": 513},
    )
    case(
        "baidu: time rounds down to the second",
        {"preset": "baidu"},
        1600000000999,
        {"worker": 4194303, "seq": 0},
    )
    case(
        "baidu: the last second of its time field",
        {"preset": "baidu"},
        1463673600000 + ((1 << 28) - 1) * 1000,
        {"worker": 1, "seq": 1},
    )
    case(
        "instagram: shard 5 (the blog post's SQL)",
        {"preset": "instagram"},
        1400000000000,
        {"shard": 5, "seq": 1023},
    )
    wide = ref_spec("time:41@1ms,worker:11,seq:12", 0)
    case(
        "64-bit layout: the largest ID",
        wide,
        (1 << 41) - 1,
        {"worker": 2047, "seq": 4095},
        (1 << 64) - 1,
    )
    case(
        "64-bit layout: encodes an ID above 2^63",
        wide,
        1704067200123,
        {"worker": 2047, "seq": 1},
    )
    us = ref_spec("time:48@100us,worker:3,seq:12", 1704067200000)
    case(
        "100us ticks: a whole ms is 10 ticks",
        us,
        1704067201234,
        {"worker": 5, "seq": 7},
    )
    case(
        "seq above node",
        ref_spec("time:41@1ms,seq:12,region:4,host:6", 1704067200000),
        1704067201000,
        {"seq": 4095, "region": 15, "host": 63},
    )

    bad(
        "twitter: a field missing (seq)",
        twitter,
        1600000000000,
        {"datacenter": 1, "worker": 1},
    )
    bad(
        "twitter: a field the layout does not have (shard)",
        twitter,
        1600000000000,
        {"datacenter": 1, "worker": 1, "seq": 0, "shard": 1},
    )
    bad(
        "twitter: the time given as a field",
        twitter,
        1600000000000,
        {"datacenter": 1, "worker": 1, "seq": 0, "time": 5},
    )
    bad(
        "twitter: seq above its max",
        twitter,
        1600000000000,
        {"datacenter": 1, "worker": 1, "seq": 4096},
    )
    bad(
        "twitter: worker above its max",
        twitter,
        1600000000000,
        {"datacenter": 1, "worker": 32, "seq": 0},
    )
    bad(
        "default: clock above its max",
        {"preset": "default"},
        1735689600000,
        {"clock": 8, "worker": 1, "seq": 0},
    )
    bad(
        "twitter: 1 ms before the epoch",
        twitter,
        1288834974656,
        {"datacenter": 0, "worker": 0, "seq": 0},
    )
    bad(
        "twitter: time_end itself is outside",
        twitter,
        1288834974657 + (1 << 41),
        {"datacenter": 0, "worker": 0, "seq": 0},
    )
    bad(
        "baidu: after its time field ran out (2025)",
        {"preset": "baidu"},
        1735689600000,
        {"worker": 1, "seq": 0},
    )
    bad(
        "sonyflake: before 2014-09-01",
        {"preset": "sonyflake"},
        1409529599999,
        {"seq": 0, "machine": 0},
    )
    bad(
        "64-bit layout: before 1970 is before its epoch",
        wide,
        -1,
        {"worker": 0, "seq": 0},
    )
    return out


def range_cases():
    out = []

    def case(desc, ref, t0, t1):
        lay = resolve(ref)
        c = {"description": desc, "layout": ref, "t0_ms": str(t0), "t1_ms": str(t1)}
        try:
            lo, hi = lay.range(t0, t1)
            c["min"], c["max"] = str(lo), str(hi)
        except Fail as e:
            c["error"] = e.kind
        out.append(c)

    discord, twitter = {"preset": "discord"}, {"preset": "twitter"}
    case("discord: one ms (the docs example's)", discord, 1462015105796, 1462015105797)
    case("discord: an empty window (t1 = t0)", discord, 1462015105796, 1462015105796)
    # Consecutive windows share their bound and no ID: each min is the max
    # before it plus one.
    case("discord: one day", discord, 1462060800000, 1462147200000)
    case("discord: the next day, adjacent", discord, 1462147200000, 1462233600000)
    case("twitter: one second, adjacent to the next", twitter, 1600000000000, 1600000001000)
    case("twitter: the next second", twitter, 1600000001000, 1600000002000)
    case("twitter: from the epoch", twitter, 1288834974657, 1288834974657 + 1000)
    case("twitter: starts before the epoch (clamped to 0)", twitter, 0, 1288834974657)
    case(
        "twitter: ends after time_end (clamped to the last tick)",
        twitter,
        1288834974657 + (1 << 41) - 5,
        1288834974657 + (1 << 41) + 1000,
    )
    case("twitter: entirely before the epoch", twitter, 0, 1288834974656)
    case(
        "twitter: entirely after time_end",
        twitter,
        1288834974657 + (1 << 41),
        1288834974657 + (1 << 41) + 10,
    )
    case("twitter: t0 after t1", twitter, 1600000000001, 1600000000000)
    sf = {"preset": "sonyflake"}
    case(
        "sonyflake: inside one 10 ms tick with no tick start",
        sf,
        1700000000001,
        1700000000009,
    )
    case("sonyflake: exactly one tick start", sf, 1700000000010, 1700000000011)
    case("sonyflake: adjacent 10 ms windows, the first", sf, 1700000000000, 1700000000010)
    case("sonyflake: adjacent 10 ms windows, the second", sf, 1700000000010, 1700000000020)
    case("sonyflake: ms bounds rounded to ticks", sf, 1700000000001, 1700000000025)
    baidu = {"preset": "baidu"}
    case("baidu: one second", baidu, 1500000000000, 1500000000999)
    case("baidu: range crossing its time_end", baidu, 1732000000000, 1800000000000)
    case("baidu: after its time field ran out", baidu, 1735689600000, 1735689700000)
    us = ref_spec("time:48@100us,worker:3,seq:12", 1704067200000)
    case("100us ticks: a single ms holds ten ticks", us, 1704067200005, 1704067200006)
    case(
        "seconds: rounding both ends",
        ref_spec("time:32@1s,worker:16,seq:15", 1704067200000),
        1704067200001,
        1704067262000,
    )
    wide = ref_spec("time:41@1ms,worker:11,seq:12", 0)
    case("64-bit layout: up to the largest ID", wide, 1 << 40, (1 << 41) - 1)
    return out


def generate_cases():
    out = []
    E = 1704067200000  # 2024-01-01T00:00:00Z
    EU = E * 1000

    def ms(x):  # an instant E + x ms, in us
        return EU + int(round(x * 1000))

    def script(desc, ref, options, steps):
        lay = resolve(ref)
        gen = Generator(lay, options)
        c = {"description": desc, "layout": ref, "options": options, "steps": []}
        for st in steps:
            now = st[0]
            if st[1] == "next":
                s = {
                    "now_us": str(now),
                    "call": "next",
                    "expect": outcome(gen.next(now)),
                }
            else:
                ids, stop = gen.next_ids(st[2], now)
                exp = {"ids": [str(i) for i in ids]}
                if stop:
                    exp.update(outcome(stop))
                s = {"now_us": str(now), "call": "next_ids", "n": st[2], "expect": exp}
            c["steps"].append(s)
        out.append(c)
        return c

    def bad(desc, ref, options):
        lay = resolve(ref)
        try:
            Generator(lay, options)
        except Fail as e:
            assert e.kind == "InvalidArgument"
        else:
            raise AssertionError(desc)
        out.append(
            {
                "description": desc,
                "layout": ref,
                "options": options,
                "error": "InvalidArgument",
            }
        )

    N = "next"

    # --- every preset ---------------------------------------------------
    script(
        "default preset: first IDs",
        {"preset": "default"},
        {"node": {"worker": 5}},
        [(ms(1), N), (ms(1), N), (ms(1.5), N), (ms(2), N), (ms(10), N)],
    )
    script(
        "twitter preset",
        {"preset": "twitter"},
        {"node": {"datacenter": 1, "worker": 3}},
        [(1700000000000000, N), (1700000000000000, N), (1700000000001000, N)],
    )
    script(
        "discord preset",
        {"preset": "discord"},
        {"node": {"worker": 1, "process": 0}},
        [
            (1462015105796000, N),
            (1462015105796000, N),
            (1462015105796999, N),
            (1462015105797000, N),
        ],
    )
    script(
        "sonyflake preset: 10 ms ticks",
        {"preset": "sonyflake"},
        {"node": {"machine": 258}},
        [(1700000000000000, N), (1700000000009999, N), (1700000000010000, N)],
    )
    script(
        "instagram preset",
        {"preset": "instagram"},
        {"node": {"shard": 5}},
        [(1700000000000000, N), (1700000000000000, "next_ids", 3)],
    )
    script(
        "baidu preset: works before its time field ran out",
        {"preset": "baidu"},
        {"node": {"worker": 1}},
        [(1704067200000000, N), (1704067200500000, N), (1704067201000000, N)],
    )
    script(
        "baidu preset: time field exhausted in 2024",
        {"preset": "baidu"},
        {"node": {"worker": 1}},
        [(1735689600000000, N), (1735689600000000, "next_ids", 2)],
    )

    tiny = ref_spec("time:20@1ms,worker:4,seq:2", E)
    clk2 = ref_spec("time:20@1ms,clock:2,worker:4,seq:2", E)
    clk1 = ref_spec("time:20@1ms,clock:1,worker:4,seq:2", E)

    # --- basics ---------------------------------------------------------
    script(
        "now before the epoch",
        tiny,
        {"node": {"worker": 1}, "rollback": "error"},
        [(EU - 1, N), (EU - 1, "next_ids", 2), (ms(1), N)],
    )
    script(
        "tick 0 counts as used up: wait for tick 1",
        tiny,
        {"node": {"worker": 1}, "rollback": "error"},
        [(EU, N), (ms(0.25), N), (ms(1), N)],
    )
    script(
        "sequence exhausted: wait for the next tick (error strategy)",
        tiny,
        {"node": {"worker": 2}, "rollback": "error"},
        [
            (ms(10), N),
            (ms(10), N),
            (ms(10.2), N),
            (ms(10.4), N),
            (ms(10.4), N),
            (ms(10.9), N),
            (ms(11), N),
            (ms(11), N),
        ],
    )
    script(
        "sequence exhausted with the wait strategy",
        tiny,
        {"node": {"worker": 2}, "rollback": "wait"},
        [(ms(10), "next_ids", 4), (ms(10.001), N), (ms(11.5), "next_ids", 5)],
    )
    script(
        "clock jumps forward: seq restarts at 0",
        tiny,
        {"node": {"worker": 15}, "rollback": "error"},
        [(ms(5), N), (ms(5), N), (ms(500), N), (ms(900000), N)],
    )

    # --- borrowing ------------------------------------------------------
    script(
        "borrow up to max_drift ticks ahead, then wait",
        tiny,
        {
            "node": {"worker": 3},
            "rollback": "borrow",
            "max_drift_ms": 2,
            "max_wait_ms": 10,
        },
        [
            (ms(100), "next_ids", 4),
            (ms(100), N),
            (ms(100), "next_ids", 3),
            (ms(100), N),
            (ms(100), N),
            (ms(100), N),
            (ms(100.3), N),
            (ms(101), N),
            (ms(101), "next_ids", 4),
            (ms(103), N),
            (ms(110), N),
        ],
    )
    script(
        "max_drift with the error strategy lets a tick's sequence overflow",
        tiny,
        {"node": {"worker": 3}, "rollback": "error", "max_drift_ms": 1},
        [(ms(50), "next_ids", 8), (ms(50), N), (ms(50.5), N), (ms(51), N)],
    )
    script(
        "borrow: small clock steps back stay within max_drift",
        tiny,
        {
            "node": {"worker": 3},
            "rollback": "borrow",
            "max_drift_ms": 3,
            "max_wait_ms": 0,
        },
        [
            (ms(200), N),
            (ms(198), N),
            (ms(197), N),
            (ms(196.9), N),
            (ms(196), N),
            (ms(201), N),
        ],
    )
    script(
        "borrow: default max_drift 1000 ms and max_wait 1000 ms",
        tiny,
        {"node": {"worker": 3}, "rollback": "borrow"},
        [
            (ms(5000), N),
            (ms(4000), N),
            (ms(3999), N),
            (ms(3000), N),
            (ms(2999), N),
            (ms(2998.5), N),
        ],
    )

    # --- batches --------------------------------------------------------
    script(
        "batch: full, within one tick",
        ref_spec("time:41@1ms,worker:10,seq:12", E),
        {"node": {"worker": 1023}, "rollback": "error", "random_start": False},
        [(ms(7), "next_ids", 3), (ms(7), "next_ids", 1), (ms(8), "next_ids", 2)],
    )
    script(
        "batch: partial, stops with a wait",
        tiny,
        {"node": {"worker": 4}, "rollback": "error"},
        [
            (ms(20), N),
            (ms(20), "next_ids", 10),
            (ms(20), "next_ids", 2),
            (ms(21), "next_ids", 10),
        ],
    )
    script(
        "batch: spans borrowed ticks",
        tiny,
        {"node": {"worker": 4}, "rollback": "borrow", "max_drift_ms": 2},
        [(ms(30), "next_ids", 12), (ms(30), "next_ids", 1), (ms(31), "next_ids", 5)],
    )
    script(
        "batch: fails at once when the clock went back",
        tiny,
        {"node": {"worker": 4}, "rollback": "error"},
        [(ms(40), "next_ids", 2), (ms(39), "next_ids", 2), (ms(40), "next_ids", 3)],
    )
    script(
        "batch of a whole 10 ms tick (sonyflake), then a wait",
        {"preset": "sonyflake"},
        {"node": {"machine": 1}, "rollback": "error"},
        [(1700000000003000, "next_ids", 256), (1700000000003000, "next_ids", 1)],
    )

    # --- rollback: error ------------------------------------------------
    script(
        "rollback error: refuses, then resumes when the clock catches up",
        tiny,
        {"node": {"worker": 6}, "rollback": "error"},
        [
            (ms(10), N),
            (ms(9.999), N),
            (ms(9), N),
            (ms(10), N),
            (ms(10.5), N),
            (ms(11), N),
        ],
    )

    # --- rollback: wait -------------------------------------------------
    script(
        "rollback wait: asks to wait until the last tick (default max 1000 ms)",
        tiny,
        {"node": {"worker": 6}, "rollback": "wait"},
        [
            (ms(2000), N),
            (ms(1995.5), N),
            (ms(1000), N),
            (ms(999.999), N),
            (ms(2000), N),
        ],
    )
    script(
        "rollback wait: beyond max_wait is an error",
        tiny,
        {"node": {"worker": 6}, "rollback": "wait", "max_wait_ms": 3},
        [(ms(100), N), (ms(97), N), (ms(96.9), N), (ms(97.5), N), (ms(100), N)],
    )

    # --- rollback: default ----------------------------------------------
    script(
        "default strategy without a clock field: wait up to 5 ms, then error",
        tiny,
        {"node": {"worker": 7}},
        [(ms(100), N), (ms(96), N), (ms(95), N), (ms(94.999), N), (ms(100), N)],
    )
    script(
        "default strategy with a clock field: wait up to 5 ms, then bump the clock",
        clk2,
        {"node": {"worker": 7}},
        [
            (ms(100), N),
            (ms(97), N),
            (ms(95), N),
            (ms(94), N),
            (ms(94), N),
            (ms(100), N),
        ],
    )
    script(
        "default preset (clock field): a 10 ms step back bumps the clock",
        {"preset": "default"},
        {"node": {"worker": 9}},
        [
            (1704067300000000, N),
            (1704067299990000, N),
            (1704067299990000, N),
            (1704067299996000, N),
        ],
    )
    script(
        "twitter (no clock field): default strategy errs beyond 5 ms",
        {"preset": "twitter"},
        {"node": {"datacenter": 2, "worker": 3}},
        [
            (1700000000000000, N),
            (1699999999995000, N),
            (1699999999994000, N),
            (1700000000000000, N),
        ],
    )

    # --- rollback: clock ------------------------------------------------
    script(
        "rollback clock: bump, reuse only once the clock passed the last time",
        clk2,
        {"node": {"worker": 1}, "rollback": "clock"},
        [
            (ms(100), N),
            (ms(90), N),
            (ms(91), N),
            (ms(50), N),
            (ms(40), N),
            (ms(30), N),
            (ms(60), N),
            (ms(55), N),
            (ms(56), N),
            (ms(101), N),
            (ms(95), N),
        ],
    )
    script(
        "rollback clock: one-bit clock wraps back to 0",
        clk1,
        {"node": {"worker": 2}, "rollback": "clock"},
        [
            (ms(10), N),
            (ms(5), N),
            (ms(4), N),
            (ms(11), N),
            (ms(8), N),
            (ms(12), N),
            (ms(11), N),
        ],
    )
    script(
        "rollback clock: no clock value free",
        clk1,
        {"node": {"worker": 2}, "rollback": "clock"},
        [(ms(10), N), (ms(5), N), (ms(3), N), (ms(6), N), (ms(5.5), N)],
    )
    script(
        "rollback clock with max_wait: short steps wait, long ones bump",
        clk2,
        {"node": {"worker": 3}, "rollback": "clock", "max_wait_ms": 2},
        [(ms(300), N), (ms(298.5), N), (ms(298), N), (ms(297.999), N), (ms(298), N)],
    )
    script(
        "rollback clock: a batch after a bump",
        clk2,
        {"node": {"worker": 3}, "rollback": "clock"},
        [(ms(300), "next_ids", 2), (ms(200), "next_ids", 5)],
    )

    # --- time exhaustion -------------------------------------------------
    tt = ref_spec("time:4@1ms,worker:2,seq:2", E)
    script(
        "time field exhausted (4-bit time)",
        tt,
        {"node": {"worker": 1}, "rollback": "error"},
        [(ms(14), N), (ms(15), N), (ms(15.9), N), (ms(16), N), (ms(1000), N)],
    )
    script(
        "borrowing past the last tick is TimeExhausted",
        tt,
        {"node": {"worker": 1}, "rollback": "borrow", "max_drift_ms": 3},
        [(ms(14), "next_ids", 6), (ms(15), "next_ids", 4), (ms(15), N)],
    )
    script(
        "batch: partial, stops with TimeExhausted",
        tt,
        {"node": {"worker": 1}, "rollback": "borrow", "max_drift_ms": 2},
        [(ms(15), "next_ids", 6)],
    )

    # --- other layouts --------------------------------------------------
    script(
        "generation with seq above the node field",
        ref_spec("time:41@1ms,seq:12,region:4,host:6", E),
        {"node": {"region": 2, "host": 63}, "rollback": "error"},
        [(ms(1), N), (ms(1), N), (ms(2), N)],
    )
    script(
        "seconds unit: sequence exhausted means waiting for the next second",
        ref_spec("time:32@1s,worker:16,seq:1", E),
        {"node": {"worker": 65535}, "rollback": "error"},
        [(ms(1500), N), (ms(1500), N), (ms(1500), N), (ms(1999.999), N), (ms(2000), N)],
    )
    script(
        "microsecond unit (100us)",
        ref_spec("time:48@100us,worker:3,seq:1", E),
        {"node": {"worker": 5}, "rollback": "wait"},
        [
            (ms(1.01), N),
            (ms(1.05), N),
            (ms(1.05), N),
            (ms(1.1), N),
            (ms(1.03), N),
            (ms(1.3), "next_ids", 3),
        ],
    )
    script(
        "max_drift rounds down to whole ticks (10 ms ticks, 15 ms drift)",
        ref_spec("time:39@10ms,seq:1,machine:16", E),
        {"node": {"machine": 7}, "rollback": "error", "max_drift_ms": 15},
        [(ms(100), "next_ids", 5), (ms(105), N)],
    )
    script(
        "64-bit layout: IDs above 2^63",
        ref_spec("time:41@1ms,worker:11,seq:12", "0"),
        {"node": {"worker": 2047}, "rollback": "error"},
        [
            (1704067200123000, N),
            (1704067200123000, N),
            (1704067200124000, "next_ids", 2),
        ],
    )
    script(
        "node value 0 and the largest node values",
        ref_spec("time:41@1ms,datacenter:5,worker:5,seq:12", E),
        {"node": {"datacenter": 0, "worker": 31}, "rollback": "error"},
        [(ms(3), N)],
    )

    # --- creation errors ------------------------------------------------
    bad("missing node value", {"preset": "twitter"}, {"node": {"worker": 1}})
    bad("no node values at all", {"preset": "default"}, {"node": {}})
    bad(
        "node value above the field max",
        {"preset": "twitter"},
        {"node": {"datacenter": 32, "worker": 1}},
    )
    bad(
        "node value far above the field max",
        {"preset": "default"},
        {"node": {"worker": 100000}},
    )
    bad(
        "unknown node field",
        {"preset": "twitter"},
        {"node": {"datacenter": 1, "worker": 1, "shard": 1}},
    )
    bad(
        "a value for the seq field is not a node value",
        {"preset": "discord"},
        {"node": {"worker": 1, "process": 1, "seq": 1}},
    )
    bad(
        "clock strategy without a clock field",
        {"preset": "twitter"},
        {"node": {"datacenter": 1, "worker": 1}, "rollback": "clock"},
    )
    return out


# --------------------------------------------------------------------------

DURATION_MAX_MS = {"max_wait": 86400000, "max_drift": 86400000, "state_reserve": 3600000}
DURATION_MIN_MS = {"state_reserve": 1}


def duration_cases():
    """Duration options: rounded UP to the next whole ms, zero stays zero;
    negative or past the option's maximum is InvalidArgument."""
    out = []

    def case(desc, option, seconds, nanos):
        assert 0 <= nanos <= 999_999_999
        c = {"description": desc, "option": option, "seconds": str(seconds), "nanos": nanos}
        total_ns = seconds * 1_000_000_000 + nanos
        ms = -(-total_ns // 1_000_000)  # ceiling
        if total_ns < 0 or ms > DURATION_MAX_MS[option] or ms < DURATION_MIN_MS.get(option, 0):
            c["error"] = "InvalidArgument"
        else:
            c["ms"] = str(ms)
        out.append(c)

    case("zero stays zero", "max_wait", 0, 0)
    case("1 ns rounds up to 1 ms", "max_wait", 0, 1)
    case("500 us rounds up to 1 ms", "max_wait", 0, 500_000)
    case("1 us rounds up to 1 ms", "max_wait", 0, 1_000)
    case("exactly 1 ms", "max_wait", 0, 1_000_000)
    case("1.000001 ms rounds up to 2 ms", "max_wait", 0, 1_000_001)
    case("1.001 ms rounds up to 2 ms", "max_wait", 0, 1_001_000)
    case("999.999999 ms rounds up to 1 s", "max_wait", 0, 999_999_999)
    case("1.5 s is 1500 ms", "max_wait", 1, 500_000_000)
    case("max_wait at its maximum, 1 day", "max_wait", 86400, 0)
    case("max_wait 1 day + 1 ns is past the maximum", "max_wait", 86400, 1)
    case("max_wait 1 day + 1 ms is past the maximum", "max_wait", 86400, 1_000_000)
    case("max_wait of a year is past the maximum", "max_wait", 31_536_000, 0)
    case("max_wait negative by 1 ns", "max_wait", -1, 999_999_999)
    case("max_wait negative by 1 us", "max_wait", -1, 999_999_000)
    case("max_wait negative by 1 s", "max_wait", -1, 0)
    case("max_drift zero stays zero", "max_drift", 0, 0)
    case("max_drift 500 us rounds up to 1 ms", "max_drift", 0, 500_000)
    case("max_drift 2.5 ms rounds up to 3 ms", "max_drift", 0, 2_500_000)
    case("max_drift at its maximum, 1 day", "max_drift", 86400, 0)
    case("max_drift 1 day + 1 us is past the maximum", "max_drift", 86400, 1_000)
    case("max_drift negative by 1 ms", "max_drift", -1, 999_000_000)
    case("state_reserve 0 is refused: no default hides in 0", "state_reserve", 0, 0)
    case("state_reserve 1 ns rounds up to 1 ms", "state_reserve", 0, 1)
    case("state_reserve 500 us rounds up to 1 ms, not 0 (the default 1 s)", "state_reserve", 0, 500_000)
    case("state_reserve at its maximum, 1 hour", "state_reserve", 3600, 0)
    case("state_reserve 1 hour + 1 ns is past the maximum", "state_reserve", 3600, 1)
    case("state_reserve 1 hour + 1 ms is past the maximum", "state_reserve", 3600, 1_000_000)
    case("state_reserve negative by 1 ms", "state_reserve", -1, 999_000_000)
    return out


# --------------------------------------------------------------------------
# String forms of an ID (the header's "String forms")
# --------------------------------------------------------------------------

# Each alphabet in ASCII order, so that fixed-width texts sort as the IDs do.
ALPHABETS = {
    "dec": "0123456789",
    "hex": "0123456789abcdef",
    "base32": "0123456789ABCDEFGHJKMNPQRSTVWXYZ",  # Crockford: no I, L, O, U
    "base36": "0123456789abcdefghijklmnopqrstuvwxyz",
    "base58": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",  # Bitcoin
    "base62": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",  # CosId
}
ANY_CASE = {"hex", "base36"}  # base32 too, with Crockford's aliases
CROCKFORD_READS = {"I": "1", "L": "1", "O": "0"}
ID_LIMIT = 1 << 64


class Refused(Fail):
    """A failed format or parse, with the strings its message must hold."""

    def __init__(self, *has: str):
        super().__init__("InvalidArgument", ", ".join(has))
        self.has = has


def digits_of(number: int, alphabet: str) -> str:
    """Any number (2^64 too) in the alphabet, without padding."""
    text = alphabet[number % len(alphabet)]
    while number >= len(alphabet):
        number //= len(alphabet)
        text = alphabet[number % len(alphabet)] + text
    return text


def width(encoding: str) -> int:
    """The fixed width: the length of the largest ID's text."""
    return len(digits_of(ID_LIMIT - 1, ALPHABETS[encoding]))


# The encodings whose default form (no padding asked for or refused) is the
# shortest: dec, the text JSON and every API print. The others exist to sort
# as text, so their default is the fixed width.
SHORTEST_BY_DEFAULT = {"dec"}


def id_to_text(id_: int, encoding: str, shortest: bool | None = False) -> str:
    """`shortest` None: the encoding's default form."""
    if encoding not in ALPHABETS:
        raise Refused(encoding, *ALPHABETS)
    assert 0 <= id_ < ID_LIMIT
    if shortest is None:
        shortest = encoding in SHORTEST_BY_DEFAULT
    alphabet = ALPHABETS[encoding]
    text = digits_of(id_, alphabet)
    return text if shortest else text.rjust(width(encoding), alphabet[0])


def text_to_id(text: str, encoding: str) -> int:
    """What the core's parse gives, or Refused naming what its message says:
    the length, then each byte in turn (position counted in bytes from 0)."""
    if encoding not in ALPHABETS:
        raise Refused(encoding, *ALPHABETS)
    alphabet, data = ALPHABETS[encoding], text.encode()
    if not data:
        raise Refused("empty", encoding)
    if len(data) > width(encoding):
        raise Refused(f"at most {width(encoding)}")
    number = 0
    for at, byte in enumerate(data):
        c = chr(byte)
        if encoding == "base32":
            c = CROCKFORD_READS.get(c.upper(), c.upper())
        elif encoding in ANY_CASE:
            c = c.lower()
        if c not in alphabet:
            if byte == 0:
                raise Refused("NUL", f"position {at}")
            if 0x20 <= byte < 0x7F and c not in "'\\":  # shown as is in the message
                raise Refused(f"'{chr(byte)}'", f"position {at}")
            raise Refused(f"position {at}")
        number = number * len(alphabet) + alphabet.index(c)
    if number >= ID_LIMIT:
        raise Refused("2^64 - 1", id_to_text(ID_LIMIT - 1, encoding))
    return number


def encoding_cases():
    """Formatting both ways, parsing (case, aliases, padding), and every way a
    text or an encoding name is refused; the documented texts of tsid-creator
    and CosId are asserted as given by their sources."""
    out = []

    def both(desc, enc, id_, documented=None):
        fixed, shortest = id_to_text(id_, enc), id_to_text(id_, enc, shortest=True)
        default = id_to_text(id_, enc, shortest=None)
        if documented is not None:
            assert documented in (fixed, shortest), (desc, fixed, documented)
        assert text_to_id(fixed, enc) == id_ == text_to_id(shortest, enc), desc
        out.append(
            {
                "description": desc,
                "encoding": enc,
                "id": str(id_),
                "default": default,
                "fixed": fixed,
                "shortest": shortest,
            }
        )

    def parses(desc, enc, text, documented=None):
        id_ = text_to_id(text, enc)
        assert documented is None or id_ == documented, (desc, id_, documented)
        out.append({"description": desc, "encoding": enc, "text": text, "id": str(id_)})

    def refused(desc, enc, text, *has):
        """`has`: some of the strings the model says the message holds (all by default)."""
        try:
            text_to_id(text, enc)
        except Refused as e:
            assert set(has) <= set(e.has), (desc, has, e.has)
            out.append(
                {
                    "description": desc,
                    "encoding": enc,
                    "text": text,
                    "error": e.kind,
                    "message_has": list(has or e.has),
                }
            )
        else:
            raise AssertionError(desc)

    def unknown(desc, enc, id_, *has):
        try:
            id_to_text(id_, enc)
        except Refused as e:
            assert set(has) <= set(e.has), (desc, has, e.has)
            out.append(
                {
                    "description": desc,
                    "encoding": enc,
                    "id": str(id_),
                    "error": e.kind,
                    "message_has": list(has or e.has),
                }
            )
        else:
            raise AssertionError(desc)

    # --- the same cases in every encoding ----------------------------------
    for enc, alphabet in ALPHABETS.items():
        base, zero, top = len(alphabet), alphabet[0], alphabet[-1]
        one, five = id_to_text(1, enc, shortest=True), id_to_text(5, enc, shortest=True)
        both(f"{enc}: 0 is the alphabet's zero, padded", enc, 0)
        both(f"{enc}: 1", enc, 1)
        both(f"{enc}: the last one-digit value", enc, base - 1)
        both(f"{enc}: the first two-digit value", enc, base)
        both(f"{enc}: the Discord ID of decode.json", enc, 175928847299117063)
        both(f"{enc}: 2^63 - 1, the largest signed 64-bit value", enc, (1 << 63) - 1)
        both(f"{enc}: 2^63, the top bit set", enc, 1 << 63)
        both(f"{enc}: 2^64 - 1, the largest ID", enc, ID_LIMIT - 1)
        parses(f"{enc}: the shortest form of 2^64 - 1 parses", enc, id_to_text(ID_LIMIT - 1, enc, shortest=True))
        parses(f"{enc}: leading zeros are the padding", enc, id_to_text(base, enc))
        parses(f"{enc}: a few leading zeros, not the full padding", enc, zero * 3 + five)
        refused(f"{enc}: empty text", enc, "")
        refused(f"{enc}: one character past the fixed width", enc, zero * (width(enc) + 1))
        past = digits_of(ID_LIMIT, alphabet)
        # base32's 2^64 is tsid-creator's G000000000000, below with its source.
        if len(past) == width(enc) and enc != "base32":
            refused(f"{enc}: 2^64, one past the largest ID", enc, past)
        if base ** width(enc) > ID_LIMIT:
            refused(f"{enc}: the fixed width of the top digit, past 2^64 - 1", enc, top * width(enc), "2^64 - 1")
        refused(f"{enc}: a NUL byte inside", enc, f"{five}\0{one}")
        refused(f"{enc}: a space after the ID", enc, f"{one} ")
        refused(f"{enc}: a sign before the ID", enc, f"-{one}")
        refused(f"{enc}: a non-ASCII character", enc, f"é{one}")

    # --- what one encoding accepts or refuses -----------------------------
    refused("dec: a plus sign", "dec", "+1")
    parses("dec: the padded 20-digit form", "dec", "00000000000000000042", 42)
    refused("dec: a decimal point", "dec", "1.5")
    parses("hex: upper case parses", "hex", "FFFFFFFFFFFFFFFF", ID_LIMIT - 1)
    parses("hex: mixed case parses", "hex", "00000000DeadBeef", 0xDEADBEEF)
    refused("hex: a 0x prefix is not hex", "hex", "0x1f")
    refused("hex: g is past f", "hex", "00g")
    parses("base32: lower case parses (Crockford)", "base32", "0aryzvzxw377r", 388400145978465528)
    parses("base32: O reads as 0 (Crockford)", "base32", "OARYZVZXW377R", 388400145978465528)
    parses("base32: I reads as 1 (Crockford)", "base32", "000000000000I", 1)
    parses("base32: l reads as 1 (Crockford)", "base32", "000000000000l", 1)
    parses("base32: i, L and o read as 1, 1, 0 (Crockford)", "base32", "iLo", 0b00001_00001_00000)
    refused("base32: U is not in Crockford's alphabet", "base32", "0U")
    refused("base32: a hyphen is refused", "base32", "0ARY-ZVZX")
    parses("base36: upper case parses", "base36", "3W5E11264SGSF", ID_LIMIT - 1)
    refused("base36: an underscore", "base36", "a_b")
    for c in "0OIl":
        refused(f"base58: '{c}' is not in the Bitcoin alphabet", "base58", f"2{c}")
    for enc in ("base58", "base62"):
        for c in "Zz":
            parses(f"{enc}: upper and lower case differ ({c})", enc, c)
    refused("base62: a hyphen", "base62", "abc-")

    # --- the texts of tsid-creator and CosId, as their sources give them ---
    tsid = 393826547217232108
    both("base32: tsid-creator's 10 is 000000000000A (TsidTest.testToString2)", "base32", 10, "000000000000A")
    parses(
        "base32: tsid-creator's FZZZZZZZZZZZZ is 0xffffffffffffffff (TsidTest.testFromString2)",
        "base32",
        "FZZZZZZZZZZZZ",
        0xFFFFFFFFFFFFFFFF,
    )
    refused(
        "base32: tsid-creator refuses G000000000000, the 65th bit (TsidTest.testFromString2)",
        "base32",
        "G000000000000",
        "2^64 - 1",
    )
    both("base32: tsid-creator's TSID 0AXS751X00W7C (README, Tsid.encode javadoc)", "base32", tsid, "0AXS751X00W7C")
    both(
        "base62: tsid-creator's encode(62) of 0AXS751X00W7C is 0T5jFDIkmmy (README, Tsid.encode javadoc)",
        "base62",
        tsid,
        "0T5jFDIkmmy",
    )
    both(
        "base32: 388400145978465528 is 0ARYZVZXW377R (the README of odan/tsid, tsid-creator's PHP port)",
        "base32",
        388400145978465528,
        "0ARYZVZXW377R",
    )
    both(
        "base62: CosId's 266300479548424192 is JferHIEYZk, padded 0JferHIEYZk (cosid-jackson docs)",
        "base62",
        266300479548424192,
        "JferHIEYZk",
    )
    both("base62: CosId's 100 padded is 0000000001c (AsStringTest.serializeRadix)", "base62", 100, "0000000001c")
    both("base62: CosId's 200 padded is 0000000003E (AsStringTest.serializeRadix)", "base62", 200, "0000000003E")
    for id_, text in ((35, "Z"), (36, "a"), (3843, "zz"), (3844, "100")):
        both(f"base62: CosId's {id_} is {text} (RadixIdConverterTest.radix62ShouldRoundTrip)", "base62", id_, text)
    refused(
        "base62: CosId refuses zzzzzzzzzzz as an overflow (Radix62IdConverterTest)", "base62", "zzzzzzzzzzz", "2^64 - 1"
    )
    parses(
        "base62: AzL8n0Y58m8, CosId's signed-long overflow, is 2^63 here (RadixIdConverterTest)",
        "base62",
        "AzL8n0Y58m8",
        1 << 63,
    )

    # --- encoding names -----------------------------------------------------
    unknown("format: base64 is not an encoding", "base64", 1, "base64", "base62")
    unknown("format: names are lower case", "BASE62", 1, "BASE62")
    refused("parse: base64 is not an encoding", "base64", "1", "base64", "base62")
    refused("parse: names are lower case", "Hex", "1", "Hex")

    assert all(sorted(a) == list(a) for a in ALPHABETS.values()), "alphabets in ASCII order"
    return out


# --------------------------------------------------------------------------
# The binding contract (the header's "Binding contract"): options by name, the layout trio, node
# values, a closed generator, and the tables every binding walks
# --------------------------------------------------------------------------

# The options, in the core's table order: name -> (type, choices).
OPTIONS = {
    "rollback": ("choice", ["default", "error", "wait", "clock", "borrow", "switch"]),
    "max_wait": ("duration", None),
    "max_drift": ("duration", None),
    "random_start": ("bool", None),
    "time_source": ("choice", ["wall", "monotonic", "counter"]),
    "state_dir": ("path", None),
    "state_reserve": ("duration", None),
    "guard": ("bool", None),
    "lease_duration": ("duration", None),
    "lease_key": ("text", None),
}
STATUS_NAMES = ["Ok", "InvalidLayout", "InvalidArgument", "ClockMovedBackwards",
                "TimeExhausted", "GeneratorForked", "WorkerUnavailable",
                "StateError", "Wait", "OutOfMemory", "LeaseExpired"]
ERROR_STATUSES = [n for n in STATUS_NAMES if n not in ("Ok", "Wait")]
STATS_KEYS = ["ids_issued", "waits", "borrowed_ticks", "rollbacks", "rollbacks_waited",
              "rollbacks_refused", "clock_bumps", "node_switches", "last_time_ms",
              "clock", "rollback", "max_wait_ms", "max_drift_ms", "node",
              "node_sources", "guard"]
DESCRIBE_KEYS = ["name", "spec", "epoch_ms", "unit_us", "total_bits", "ids_per_second",
                 "node_capacity", "time_end_ms", "max_id", "fields"]
FIELD_KEYS = ["name", "kind", "bits", "shift", "max"]
# The core's refusal of decode, encode or range with no layout named
# (sfc_layout_resolve_for_ids), word for word: every binding that takes the
# trio gives it as it is.
NO_LAYOUT_MESSAGE = (
    "no layout given: name the one the IDs were made with (a preset, or a layout "
    "spec with its epoch); an ID read under another layout gives a believable "
    "wrong answer, so none is assumed"
)
# The warnings cases were decided on this day: their outcomes hold on every
# later one (see warned() in contract_cases).
WARNINGS_DECIDED_MS = 1795910400000  # 2026-11-29T00:00:00Z
TEN_YEARS_MS = 3652 * 86400000  # the core's "within ten years"


def duration_text_ns(text: str):
    """The model of a duration given as text: "250", "250ms", "1.5s", "800us"."""
    import re
    m = re.fullmatch(r"(\d*)(?:\.(\d+))?(ms|s|us)?", text)
    if not m or not (m.group(1) or m.group(2)):
        return None
    unit_ns = {"ms": 10**6, "s": 10**9, "us": 10**3, None: 10**6}[m.group(3)]
    from fractions import Fraction
    value = Fraction(m.group(1) or "0") + (Fraction(int(m.group(2)), 10 ** len(m.group(2))) if m.group(2) else 0)
    ns = value * unit_ns
    return -(-ns.numerator // ns.denominator)  # a fraction of a ns rounds up


def option_outcome(name: str, value):
    """The model of sfc_options_set: the ms/choice/flag set, or an error."""
    kind, choices = OPTIONS[name]
    if value is None:
        return ("default", None)
    if kind == "bool":
        if isinstance(value, bool):
            return ("ok", value)
        if value in ("true", "false"):
            return ("ok", value == "true")
        return ("error", None)
    if kind == "choice":
        return ("ok", value) if isinstance(value, str) and value in choices else ("error", None)
    if kind == "path":
        return ("ok", value) if isinstance(value, str) and value and "\0" not in value else ("error", None)
    # duration
    if isinstance(value, bool):
        return ("error", None)
    if isinstance(value, int):
        ns = value * 10**6
    elif isinstance(value, float):
        from fractions import Fraction
        ns = Fraction(value) * 10**6
        ns = -(-ns.numerator // ns.denominator)
    elif isinstance(value, str):
        ns = duration_text_ns(value)
        if ns is None:
            return ("error", None)
    else:
        return ("error", None)
    ms = -(-ns // 10**6)
    if ns < 0 or ms > DURATION_MAX_MS[name] or ms < DURATION_MIN_MS.get(name, 0):
        return ("error", None)
    return ("ok", ms)


def strategy_stats(rollback: str, has_clock: bool, max_wait=None, max_drift=None):
    """The model of the strategy in force: rollback, max_wait_ms, max_drift_ms."""
    r = rollback
    if r == "default":
        r = "clock" if has_clock else "wait"
        if max_wait is None:
            max_wait = 5
    if r == "switch" and max_wait is None:
        max_wait = 5
    if max_wait is None:
        max_wait = 1000 if r in ("wait", "borrow") else 0
    if max_drift is None:
        max_drift = 1000 if r == "borrow" else 0
    return {"rollback": r, "max_wait_ms": str(max_wait), "max_drift_ms": str(max_drift)}


def contract_cases():
    """One rule per policy for every language: options set by name from a
    language's value, the preset/layout/epoch trio, node values, a closed
    generator, and the names of the tables bindings walk."""
    out = []
    base_node = {"datacenter": 1, "worker": 1}  # the twitter preset, no clock field

    def option(desc, name, value, rollback="default", terms=None):
        c = {"description": desc, "option": name, "value": value}
        result, got = option_outcome(name, value)
        if result == "error":
            c["error"] = "InvalidArgument"
            if terms:
                c["message_in_terms"] = terms
            out.append(c)
            return
        assert not terms, "message_in_terms goes with an error"
        if name in ("max_wait", "max_drift") or name == "rollback":
            wait = got if name == "max_wait" and result == "ok" else None
            drift = got if name == "max_drift" and result == "ok" else None
            r = got if name == "rollback" and result == "ok" else rollback
            c["stats"] = strategy_stats(r, False, wait, drift)
        elif name == "guard":
            c["stats"] = {"guard": "off"} if got is False else {}
        else:
            c["stats"] = {}
        out.append(c)

    option("max_wait 5 ms as a whole number", "max_wait", 5)
    option("max_wait 0 ms: do not wait", "max_wait", 0)
    option("max_wait 2.5 ms rounds up to 3 ms", "max_wait", 2.5)
    option("max_wait as text with a unit: 1.5s", "max_wait", "1.5s")
    option("max_wait as text: 250us rounds up to 1 ms", "max_wait", "250us")
    option("max_wait as text without a unit is ms", "max_wait", "40")
    # message_in_terms: the core's message as each caller names the options
    # (sfc_text_in_terms): snake_case, camelCase, or the command line's flag.
    option("max_wait -1 is refused: no default hides in a negative number", "max_wait", -1,
           terms={"snake": "max_wait must not be negative", "camel": "maxWait must not be negative"})
    option("max_wait past its maximum of 1 day", "max_wait", 86400001)
    option("max_wait none: the strategy's default", "max_wait", None)
    option("max_wait true is not a duration", "max_wait", True)
    option("max_wait as text that is no duration", "max_wait", "soon")
    option("max_wait as text with an unknown unit", "max_wait", "5m")
    option("max_drift 10 ms", "max_drift", 10)
    option("max_drift -5 is refused", "max_drift", -5)
    option("rollback borrow: its defaults 1000 ms", "rollback", "borrow")
    option("rollback error", "rollback", "error")
    option("rollback by an unknown name", "rollback", "sometimes")
    option("rollback by number is refused", "rollback", 3)
    option("rollback none: the default strategy", "rollback", None)
    option("guard false: no guard", "guard", False)
    option("guard as text false", "guard", "false")
    option("guard 0 is not false: only true or false", "guard", 0)
    option("guard none: the default, on", "guard", None)
    option("random_start true", "random_start", True)
    option("random_start 1 is not true", "random_start", 1)
    option("time_source monotonic", "time_source", "monotonic")
    option("time_source counter", "time_source", "counter")
    option("time_source by an unknown name", "time_source", "solar")
    option("state_reserve 0 is refused", "state_reserve", 0,
           terms={"snake": "state_reserve must be at least 1 ms",
                  "camel": "stateReserve must be at least 1 ms"})
    option("state_reserve past its maximum of 1 hour", "state_reserve", 3600001)
    option("state_reserve 250 ms", "state_reserve", 250)
    option("state_dir as a number is refused", "state_dir", 5)
    out.append({"description": "an unknown option is refused, not ignored",
                "option": "max_waits", "value": 5, "error": "InvalidArgument",
                "message_in_terms": {
                    "snake": "unknown option 'max_waits': did you mean max_wait? (the options are "
                             "rollback, max_wait, max_drift, random_start, time_source, state_dir, "
                             "state_reserve,",
                    "camel": "unknown option 'maxWaits': did you mean maxWait? (the options are "
                             "rollback, maxWait, maxDrift, randomStart, timeSource, stateDir, "
                             "stateReserve,"}})

    def layout(desc, args, node, expect=None, error=None):
        c = {"description": desc, "args": args, "node": node}
        if error:
            c["error"] = error
        else:
            if "layout_object" in args:
                lay = resolve(args["layout_object"])
            elif "layout" in args:
                lay = resolve({"spec": args["layout"], "epoch": args["epoch"]})
            else:
                lay = resolve({"preset": args.get("preset", "default")})
            c["describe"] = {"name": expect, "spec": lay.canonical_spec(),
                             "epoch_ms": str(lay.epoch_ms)}
        out.append(c)

    spec = "time:41@1ms,worker:10,seq:12"
    layout("nothing given: the default preset", {}, {"worker": 1}, "default")
    layout("a preset", {"preset": "twitter"}, base_node, "twitter")
    layout("a layout with its epoch as Unix ms", {"layout": spec, "epoch": "1704067200000"},
           {"worker": 1}, None)
    layout("a layout with its epoch as an ISO-8601 date", {"layout": spec, "epoch": "2024-01-01"},
           {"worker": 1}, None)
    layout("a preset's own spec and epoch make that preset",
           {"layout": "time:41@1ms,datacenter:5,worker:5,seq:12", "epoch": "1288834974657"},
           base_node, "twitter")
    layout("a preset with an epoch is refused: a preset carries its epoch",
           {"preset": "twitter", "epoch": "1704067200000"}, base_node, error="InvalidArgument")
    layout("a preset and a layout together are refused",
           {"preset": "twitter", "layout": spec}, base_node, error="InvalidArgument")
    layout("a layout without its epoch is refused", {"layout": spec}, {"worker": 1},
           error="InvalidArgument")
    layout("an unknown preset", {"preset": "nope"}, {"worker": 1}, error="InvalidLayout")
    layout("an invalid layout", {"layout": "time:41@1ms,seq:12,worker:0", "epoch": "0"},
           {"worker": 1}, error="InvalidLayout")
    layout("an epoch that is no time", {"layout": spec, "epoch": "yesterday"}, {"worker": 1},
           error="InvalidLayout")
    layout("a layout object alone", {"layout_object": {"preset": "sonyflake"}}, {"machine": 1},
           "sonyflake")
    layout("a layout object of a spec", {"layout_object": {"spec": spec, "epoch": "2024-01-01"}},
           {"worker": 1}, None)
    layout("a layout object with an epoch is refused: it carries its own",
           {"layout_object": {"preset": "twitter"}, "epoch": "1704067200000"}, base_node,
           error="InvalidArgument")
    layout("a layout object with a preset is refused",
           {"layout_object": {"spec": spec, "epoch": "2024-01-01"}, "preset": "twitter"},
           {"worker": 1}, error="InvalidArgument")

    def node(desc, args, value, stats=None, error=None, terms=None):
        c = {"description": desc, "args": args, "node": value}
        if error:
            c["error"] = error
            if terms:
                c["message_in_terms"] = terms
        else:
            c["stats"] = stats
        out.append(c)

    one = {"layout": spec, "epoch": "1704067200000"}
    node("one value for the only node field", one, 3,
         {"node": {"worker": 3}, "node_sources": {"worker": "explicit"}})
    node("a value as decimal text", one, "12",
         {"node": {"worker": 12}, "node_sources": {"worker": "explicit"}})
    node("values by name", {"preset": "twitter"}, {"datacenter": 2, "worker": 31},
         {"node": {"datacenter": 2, "worker": 31},
          "node_sources": {"datacenter": "explicit", "worker": "explicit"}})
    # One value for the only node field: the message shows it as given, no
    # field name made up for it.
    negative = "node value -1 is negative: give 0 to the field's maximum"
    node("a negative value is refused", one, -1, error="InvalidArgument",
         terms={"snake": negative, "camel": negative})
    node("-2 is a number, not the host name", one, -2, error="InvalidArgument")
    # A sign on text is refused, never read as the number after it.
    for text in ("-0", "+3"):
        signed = (f"node value {text} has a sign: give the digits alone (0 to the "
                  "field's maximum), \"auto\", \"host\" or \"env:NAME\"")
        node(f"{text} as text has a sign: refused, not read as a number", one, text,
             error="InvalidArgument", terms={"snake": signed, "camel": signed})
    node("a value past the field's width", one, 1024, error="InvalidArgument")
    node("text that is no value", one, "three", error="InvalidArgument")
    node("env:NAME of an unset variable", one, "env:SNOWFLAKE_C_CONTRACT_UNSET",
         error="InvalidArgument")
    node("one value for a layout with two node fields", {"preset": "twitter"}, 3,
         error="InvalidArgument")
    node("a field the layout does not have", one, {"shard": 1}, error="InvalidArgument")
    node("auto without a state folder", one, "auto", error="InvalidArgument",
         terms={"snake": "node value 'auto' needs a state_dir",
                "camel": "node value 'auto' needs a stateDir",
                "flag": "node value 'auto' needs a --state-dir"})

    def warned(desc, spec, epoch, value, guard):
        """A generator's warnings at creation (sfc_generator_warning_at): the
        guard off says Unguarded; a layout whose time field runs out within ten
        years of the day, or has run out, says LayoutEnding."""
        lay = resolve({"spec": spec, "epoch": epoch})
        said = []
        if not guard:
            said.append({"kind": "Unguarded",
                         "message_has": [f"node value warned={value} is not guarded"]})
        end_ms = lay.time_end_us() // 1000
        # Decided for every day from WARNINGS_DECIDED_MS on: a layout that ends
        # within ten years of that day ends within ten years of any later one
        # (or has ended); one that lasts ten years past FAR_FUTURE_MS lasts
        # past any day these vectors are read on.
        if end_ms - WARNINGS_DECIDED_MS < TEN_YEARS_MS:
            said.append({"kind": "LayoutEnding",
                         "message_has": ["time field", iso(end_ms)[:10], "TimeExhausted"]})
        else:
            assert end_ms - FAR_FUTURE_MS >= TEN_YEARS_MS, f"{desc}: its outcome moves with the date"
        out.append({"description": desc, "args": {"layout": spec, "epoch": epoch},
                    "node": {"warned": value}, "guard": guard, "warnings": said})

    centuries = "time:43@1ms,warned:8,seq:12"  # 2^43 ms: 278 years, to 2302
    ended = "time:20@1s,warned:10,seq:12"  # 2^20 s: 12 days, from 2000-01-01
    ending = "time:28@1s,warned:22,seq:13"  # 2^28 s: 8.5 years, from 2023-01-01
    warned("warnings: none for a guarded generator whose layout runs out centuries from now",
           centuries, "1704067200000", 161, True)
    warned("warnings: the guard off says Unguarded, naming the node value",
           centuries, "1704067200000", 162, False)
    warned("warnings: a layout that ran out long ago says LayoutEnding, and its generator starts",
           ended, "946684800000", 163, True)
    warned("warnings: a layout that runs out within ten years says LayoutEnding",
           ending, "1672531200000", 164, True)
    warned("warnings: the guard off and a layout that ran out say both, Unguarded first",
           ended, "946684800000", 165, False)

    for call in ("next_id", "next_ids", "stats"):
        out.append({"description": f"{call} on a closed generator", "call": call,
                    "error": "InvalidArgument"})
    out.append({"description": "closing a closed generator does nothing", "call": "close"})

    # IDs made elsewhere name their layout (sfc_layout_resolve_for_ids): with
    # none, decode, encode and range refuse rather than assume the default
    # preset, under which a Discord ID gives a believable year and worker.
    discord = resolve({"preset": "discord"})
    id_ = 175928847299117063
    time_us, values = discord.decode(id_)
    fields = {n: str(v) for n, v in values.items() if n != "time"}
    t0 = time_us // 1000
    for_ids = {
        "decode": {"id": str(id_)},
        "encode": {"time_ms": str(t0), "fields": fields},
        "range": {"t0_ms": str(t0), "t1_ms": str(t0 + 1)},
    }
    for call, given in for_ids.items():
        out.append({"description": f"{call} with no layout named is refused: none is assumed",
                    "for_ids": call, **given, "error": "InvalidArgument",
                    "message": NO_LAYOUT_MESSAGE})

    out.append({"description": "the options, in the core's table order", "table": "options",
                "names": list(OPTIONS)})
    out.append({"description": "the error kinds", "table": "errors", "names": ERROR_STATUSES})
    out.append({"description": "the keys of a generator's stats", "table": "stats",
                "names": STATS_KEYS})
    out.append({"description": "the keys of a layout's description", "table": "describe",
                "names": DESCRIBE_KEYS})
    out.append({"description": "the keys of each field in a layout's description",
                "table": "fields", "names": FIELD_KEYS})
    return out


# --------------------------------------------------------------------------
# The host-wide claim (the option guard, SFC_OPTION_GUARD in the header): which two generators may run together
# --------------------------------------------------------------------------


# The day these cases were decided: a generator's integers grow with its
# clock, so two whose ranges do not overlap today never will.
CLAIMS_DECIDED_MS = 1795910400000  # 2026-11-29T00:00:00Z
DAY_MS = 86400000


def fixed_bits(lay: Layout, node: dict):
    """The bits every ID of the generator fixes: its node fields' values and
    the zeros above its top (the time field is first, never a node field
    above it)."""
    mask = ((1 << 64) - 1) ^ ((1 << lay.total_bits) - 1)
    value = 0
    for name, kind, width in lay.fields:
        if kind == "node":
            mask |= ((1 << width) - 1) << lay.shifts[name]
            value |= node[name] << lay.shifts[name]
    return mask, value


def integers_from_now(lay: Layout):
    """The integers the layout can issue from the day the cases were decided
    on: from its tick of a day before (the largest step back the claim
    allows for), every other field at zero, up to its largest."""
    tick = (CLAIMS_DECIDED_MS - DAY_MS - lay.epoch_ms) * 1000 // lay.unit_us
    tick = max(0, min(tick, lay.time_max))
    return tick << lay.shifts[lay.fields[0][0]], (1 << lay.total_bits) - 1


def can_meet(a: dict, b: dict) -> bool:
    """Whether some integer could come from both: their fixed bits agree
    wherever both fix one, and their ranges from now on overlap."""
    (la, na), (lb, nb) = [(resolve(x["layout"]), x["node"]) for x in (a, b)]
    (ma, va), (mb, vb) = fixed_bits(la, na), fixed_bits(lb, nb)
    (loa, hia), (lob, hib) = integers_from_now(la), integers_from_now(lb)
    return (va ^ vb) & ma & mb == 0 and loa <= hib and lob <= hia


def claims_cases():
    out = []
    E = "1700000000123"  # an epoch no preset has

    def side(spec, node, guard=True, epoch=E):
        return {"layout": {"spec": spec, "epoch": epoch}, "node": node, "guard": guard}

    def same(first, second):
        return first["layout"] == second["layout"] and first["node"] == second["node"]

    def case(desc, first, second, message=None):
        both = first["guard"] and second["guard"] and can_meet(first, second)
        # The same generator again in one process (a cell or a reload run
        # twice) takes the value over: the first is closed and says so.
        taken_over = both and same(first, second)
        starts = taken_over or not both
        c = {"description": desc, "first": first, "second": second, "second_starts": starts,
             "first_closed": taken_over}
        if taken_over:
            node = ",".join(f"{k}={v}" for k, v in first["node"].items())
            c["closed_message"] = [
                "the generator is closed: a newer generator of this process took node value "
                f"{node} (a cell or a reload run again); use that one"
            ]
        if not starts:
            # Both sides live in one process: the refusal says so.
            c["message"] = message or [
                ",".join(f"{k}={v}" for k, v in second["node"].items()),
                "held by live process",
                ", this process: another of its generators is still open",
                "host-wide claim",
                "close that one first",
            ]
        out.append(c)

    split = "time:41@1ms,datacenter:5,worker:5,seq:12"
    whole = "time:41@1ms,worker:10,seq:12"
    case("claim: the same layout and node values again take the value over, closing the first",
         side(whole, {"worker": 517}), side(whole, {"worker": 517}))
    case("claim: field names do not split it (datacenter 16, worker 5 of 5 + 5 bits is worker 517 of 10)",
         side(split, {"datacenter": 16, "worker": 5}), side(whole, {"worker": 517}))
    case("claim: and the other way round",
         side(whole, {"worker": 517}), side(split, {"datacenter": 16, "worker": 5}))
    case("claim: other node bits are another claim",
         side(split, {"datacenter": 16, "worker": 5}), side(whole, {"worker": 518}))
    case("claim: another epoch is the same integers, 1 ms later",
         side(whole, {"worker": 517}), side(whole, {"worker": 517}, epoch="1700000000124"))
    case("claim: another time unit is the same integers at other times",
         side(whole, {"worker": 517}), side("time:41@10ms,worker:10,seq:12", {"worker": 517}))
    case("claim: a clock field where the other has a node field: its IDs of clock value 0 are the other's",
         side(whole, {"worker": 5}), side("time:41@1ms,clock:3,worker:7,seq:12", {"worker": 5}),
         message=["held by live process", ", this process: another of its generators, of ",
                  "which can issue its integers, is still open", "host-wide claim"])
    case("claim: the node field moved below the sequence is another ID space",
         side("time:39@10ms,seq:8,machine:16", {"machine": 517}),
         side("time:39@10ms,machine:16,seq:8", {"machine": 517}))
    case("claim: a second generator with the guard off starts beside a guarded one",
         side(whole, {"worker": 517}), side(whole, {"worker": 517}, guard=False))
    case("claim: a guarded one starts beside one with the guard off",
         side(whole, {"worker": 517}, guard=False), side(whole, {"worker": 517}))
    case("claim: layouts whose integers cannot meet from now on both run (the second's all lie below the first's of a day ago)",
         side(whole, {"worker": 517}), side("time:31@1s,worker:10,seq:12", {"worker": 517}))
    case("claim: fixed bits that differ where both fix them never meet",
         side(whole, {"worker": 517}), side("time:41@1ms,clock:3,worker:7,seq:12", {"worker": 6}))
    return out


# --------------------------------------------------------------------------
# UUIDv7 (RFC 9562 §5.7)
# --------------------------------------------------------------------------


def iso_any(ms: int) -> str:
    """iso() past year 9999 as well: whole 400-year cycles (146097 days each)
    taken off for datetime and added back to the year, which is then written
    as ISO-8601's expanded year (a sign and at least six digits)."""
    cycles = max(0, (ms // 86400000) // 146097 - 15)
    t = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(
        milliseconds=ms - cycles * 146097 * 86400000
    )
    year = t.year + 400 * cycles
    text = f"{year:04d}" if year <= 9999 else f"+{year:06d}"
    return text + t.strftime("-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def uuid7_model(text: str) -> dict:
    """The decoded UUIDv7 of `text`, or Refused with what its message names."""
    shown = "".join(ch if " " <= ch <= "~" and ch not in "\\'" else f"\\x{ord(ch):02X}" for ch in text[:40])
    shown += "..." if len(text) > 40 else ""
    if len(text) not in (32, 36):
        raise Refused(f"UUID '{shown}'", f"is {len(text)} characters long", "give 36", "or 32 hex digits")
    hyphens = (8, 13, 18, 23) if len(text) == 36 else ()
    for i, ch in enumerate(text):
        if i in hyphens and ch != "-":
            raise Refused(f"UUID '{shown}'", f"at position {i} (counting from 0) where a hyphen goes")
        if i not in hyphens and ch not in "0123456789abcdefABCDEF":
            raise Refused(f"UUID '{shown}'", f"at position {i} (counting from 0), which is not a hex digit")
    value = int(text.replace("-", ""), 16)
    version, variant = (value >> 76) & 15, (value >> 62) & 3
    if version != 7:
        raise Refused(f"UUID '{shown}' is a version {version} UUID, not 7")
    if variant != 2:
        raise Refused(f"UUID '{shown}' has variant bits {variant:02b}, not RFC 9562's 10")
    digits = f"{value:032x}"
    canonical = "-".join((digits[:8], digits[8:12], digits[12:16], digits[16:20], digits[20:]))
    ms, rand_a, rand_b = value >> 80, (value >> 64) & 0xFFF, value & (2**62 - 1)
    line = json.dumps(
        {"uuid": canonical, "version": 7, "time_ms": ms, "time": iso_any(ms), "rand_a": rand_a, "rand_b": str(rand_b)},
        separators=(",", ":"),
    )
    return {"uuid": canonical, "time_ms": str(ms), "time": iso_any(ms), "rand_a": rand_a, "rand_b": str(rand_b), "json": line}


def uuid7_cases():
    """Decoded UUIDv7s (RFC 9562's example asserted as published) and every
    way a text is refused."""
    out = []

    def decoded(desc, text, documented_time=None):
        m = uuid7_model(text)
        assert documented_time is None or m["time"] == documented_time, (desc, m["time"])
        out.append({"description": desc, "text": text, **m})

    def refused(desc, text):
        try:
            uuid7_model(text)
        except Refused as e:
            out.append({"description": desc, "text": text, "error": e.kind, "message_has": list(e.has)})
            return
        raise AssertionError(f"{desc}: the model decodes {text!r}")

    decoded(
        "RFC 9562 Appendix A.6 (Example of a UUIDv7 Value): 017F22E2-79B0-7CC3-98C4-DC0C0C07398F "
        "is Tuesday, February 22, 2022 2:22:22.00 PM GMT-05:00 (2022-02-22T19:22:22Z)",
        "017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
        "2022-02-22T19:22:22.000Z",
    )
    decoded("RFC 9562's example in lowercase", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
    decoded("RFC 9562's example as 32 hex digits, no hyphens", "017f22e279b07cc398c4dc0c0c07398f")
    decoded("32 upper-case hex digits, mixed with lower", "017F22E279B07cc398C4DC0c0C07398F")
    decoded("time 0 ms (1970-01-01), every random bit 0", "00000000-0000-7000-8000-000000000000")
    decoded(
        "time 2^48 - 1 ms, the last (year 10889, an expanded ISO-8601 year), every random bit 1",
        "ffffffff-ffff-7fff-bfff-ffffffffffff",
    )
    decoded("variant digit 9: rand_b's top bits 01", "01890a5d-ac96-774b-9cc9-1b7a3b9e5b2e")
    decoded("variant digit a: rand_b's top bits 10", "01890a5d-ac96-774b-acc9-1b7a3b9e5b2e")
    refused("empty text", "")
    refused("35 characters: one digit short", "017f22e2-79b0-7cc3-98c4-dc0c0c07398")
    refused("37 characters: one digit too many", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f0")
    refused("31 hex digits", "017f22e279b07cc398c4dc0c0c07398")
    refused("braces around it: 38 characters", "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}")
    refused("a character that is not hex, named with its position", "017f22e2-79b0-7cc3-98c4-dc0c0c07398g")
    refused("a NUL byte inside", "017f22e2-79b0-7cc3-98c4-dc0c0c07\x0098f")
    refused("a hyphen out of place, a digit where one goes", "017f22e27-9b0-7cc3-98c4-dc0c0c07398f")
    refused("hyphens in a 32-character text", "017f22e2-79b07cc398c4-dc0c0c0739")
    refused("a version 4 UUID", "f47ac10b-58cc-4372-a567-0e02b2c3d479")
    refused("a version 1 UUID", "c232ab00-9414-11ec-b3c8-9f6bdeced846")
    refused("the nil UUID: version 0", "00000000-0000-0000-0000-000000000000")
    refused("version 7 with the NCS variant (digit 7: bits 0x)", "017f22e2-79b0-7cc3-78c4-dc0c0c07398f")
    refused("version 7 with Microsoft's variant (digit c: bits 11)", "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f")
    return out


FILES = {
    "layouts.json": layouts_cases,
    "decode.json": decode_cases,
    "encode.json": encode_cases,
    "range.json": range_cases,
    "generate.json": generate_cases,
    "durations.json": duration_cases,
    "encodings.json": encoding_cases,
    "contract.json": contract_cases,
    "claims.json": claims_cases,
    "uuid7.json": uuid7_cases,
}


def render(cases) -> str:
    return json.dumps(cases, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if a file differs from what the model generates",
    )
    args = ap.parse_args()
    stale = []
    for name, make in FILES.items():
        text = render(make())
        path = VECTORS / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
