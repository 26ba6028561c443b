"""``python -m snowflake_c``: the snowflake-c command-line tool, in Python.

Same commands, options, output and exit status as the C ``snowflake-c``:
0 on success, 1 on an error from the library, 2 on a usage error; messages
go to standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import NoReturn

from . import Generator, Layout, SnowflakeError, __version__, decode, encode, format_time
from . import range as id_range

PROG = "snowflake-c"

USAGE = """\
usage: python -m snowflake_c COMMAND [OPTIONS] [ARGS]

commands:
  gen      generate IDs:          gen -n 5 --preset twitter --node datacenter=1,worker=3
  decode   split IDs into parts:  decode --preset discord --json 175928847299117063
           (IDs from the arguments, or one per line on standard input)
  encode   build an ID:           encode --preset discord --time 1462015105796 worker=1 process=0 seq=7
  range    smallest and largest ID of a time interval:
                                  range --preset twitter 2024-01-01 2024-01-02
  layout   describe a layout:     layout --layout time:41@1ms,worker:10,seq:12 --epoch 2024-01-01
  presets  list the presets

options:
  --preset NAME      default, twitter, discord, sonyflake, baidu, instagram
                     (default: default)
  --layout SPEC      fields, e.g. time:41@1ms,worker:10,seq:12
  --epoch E          Unix ms or ISO-8601 UTC, with --layout
  --node LIST        node values: worker=3,datacenter=1 (N, auto or host);
                     unset fields come from SNOWFLAKE_<FIELD>
  -n, --count N      IDs to generate (gen; default 1)
  --rollback S       default, error, wait, clock or borrow
  --max-wait MS      longest wait for the clock to catch up
  --max-drift MS     how far IDs may run ahead of the clock
  --random-start     start each tick's sequence at a random value
  --monotonic        use the monotonic clock after start
  --state-dir DIR    lock and state files (needed by auto)
  --time T           the time of encode: Unix ms or ISO-8601 UTC
  --json             canonical JSON, one line per ID
  --stats            print the generator's counters to stderr (gen)
  -h, --help         this text
  -V, --version      the version
"""

COMMANDS = ("gen", "decode", "encode", "range", "layout", "presets")
BATCH = 4096


class UsageError(Exception):
    """A command line that cannot be run (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser() -> _Parser:
    p = _Parser(prog=PROG, add_help=False, allow_abbrev=False)
    p.add_argument("--preset")
    p.add_argument("--layout", dest="spec")
    p.add_argument("--epoch")
    p.add_argument("--node")
    p.add_argument("-n", "--count", type=_count(0, 10**12), default=1)
    p.add_argument("--rollback")
    p.add_argument("--max-wait", type=_count(0, 86_400_000))
    p.add_argument("--max-drift", type=_count(0, 86_400_000))
    p.add_argument("--random-start", action="store_true")
    p.add_argument("--monotonic", action="store_true")
    p.add_argument("--state-dir")
    p.add_argument("--time")
    p.add_argument("--json", action="store_true")
    p.add_argument("--stats", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("args", nargs="*")
    return p


def _count(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.isdigit() or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"takes a whole number from {low} to {high}")
        return int(text)

    return parse


def _layout(opts: argparse.Namespace) -> Layout:
    if opts.preset and opts.spec:
        raise UsageError("give --preset or --layout, not both")
    if opts.spec and not opts.epoch:
        raise UsageError("--layout needs --epoch (Unix ms or ISO-8601 UTC)")
    if opts.epoch and not opts.spec:
        raise UsageError("--epoch goes with --layout")
    if opts.spec:
        return Layout(opts.spec, opts.epoch)
    return Layout.preset(opts.preset or "default")


def _pairs(text: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(","):
        if not item:
            continue
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise UsageError(f"{what} '{item}' is not NAME=VALUE")
        out[name] = value
    return out


def _node_value(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def _parts_line(layout: Layout, ident: int | str, as_json: bool) -> str:
    parts = decode(ident, layout)
    if as_json:
        return parts.to_json()
    iso = format_time(parts.time_ms)
    fields = "".join(f"  {k}={v}" for k, v in parts.fields.items())
    return f"{parts.id}  {iso}{fields}"


def _stats_line(g: Generator) -> str:
    s = g.stats()
    text = " ".join(
        f"{k}={s[k]}"
        for k in (
            "ids_issued",
            "waits",
            "borrowed_ticks",
            "rollbacks",
            "rollbacks_waited",
            "rollbacks_refused",
            "clock_bumps",
            "rollback",
        )
    )
    for name, value in s["node"].items():
        text += f" {name}={value}({s['node_sources'][name]})"
    return text


def _gen(opts: argparse.Namespace, layout: Layout) -> int:
    if opts.args:
        raise UsageError("gen takes no arguments")
    node = {k: _node_value(v) for k, v in _pairs(opts.node, "--node").items()} if opts.node else None
    g = Generator(
        layout=layout,
        node=node,
        rollback=opts.rollback,
        max_wait=opts.max_wait,
        max_drift=opts.max_drift,
        random_start=opts.random_start,
        time_source="monotonic" if opts.monotonic else "wall",
        state_dir=opts.state_dir,
    )
    with g:
        left = opts.count
        out = sys.stdout
        while left > 0:
            ids = g.next_ids(min(left, BATCH))
            if opts.json:
                out.write("".join(decode(i, layout).to_json() + "\n" for i in ids))
            else:
                out.write("\n".join(map(str, ids)) + "\n")
            left -= len(ids)
        if opts.stats:
            print(_stats_line(g), file=sys.stderr)
    return 0


def _tokens(args: Sequence[str]) -> Iterator[str]:
    if args:
        yield from args
        return
    for line in sys.stdin:
        yield from line.split()


def _decode(opts: argparse.Namespace, layout: Layout) -> int:
    rc = 0
    for token in _tokens(opts.args):
        try:
            print(_parts_line(layout, token, opts.json))
        except SnowflakeError as e:
            _fail(e)
            rc = 1
    return rc


def _encode(opts: argparse.Namespace, layout: Layout) -> int:
    if not opts.time:
        raise UsageError("encode needs --time (Unix ms or ISO)")
    fields: dict[str, int] = {}
    for arg in opts.args:
        name, eq, value = arg.partition("=")
        if not eq:
            raise UsageError("encode takes fields as NAME=VALUE")
        fields[name] = int(value) if value.isdigit() else _bad_value(value)
    ident = encode(_time(opts.time), fields, layout=layout)
    print(decode(ident, layout).to_json() if opts.json else ident)
    return 0


def _bad_value(text: str) -> NoReturn:
    from . import InvalidArgument

    raise InvalidArgument(f"'{text}' is not a whole number from 0 to 18446744073709551615")


def _time(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def _range(opts: argparse.Namespace, layout: Layout) -> int:
    if len(opts.args) != 2:
        raise UsageError("range takes two times: T0 T1")
    lo, hi = id_range(_time(opts.args[0]), _time(opts.args[1]), layout=layout)
    print(json.dumps({"min": str(lo), "max": str(hi)}, separators=(",", ":")) if opts.json else f"{lo} {hi}")
    return 0


def _layout_cmd(opts: argparse.Namespace, layout: Layout) -> int:
    if opts.args:
        raise UsageError("layout takes no arguments")
    epoch_iso = format_time(layout.epoch_ms)
    if opts.json:
        doc = {
            "spec": layout.spec,
            "epoch_ms": str(layout.epoch_ms),
            "epoch": epoch_iso,
            "unit_us": str(layout.unit_us),
            "total_bits": layout.total_bits,
            "fields": [
                {"name": f.name, "kind": f.kind, "bits": f.bits, "shift": f.shift, "max": str(f.max)}
                for f in layout.fields
            ],
            "ids_per_second": round(layout.ids_per_second),
            "node_capacity": layout.node_capacity,
            "time_end_ms": str(layout.time_end_ms),
            "time_end": layout.time_end,
            "max_id": str(layout.max_id),
        }
        print(json.dumps(doc, separators=(",", ":")))
        return 0
    print(f"layout          {layout.spec}")
    print(f"epoch           {layout.epoch_ms} ({epoch_iso})")
    print(f"bits            {layout.total_bits}")
    print()
    print(f"{'field':<12} {'kind':<6} {'bits':>5} {'shift':>6}  max")
    for f in layout.fields:
        print(f"{f.name:<12} {f.kind:<6} {f.bits:>5} {f.shift:>6}  {f.max}")
    print()
    print(f"IDs per second  {layout.ids_per_second:.0f} per node")
    print(f"nodes           {layout.node_capacity}")
    print(f"time runs out   {layout.time_end}")
    return 0


def _presets(opts: argparse.Namespace, layout: Layout) -> int:
    from . import presets

    if opts.args:
        raise UsageError("presets takes no arguments")
    for name, lay in presets().items():
        if opts.json:
            print(json.dumps({"name": name, "spec": lay.spec, "epoch_ms": str(lay.epoch_ms)}, separators=(",", ":")))
        else:
            print(f"{name:<10} {lay.spec:<42} {lay.epoch_ms}")
    return 0


def _fail(e: SnowflakeError) -> None:
    print(f"{PROG}: {e.status}: {e}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        sys.stderr.write(USAGE)
        return 2
    cmd = args[0]
    if cmd in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    if cmd in ("-V", "--version"):
        print(f"{PROG} {__version__}")
        return 0
    if cmd not in COMMANDS:
        return _usage_error(f"unknown command '{cmd}'")
    try:
        opts = _parser().parse_intermixed_args(args[1:])
        if opts.help:
            sys.stdout.write(USAGE)
            return 0
        layout = _layout(opts)
        run = {
            "gen": _gen,
            "decode": _decode,
            "encode": _encode,
            "range": _range,
            "layout": _layout_cmd,
            "presets": _presets,
        }[cmd]
        return run(opts, layout)
    except UsageError as e:
        return _usage_error(str(e))
    except SnowflakeError as e:
        _fail(e)
        return 1
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as the C tool does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _usage_error(what: str) -> int:
    print(f"{PROG}: {what}\n(see {PROG} --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
