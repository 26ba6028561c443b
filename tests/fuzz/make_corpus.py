#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target into tests/fuzz/corpus/<target>/
from the shared vectors (tests/vectors/*.json) and a few hand-made inputs.
Run again after the vectors change; the files are named by content hash."""

import hashlib
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "vectors")
PRESETS = ["default", "twitter", "discord", "sonyflake", "baidu", "instagram", "jssafe"]


def load(name):
    path = os.path.join(VECTORS, name)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def layouts():
    for case in load("layouts.json"):
        if "spec" in case:
            write("layout", case["spec"] + "\n" + str(case.get("epoch", "")))
        elif "preset" in case:
            write("layout", case["preset"])
    for text in [
        "2024-01-01",
        "2024-01-01T00:00:00Z",
        "2024-01-01T00:00:00.000Z",
        "0",
        "-1",
        "99999999999999999999",
        "auto",
        "host",
        "3",
        "borrow",
        "clock",
        "175928847299117063",
        "18446744073709551616",
    ]:
        write("layout", "time:41@1ms,worker:10,seq:12\n" + text)
        write("layout", text)


def layout_byte(layout):
    if "preset" in layout:
        return bytes([PRESETS.index(layout["preset"])]) if layout["preset"] in PRESETS else None
    if layout.get("epoch") not in (None, "1288834974657"):
        return None
    return b"\xff" + layout["spec"].encode() + b"\n"


def decodes():
    for case in load("decode.json"):
        head = layout_byte(case.get("layout", {}))
        if head is None or "id" not in case:
            continue
        try:
            ident = int(case["id"])
        except ValueError:
            continue
        body = struct.pack("<Q", ident & 0xFFFFFFFFFFFFFFFF)
        body += struct.pack("<qq", 1462015105796, 1462015105900)
        write("decode", head + body + b"\x00" * 32 + case["id"].encode())
    for i, _ in enumerate(PRESETS):
        write("decode", bytes([i]) + struct.pack("<Qqq", 175928847299117063, 1704067200000, 1704153600000))
    write("decode", b"\xfftime:41@1ms,worker:11,seq:12\n" + b"\xff" * 24 + b"18446744073709551615")


def clis():
    argsets = [
        ["decode", "--preset", "discord", "--json", "175928847299117063"],
        ["decode", "--preset", "twitter"],
        ["encode", "--preset", "discord", "--time", "1462015105796", "worker=1", "process=0", "seq=7"],
        [
            "encode",
            "--layout",
            "time:41@1ms,worker:10,seq:12",
            "--epoch",
            "2024-01-01",
            "--time",
            "2024-06-01T00:00:00.000Z",
            "worker=3",
            "seq=1",
        ],
        ["range", "--preset", "twitter", "2024-01-01", "2024-01-02"],
        ["range", "--json", "--preset", "sonyflake", "0", "1704067200000"],
        ["layout", "--layout", "time:41@1ms,worker:10,seq:12", "--epoch", "2024-01-01"],
        ["layout", "--json", "--preset", "baidu"],
        ["presets", "--json"],
        ["gen", "--preset", "twitter", "--node", "datacenter=1,worker=3", "--stats"],
        ["gen", "--node", "worker=3", "--rollback", "borrow", "--max-drift", "10", "--random-start", "--json"],
        ["gen", "--node", "worker=auto"],
        ["-V"],
        ["bogus"],
    ]
    for args in argsets:
        write("cli", "\n".join(args))
    write("cli", "decode\n--preset\ndiscord\n--json\x01175928847299117063\n  12 x -5 18446744073709551616\n\t0\r\n")
    write("cli", "decode\n--layout\ntime:39@10ms,seq:8,machine:16\n--epoch\n1409529600000\x01" + "1\n" * 20)


def states():
    def state(layout, epoch, node, mark, clock, last):
        table = " ".join(str(v) for v in last)
        body = (
            f"snowflake-c state 1\nlayout {layout}\nepoch {epoch}\nnode {node}\n"
            f"mark {mark}\nclock {clock}\nlast {table}\n"
        )
        return body.encode()

    spec, epoch = "time:41@1ms,clock:3,worker:7,seq:12", 1704067200000
    now = 60_000_000_000  # a tick count some two years after the epoch
    never = -1  # a clock value never used
    valid = [
        state(spec, epoch, "worker=1", now, 0, [never] * 8),
        state(spec, epoch, "worker=1", now + 3_600_000, 2, [now, now + 10, never, never, 5, 6, 7, 8]),
        state(spec, epoch, "worker=1", 2**41 - 1, 7, [2**41 - 1] * 8),
        state(spec, epoch, "worker=2", now, 0, [never] * 8),
        state("time:41@1ms,worker:10,seq:12", epoch, "worker=1", now, 0, [never]),
    ]
    for body in valid:
        full = body + b"check %016x\n" % fnv1a(body)
        write("state", full)  # as is
        write("state", b"#" + body)  # checksum filled in by the harness
        write("state", full[: len(full) // 2])  # truncated
    write("state", b"")
    write("state", b"\x00\x01garbage")


def routes():
    """Requests of the service (fuzz_routes): METHOD, TARGET, Accept,
    Authorization, one a line; a TARGET starting with '!' needs the token
    s3cret. Every route, the error rows, and the decode vectors' IDs."""
    json_accept = "application/json"
    for target in [
        "/v1/id",
        "/v1/ids?count=3",
        "/v1/ids?count=64&format=base62",
        "/v1/ids?format=hex&count=2",
        "/v1/ids?count=0",
        "/v1/ids?count=65",
        "/v1/ids?count=abc",
        "/v1/ids?count=2&format=nope",
        "/v1/ids?count=99999999999999999999999",
        "/v1/ids",
        "/v1/layout",
        "/healthz",
        "/readyz",
        "/metrics",
        "/",
        "/v1/idz",
        "/v1/decode/",
        "/v1/decode/abc",
        "/v1/decode/5%00garbage",
        "/v1/decode/18446744073709551616",
        "/v1/decode/123?from=nope",
        "/v1/decode/0Czks0tP37X?from=base62",
        "/v1/decode/%31%32%33",
        "/v1/ids?count=%32&format=b%61se36",
    ]:
        write("routes", f"GET\n{target}")
        write("routes", f"GET\n{target}\n{json_accept}")
        write("routes", f"GET\n!{target}\n{json_accept}\nBearer s3cret")
    for method in ["HEAD", "POST", "PUT", "DELETE", ""]:
        write("routes", f"{method}\n/v1/id")
    for auth in ["", "Bearer ", "Bearer s3cre", "Bearer s3cretx", "Basic s3cret", "bearer s3cret"]:
        write("routes", f"GET\n!/v1/id\ntext/plain\n{auth}")
    write("routes", "GET\n!/healthz")
    for case in load("decode.json")[:40]:
        write("routes", "GET\n/v1/decode/" + str(case.get("id", "")) + "\n" + json_accept)


def uuid7s():
    """UUIDs for fuzz_uuid7: every text of the shared UUIDv7 vectors (valid
    and refused), each also without its hyphens, and a few near misses."""
    for case in load("uuid7.json"):
        text = case.get("text")
        if not isinstance(text, str):
            continue
        write("uuid7", text)
        if len(text) == 36:
            write("uuid7", text.replace("-", ""))
    base = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"
    for text in [
        "",
        base.upper(),
        base[:-1],
        base + "0",
        base.replace("-", "", 1),
        base[:8] + "0" + base[9:],
        base[:14] + "4" + base[15:],
        base[:19] + "c" + base[20:],
        base[:20] + "\x00" + base[21:],
        "ffffffff-ffff-7fff-bfff-ffffffffffff",
        "00000000-0000-7000-8000-000000000000",
    ]:
        write("uuid7", text)


def main():
    layouts()
    decodes()
    clis()
    states()
    routes()
    uuid7s()
    for t in ("layout", "decode", "cli", "state", "routes", "uuid7"):
        d = os.path.join(HERE, "corpus", t)
        print(t, len(os.listdir(d)), "seeds", file=sys.stderr)


if __name__ == "__main__":
    main()
