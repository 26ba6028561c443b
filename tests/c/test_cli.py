#!/usr/bin/env python3
"""The snowflake-c command as its users meet it.

Each command's help (COMMAND --help, COMMAND -h, help COMMAND) and its
examples; "did you mean" for a mistyped command, option or shell; options
never abbreviated; exit status 2 for every mistake in the command line; one
JSON rule for every command (IDs as decimal strings, every other number a
JSON number), --stats --json included; the README's CLI examples and those of the
guides (docs/choosing-a-layout.md, compared.md, migrating.md, faq.md); and the
manual page and shell completions of core/cli, which must be what the
command prints now, installed where each tool looks, and work: bash
completes, zsh and fish read them, man renders the page.

    tests/c/test_cli.py CLI SOURCE_ROOT [BUILD_ROOT]
    tests/c/test_cli.py --write CLI     writes core/cli's manual page and
                                        completions from the command
    tests/c/test_cli.py --write-guides CLI
                                        writes what each command of the
                                        guides prints under it

The generators run on a layout with an epoch of this run's own, so that their
host-wide claims never meet another test's.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GENERATED = {
    # file in core/cli: (the command's arguments, where meson installs it)
    "snowflake-c.1": (["help", "--man"], "man/man1/snowflake-c.1"),
    "snowflake-c.bash": (
        ["completions", "bash"],
        "bash-completion/completions/snowflake-c",
    ),
    "_snowflake-c": (["completions", "zsh"], "zsh/site-functions/_snowflake-c"),
    "snowflake-c.fish": (
        ["completions", "fish"],
        "fish/vendor_completions.d/snowflake-c.fish",
    ),
}
COMMANDS = [
    "gen",
    "serve",
    "decode",
    "convert",
    "encode",
    "range",
    "layout",
    "presets",
    "sql",
    "lease",
    "help",
    "completions",
]
EPOCH = 1704067200000 + random.randrange(86_400_000)
OWN = ["--layout", "time:41@1ms,worker:10,seq:12", "--epoch", str(EPOCH)]
ID_KEYS = {"id", "min", "max_id"}

passed = failed = skipped = 0


def check(what: str, ok: bool, detail: str = "") -> bool:
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAILED: {what}" + (f"\n  {detail}" if detail else ""))
    return ok


def skip(what: str, why: str) -> None:
    """A check this machine cannot make (no such shell here): recorded as
    tests/skip records one (SNOWFLAKE_C_SKIPS), and a failure under
    SNOWFLAKE_C_NO_SKIP=1, where every check must run."""
    global skipped
    if os.environ.get("SNOWFLAKE_C_SKIPS"):
        with open(os.environ["SNOWFLAKE_C_SKIPS"], "a", encoding="utf-8") as f:
            f.write(f"tests/c/test_cli.py: {what}: {why}\n")
    if os.environ.get("SNOWFLAKE_C_NO_SKIP") == "1":
        check(f"{what} (not run, SNOWFLAKE_C_NO_SKIP=1)", False, why)
        return
    skipped += 1
    print(f"skipped: {what}: {why}")


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if not k.startswith("SNOWFLAKE_")},
    )


def options_in_help(text: str) -> set[str]:
    """The long options a command's help lists."""
    return set(re.findall(r"^  (?:-\w, )?(--[\w-]+)", text, flags=re.M))


def test_help() -> None:
    overview = run("--help")
    check("--help exits 0", overview.returncode == 0, overview.stderr)
    for name in COMMANDS:
        check(f"--help lists {name}", f"\n  {name} " in overview.stdout)
    for spelled in (["-h"], ["help"]):
        r = run(*spelled)
        check(f"{spelled} is --help", (r.returncode, r.stdout) == (0, overview.stdout))
    for name in COMMANDS:
        r = run(name, "--help")
        check(f"{name} --help exits 0", r.returncode == 0 and not r.stderr, r.stderr)
        check(
            f"{name} --help is its own",
            r.stdout.startswith(f"usage: snowflake-c {name} ") and r.stdout != overview.stdout,
            r.stdout[:200],
        )
        for other in (["help", name], [name, "-h"]):
            o = run(*other)
            check(f"{other} is {name} --help", (o.returncode, o.stdout) == (0, r.stdout))
        check(f"{name} --help has examples", "\nexamples:\n  " in r.stdout)
        check(f"{name} --help lists --help", "--help" in options_in_help(r.stdout))
    gen, decode = run("gen", "--help").stdout, run("decode", "--help").stdout
    for option in ("--node", "--count", "--rollback", "--no-guard", "--state-dir"):
        check(f"gen --help lists {option}", option in options_in_help(gen))
        check(f"decode --help leaves out {option}", option not in options_in_help(decode))
    check("decode --help lists --from", "--from" in options_in_help(decode))
    # Help wins over the rest of the line, even a mistake after it.
    r = run("gen", "--preset", "nope", "--help", "--bogus")
    check("gen ... --help ... prints the help", (r.returncode, r.stdout) == (0, gen))


def test_examples() -> None:
    """Every example of every command's help runs (gen's, whose node values
    are claimed host-wide, serve's, which runs until stopped, and lease's,
    which need a database, only as far as their options: --help after
    them)."""
    for name in COMMANDS:
        text = run(name, "--help").stdout
        examples = text.split("\nexamples:\n", 1)[-1].splitlines()
        for line in examples:
            words = shlex.split(line.strip())
            if words[0] != "snowflake-c" or any(w in line for w in "|<>"):
                continue
            args = words[1:] + (["--help"] if name in ("gen", "serve", "lease") else [])
            r = run(*args)
            check(f"example runs: {line.strip()}", r.returncode == 0, r.stderr)


def usage_error(args: list[str], message: str) -> None:
    r = run(*args)
    check(
        f"{args}: exit 2, '{message}'",
        r.returncode == 2 and message in r.stderr and not r.stdout,
        f"exit {r.returncode}, stderr {r.stderr!r}",
    )


def test_mistakes() -> None:
    usage_error(["gne"], "unknown command 'gne': did you mean 'gen'?")
    usage_error(["decod", "1"], "unknown command 'decod': did you mean 'decode'?")
    usage_error(["frobnicate"], "unknown command 'frobnicate'\n")
    usage_error(["help", "gne"], "unknown command 'gne': did you mean 'gen'?")
    usage_error(["gen", "--nodes", "worker=1"], "did you mean --node?")
    usage_error(["decode", "--form", "base62", "1"], "did you mean --from?")
    usage_error(["gen", "--max", "5"], "did you mean --max-wait or --max-drift?")
    usage_error(["--verison"], "unknown option '--verison': did you mean --version?")
    usage_error(["gen", "--bogus"], "unknown option '--bogus'\n")
    usage_error(["completions", "bsh"], "unknown shell 'bsh': did you mean 'bash'")
    # Never abbreviated: a unique beginning is still a mistake, named.
    usage_error(["gen", "--nod", "worker=1"], "unknown option '--nod': did you mean --node?")
    usage_error(["gen", "--cou", "1"], "did you mean --count?")
    usage_error(["gen", "--nod=worker=1"], "unknown option '--nod': did you mean --node?")
    usage_error(["decode", "--js", "1"], "did you mean --json?")
    # An option of another command, or before the command.
    usage_error(["decode", "--node", "worker=1", "1"], "decode takes no --node")
    usage_error(["decode", "-n", "3", "1"], "decode takes no -n")
    usage_error(["convert", "--preset", "discord", "1"], "convert takes no --preset")
    usage_error(["--json", "decode", "1"], "--json goes after the command")
    # Values.
    usage_error(["gen", "--node"], "--node needs a value (LIST)")
    usage_error(["decode", "--json=yes", "1"], "--json takes no value")
    usage_error(["gen", "-n", "x"], "--count takes a whole number from 0")
    usage_error(["gen", "-x"], "unknown option '-x'")
    # A second list never replaces the first unseen; a later single value
    # overrides an earlier one (wrappers and aliases rely on it).
    usage_error(["gen", "--node", "worker=1", "--node", "worker=2"], "--node is given twice: give every value in one")
    r = run("decode", "--preset", "twitter", "--preset", "discord", "--json", "175928847299117063")
    check("a later --preset overrides", r.returncode == 0 and '"process":0' in r.stdout, r.stderr)
    # A negative node value is named so, as every binding names it.
    r = run("gen", "--node", "worker=-1", "-n", "1")
    check("a negative worker", r.returncode == 1 and "node value worker=-1 is negative" in r.stderr, r.stderr)
    # -0 is not negative: the sign is refused, as +3's is.
    r = run("gen", "--node", "worker=-0", "-n", "1")
    check(
        "a worker of -0",
        r.returncode == 1 and "node value worker=-0 has a sign" in r.stderr and "negative" not in r.stderr,
        r.stderr,
    )
    # The core's messages name options as the command line does.
    r = run("gen", "--preset", "twitter", "--node", "datacenter=1,worker=auto", "-n", "1")
    check(
        "the options as flags",
        r.returncode == 1 and "needs a --state-dir" in r.stderr and "state_dir" not in r.stderr,
        r.stderr,
    )
    # A negative number is an argument, and its command says what is wrong with it.
    r = run("decode", "--preset", "twitter", "-5")
    check("decode -5: the ID refused", r.returncode == 1 and "dec ID '-5'" in r.stderr, r.stderr)
    usage_error(["help", "gen", "decode"], "help takes one command, or --man")
    usage_error(["completions"], "completions takes one shell")
    usage_error(["range", "--preset", "twitter", "2024-01-01"], "range takes two times")
    usage_error(["encode", "--preset", "twitter", "worker=1"], "encode needs --time")
    # A command that reads IDs made elsewhere never assumes a layout; one
    # configured for the shell serves every command.
    for args in (["decode", "175928847299117063"], ["range", "2024-01-01", "2024-01-02"], ["layout"], ["sql"]):
        r = run(*args)
        check(f"{args[0]} without a layout: refused", r.returncode == 2 and "no layout given" in r.stderr, r.stderr)
    env = {"SNOWFLAKE_PRESET": "discord"}
    r = subprocess.run([CLI, "decode", "175928847299117063"], capture_output=True, text=True, env=env)
    check("SNOWFLAKE_PRESET: the shell's layout", r.returncode == 0 and "process=0" in r.stdout, r.stderr)
    env = {"SNOWFLAKE_LAYOUT": "time:41@1ms,worker:10,seq:12", "SNOWFLAKE_EPOCH": "0"}
    r = subprocess.run([CLI, "layout", "--json"], capture_output=True, text=True, env=env)
    check("SNOWFLAKE_LAYOUT and SNOWFLAKE_EPOCH", '"epoch_ms":0,' in r.stdout, r.stdout + r.stderr)
    r = subprocess.run([CLI, "decode", "--preset", "twitter", "1"], capture_output=True, text=True, env=env)
    check("the flags over the environment", r.returncode == 0 and "datacenter=0" in r.stdout, r.stderr)
    # A layout whose time runs out within ten years says so when gen starts.
    epoch = (int(time.time()) - 365 * 86400) * 1000
    r = run("gen", "--layout", "time:28@1s,worker:4,seq:13", "--epoch", str(epoch), "--node", "worker=13")
    check(
        "gen: a layout ending within ten years warns",
        r.returncode == 0 and re.search(r"warning: the layout's time field runs out on .* in 7\.5 years", r.stderr),
        r.stderr,
    )
    r = run()
    check("no command: exit 2, the commands on stderr", r.returncode == 2 and "commands:" in r.stderr)
    # The other spellings a value may take, and arguments among options.
    want = run("decode", "--preset", "discord", "--json", "175928847299117063").stdout
    for args in (
        ["decode", "--preset=discord", "--json", "175928847299117063"],
        ["decode", "175928847299117063", "--json", "--preset", "discord"],
        ["decode", "--preset", "discord", "--json", "--", "175928847299117063"],
    ):
        r = run(*args)
        check(f"{args} decodes", (r.returncode, r.stdout) == (0, want), r.stderr)
    r = run("decode", "--preset", "twitter", "--json", "--", "--json")
    check("-- ends the options", r.returncode == 1 and "InvalidArgument" in r.stderr)


def test_sql() -> None:
    """The shape of `sql`: plain SQL functions, the layout's facts (from
    layout --json) in them, a 64-bit layout refused. tests/postgres/
    test_hosted_sql.py runs the text on a server against the vectors."""
    functions = ["is_id", "time_ms", "decode_time", "iso_time", "decode_json", "decode", "field", "range"]
    for preset in ("twitter", "sonyflake"):
        r = run("sql", "--preset", preset)
        check(f"sql --preset {preset} exits 0", r.returncode == 0 and not r.stderr, r.stderr)
        text = r.stdout
        made = re.findall(r'^CREATE OR REPLACE FUNCTION "snowflake_c"\."(\w+)"\(', text, flags=re.M)
        check(f"sql --preset {preset}: its functions", made == functions, str(made))
        check(
            f"sql --preset {preset}: every one plain SQL",
            text.count("\nLANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$\n") == len(functions)
            and not re.search(r"plpgsql|LANGUAGE c\b", text, flags=re.I),
        )
        facts = json.loads(run("layout", "--preset", preset, "--json").stdout)
        for f in facts["fields"]:
            check(f"sql --preset {preset}: field {f['name']}", f"((id >> {f['shift']}) & {f['max']})" in text)
        check(f"sql --preset {preset}: the tick's length", f" * {facts['unit_us']}) / 1000" in text)
        check(f"sql --preset {preset}: the epoch", f"{facts['epoch_ms']}000 + " in text)
    r = run("sql", "--preset", "twitter", "--schema", 'my "ids"')
    check("sql --schema: a quoted identifier", 'CREATE SCHEMA IF NOT EXISTS "my ""ids""";' in r.stdout, r.stdout[:300])
    # 64 bits: a bigint holds the IDs before the tick whose top bit is set,
    # 2^40 ms after an epoch of 0: 2004-11-03T19:53:47.776Z.
    r = run("sql", "--layout", "time:41@1ms,worker:11,seq:12", "--epoch", "0")
    check(
        "sql: a 64-bit layout, with the time its IDs leave bigint",
        r.returncode == 0
        and "warning" in r.stderr
        and "2004-11-03T19:53:47.776Z" in r.stderr
        and "2004-11-03T19:53:47.776Z" in r.stdout
        and f"least((b - 1) / 1000, {2**40 - 1})" in r.stdout
        and ">> 64" not in r.stdout,
        r.stderr,
    )
    usage_error(["sql", "--preset", "twitter", "x"], "sql takes no arguments")
    usage_error(["sql", "--node", "worker=1"], "sql takes no --node")
    usage_error(["sql", "--preset", "twitter", "--schema="], "--schema takes a name")


def numbers_in_strings(value: object, ids: set[str], key: str = "") -> list[str]:
    """The keys whose value is a number written as a string, but for the IDs'
    (keys `ids`)."""
    if isinstance(value, dict):
        return [bad for k, v in value.items() for bad in numbers_in_strings(v, ids, k)]
    if isinstance(value, list):
        return [bad for v in value for bad in numbers_in_strings(v, ids, key)]
    if isinstance(value, str) and key not in ids and re.fullmatch(r"-?\d+", value):
        return [key]
    return []


def json_lines(args: list[str], stdin: str = "") -> list[dict[str, Any]]:
    r = run(*args, stdin=stdin)
    if not check(f"{args} exits 0", r.returncode == 0, r.stderr):
        return []
    try:
        return [json.loads(line) for line in r.stdout.splitlines()]
    except json.JSONDecodeError as e:
        check(f"{args} prints JSON lines", False, str(e))
        return []


def is_id(v: object) -> bool:
    return isinstance(v, str) and re.fullmatch(r"\d{1,20}", v) is not None


def is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def test_json() -> None:
    docs = {
        "decode": json_lines(["decode", "--preset", "discord", "--json", "175928847299117063"]),
        "encode": json_lines(
            ["encode", "--preset", "discord", "--json", "--time", "1462015105796"] + ["worker=1", "process=0", "seq=7"]
        ),
        "gen": json_lines(["gen", "-n", "3", "--json", *OWN, "--node", "worker=5"]),
        "convert": json_lines(["convert", "--json", "--to", "base62", "175928847299117063"]),
        "range": json_lines(["range", "--json", "--preset", "twitter", "2024-01-01", "2024-01-02"]),
        "layout": json_lines(["layout", "--json", "--preset", "sonyflake"]),
        "layout (custom)": json_lines(["layout", "--json", *OWN]),
        "presets": json_lines(["presets", "--json"]),
    }
    for name, lines in docs.items():
        check(f"{name} --json prints", bool(lines))
        for doc in lines:
            bad = numbers_in_strings(doc, {"min", "max"} if name == "range" else ID_KEYS)
            check(f"{name} --json: numbers as numbers", not bad, f"as strings: {bad}")
    for name in ("decode", "encode", "gen"):
        for doc in docs[name]:
            check(f"{name} --json: id a string", is_id(doc.get("id")), str(doc))
            check(f"{name} --json: time_ms a number", is_int(doc.get("time_ms")), str(doc))
            fields = [v for k, v in doc.items() if k not in ("id", "time_ms", "time")]
            check(f"{name} --json: fields numbers", all(map(is_int, fields)), str(doc))
    check(
        "decode --json is the canonical JSON",
        docs["decode"]
        == [
            {
                "id": "175928847299117063",
                "time_ms": 1462015105796,
                "time": "2016-04-30T11:18:25.796Z",
                "worker": 1,
                "process": 0,
                "seq": 7,
            }
        ],
    )
    check("encode --json is decode's", docs["encode"] == docs["decode"])
    check("convert --json", docs["convert"] == [{"id": "175928847299117063", "base62": "0Czks0tP37X"}])
    for doc in docs["range"]:
        check("range --json: IDs as strings", is_id(doc["min"]) and is_id(doc["max"]), str(doc))
    for doc in docs["layout"] + docs["layout (custom)"]:
        for key in ("epoch_ms", "unit_us", "total_bits", "time_end_ms"):
            check(f"layout --json: {key} a number", is_int(doc.get(key)), str(doc))
        check("layout --json: max_id a string", is_id(doc.get("max_id")), str(doc))
        for field in doc.get("fields", []):
            for key in ("bits", "shift", "max"):
                check(f"layout --json: a field's {key} a number", is_int(field[key]))
    check("layout --json of a spec: no name", [d["name"] for d in docs["layout (custom)"]] == [None])
    check(
        "presets --json: epoch_ms a number",
        len(docs["presets"]) == 7 and all(is_int(d["epoch_ms"]) for d in docs["presets"]),
    )
    check(
        "presets --json: twitter's epoch, and the instant its IDs run out",
        {
            "name": "twitter",
            "spec": "time:41@1ms,datacenter:5,worker:5,seq:12",
            "epoch_ms": 1288834974657,
            "time_end_ms": 1288834974657 + 2**41,
        }
        in docs["presets"],
    )
    text = run("presets").stdout
    check("presets: the day each preset's IDs run out", "runs out 2080-07-10" in text, text)
    check("presets: baidu's 28-bit seconds ran out in 2024", "ran out  2024-11-20" in text, text)


def test_terms(root: Path) -> None:
    """Every contract case of tests/vectors/contract.json whose message is
    given in the command line's terms (message_in_terms.flag): the same
    mistake made with gen's flags says --state-dir where Python says
    state_dir and Node.js and Java say stateDir."""
    cases = json.loads((root / "tests" / "vectors" / "contract.json").read_text(encoding="utf-8"))
    walked = 0
    for c in cases:
        said = c.get("message_in_terms", {}).get("flag")
        if said is None:
            continue
        here = f"contract in the CLI's terms: {c['description']}"
        if "option" in c:
            args = ["--preset", "twitter", "--node", "datacenter=1,worker=1", "--no-guard"]
            args += ["--" + c["option"].replace("_", "-"), str(c["value"])]
        else:
            known = {"preset", "layout", "epoch"}
            if not set(c["args"]) <= known:
                check(here, False, f"the runner takes only {sorted(known)}: teach it {sorted(c['args'])}")
                continue
            args = [x for k, v in c["args"].items() for x in ("--" + k, v)]
            node = c["node"]
            if not isinstance(node, dict):  # the layout's only node field by name
                spec = c["args"]["layout"]
                names = [f.split(":")[0] for f in spec.split(",") if f.split(":")[0] not in ("time", "seq")]
                node = {names[0]: node}
            args += ["--node", ",".join(f"{k}={v}" for k, v in node.items())]
        r = run("gen", "-n", "1", *args)
        check(
            here,
            r.returncode == 1 and r.stderr.startswith(f"snowflake-c: {c['error']}: ") and said in r.stderr,
            f"gen {shlex.join(args)}: exit {r.returncode}, stderr {r.stderr!r}",
        )
        walked += 1
    check("contract cases in the CLI's terms walked", walked > 0)


def test_uuid7(root: Path) -> None:
    """decode --from uuid7 on every case of tests/vectors/uuid7.json: from
    the arguments and from standard input, as text and as the core's JSON;
    the refusals with the core's messages; no layout, and not for convert."""
    cases = json.loads((root / "tests" / "vectors" / "uuid7.json").read_text(encoding="utf-8"))
    for c in cases:
        text, here = c["text"], f"decode --from uuid7: {c['description']}"
        r = (
            subprocess.run([CLI, "decode", "--from", "uuid7"], input=text.encode(), capture_output=True, timeout=60)
            if "\0" in text
            else subprocess.run([CLI, "decode", "--from", "uuid7", text], capture_output=True, timeout=60)
        )
        out, err = r.stdout.decode(), r.stderr.decode()
        if "error" in c:
            check(
                f"{here}: refused",
                r.returncode == 1
                and not out
                and err.startswith(f"snowflake-c: {c['error']}: ")
                and all(m in err for m in c["message_has"]),
                f"exit {r.returncode}, stdout {out!r}, stderr {err!r}",
            )
            continue
        want = f"{c['uuid']}  {c['time']}  rand_a={c['rand_a']}  rand_b={c['rand_b']}\n"
        check(f"{here}: text", r.returncode == 0 and out == want, f"{out!r} {err!r}, want {want!r}")
        r = run("decode", "--json", "--from", "uuid7", text)
        check(f"{here}: --json", r.returncode == 0 and r.stdout == c["json"] + "\n", r.stdout + r.stderr)
    valid = [c for c in cases if "error" not in c]
    r = run("decode", "--from", "uuid7", "--json", stdin="\n".join(f" {c['text']}\t" for c in valid))
    check(
        "decode --from uuid7: standard input, one line each",
        r.returncode == 0 and r.stdout == "".join(c["json"] + "\n" for c in valid),
        r.stdout + r.stderr,
    )
    r = run("decode", "--from", "uuid7", valid[0]["text"], "0-0", valid[1]["text"])
    check(
        "decode --from uuid7: the good ones printed, exit 1 for the bad",
        r.returncode == 1 and r.stdout.count("\n") == 2 and "UUID '0-0' is 3 characters long" in r.stderr,
        r.stdout + r.stderr,
    )
    usage_error(["convert", "--from", "uuid7", valid[0]["text"]], "--from uuid7 goes with decode")
    usage_error(["decode", "--preset", "discord", "--from", "uuid7", valid[0]["text"]], "--from uuid7 takes no layout")
    r = run("decode", "--from", "uuid8", "1")
    check("--from uuid8: uuid7 among the names", r.returncode == 1 and "or uuid7 (decode only)" in r.stderr, r.stderr)


def test_stats() -> None:
    text = run("gen", "-n", "2", "--stats", *OWN, "--node", "worker=6")
    js = run("gen", "-n", "2", "--stats", "--json", *OWN, "--node", "worker=6")
    if not check("gen --stats", text.returncode == 0 and js.returncode == 0, text.stderr + js.stderr):
        return
    try:
        stats = json.loads(js.stderr.splitlines()[-1])
    except (json.JSONDecodeError, IndexError) as e:
        check("gen --stats --json: one JSON object on stderr", False, f"{e}: {js.stderr!r}")
        return
    check("gen --stats --json: stdout is the IDs' JSON", len(js.stdout.splitlines()) == 2)
    # The names of the text line, the node fields gathered into two maps.
    names = [kv.split("=")[0] for kv in text.stderr.split() if "(" not in kv and "=" in kv]
    check(
        "gen --stats --json: the stats' names, in order",
        set(stats) == {*names, "node", "node_sources"} and [k for k in stats if k in names] == names,
        f"{list(stats)} against {names}",
    )
    check("gen --stats --json: ids_issued", stats.get("ids_issued") == 2, str(stats))
    check("gen --stats --json: node", stats.get("node") == {"worker": 6}, str(stats))
    check("gen --stats --json: node_sources", stats.get("node_sources") == {"worker": "explicit"})
    counters = [v for k, v in stats.items() if k not in ("rollback", "guard", "node", "node_sources")]
    check("gen --stats --json: counters numbers", all(map(is_int, counters)), str(stats))
    check("gen --stats --json: guard held", str(stats.get("guard")).startswith("held: "))
    check("gen --stats --json: numbers as numbers", not numbers_in_strings(stats, set()))


def console_examples(text: str) -> list[tuple[str, str]]:
    """Each `$ snowflake-c ...` line of a document's console blocks, with the
    lines printed under it (up to a blank line or the next command)."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        found += re.findall(r"^\$ (snowflake-c .*)\n((?:[^$\n].*\n)*)", block, flags=re.M)
    return found


def test_readme(root: Path) -> None:
    """The README's CLI examples whose output is shown and fixed."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    seen = 0
    for command, output in console_examples(readme):
        words = shlex.split(command, comments=True)
        if words[1] not in ("decode", "encode", "range", "convert") or not output:
            continue
        seen += 1
        r = run(*words[1:])
        check(f"README: {command}", r.stdout == output, f"printed {r.stdout!r}, README {output!r}")
    check("README: CLI examples found", seen >= 5, f"{seen} found")


# The guides that help a user decide: every command they show with its output
# is run, and what it prints must be the page's text byte for byte. A command
# whose output depends on the moment (gen, serve) may be shown, never with
# output; a pipe or a redirection is not run, so it may not be shown with
# output either.
GUIDES = {"docs/choosing-a-layout.md": 8, "docs/compared.md": 1, "docs/migrating.md": 8, "docs/faq.md": 3}
MOMENT = {"gen", "serve"}
# The guide's layout for JavaScript: below 2^53 until at least 2080.
JS_SAFE = ["--layout", "time:41@1ms,worker:4,seq:8", "--epoch", "2026-01-01"]


def guide_examples(text: str) -> list[tuple[str, str]]:
    """Each `$ ...` line of a guide's console blocks, with everything under it
    up to the next `$ ` line (blank lines inside an output included, blank
    lines at its end not)."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            output = output.rstrip("\n")
            found.append((command, output + "\n" if output else ""))
    return found


def test_guides(root: Path) -> None:
    for name, least in GUIDES.items():
        text = (root / name).read_text(encoding="utf-8")
        seen = 0
        for command, output in guide_examples(text):
            words = shlex.split(command, comments=True)
            if words[0] != "snowflake-c":
                check(f"{name}: {command}", False, "a guide's console shows snowflake-c commands only")
                continue
            if not output:
                continue
            if words[1] in MOMENT or any(w in ("|", "<", ">") for w in words):
                check(f"{name}: {command}", False, "shown with output, but its output is not fixed")
                continue
            seen += 1
            r = run(*words[1:])
            check(
                f"{name}: {command}",
                r.returncode == 0 and r.stdout == output,
                f"exit {r.returncode}, printed {r.stdout!r}{r.stderr!r}, the page {output!r}"
                " (tests/c/test_cli.py --write-guides CLI writes what it prints now)",
            )
        check(f"{name}: examples with output found", seen >= least, f"{seen} found, {least} expected")
    guide = (root / "docs/choosing-a-layout.md").read_text(encoding="utf-8")
    check("docs/choosing-a-layout.md shows the JavaScript layout", " ".join(JS_SAFE) in guide)
    facts = json.loads(run("layout", *JS_SAFE, "--json").stdout)
    check("the JavaScript layout stays below 2^53", int(facts["max_id"]) < 2**53, str(facts))
    check(
        "the JavaScript layout lasts until 2080 at least",
        facts["time_end_ms"] >= 3471292800000,  # 2080-01-01
        str(facts),
    )


def test_generated(root: Path, build: Path | None) -> None:
    for name, (args, _) in GENERATED.items():
        r = run(*args)
        kept = root / "core" / "cli" / name
        check(
            f"core/cli/{name} is `snowflake-c {' '.join(args)}`",
            r.returncode == 0 and kept.exists() and kept.read_text(encoding="utf-8") == r.stdout,
            "out of date: run tests/c/test_cli.py --write CLI",
        )
    installed = build / "meson-info" / "intro-installed.json" if build else None
    if installed is None or not installed.exists():
        skip("installed files", "no build folder given")
        return
    plan = {Path(src).name: dest for src, dest in json.loads(installed.read_text()).items()}
    if "snowflake-c.1" not in plan:
        skip("installed files", "this build installs no CLI (install_core=false)")
        return
    for name, (_, where) in GENERATED.items():
        dest = plan.get(name, "").replace("\\", "/")
        check(f"meson install puts {name} in .../{where}", dest.endswith("/" + where), dest)


def test_shells(root: Path) -> None:
    cli_dir = root / "core" / "cli"
    if os.name == "nt":
        skip("completions and man page", "checked on POSIX systems")
        return
    bash = shutil.which("bash")
    if bash:
        script = (
            'source "$1"; complete -p snowflake-c\n'
            "try() {\n"
            '  COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()\n'
            '  _snowflake_c; echo "${COMPREPLY[*]}"\n'
            "}\n"
            "try snowflake-c ''\n"
            "try snowflake-c de\n"
            "try snowflake-c gen --pre\n"
            "try snowflake-c gen --preset tw\n"
            "try snowflake-c decode --from base3\n"
            "try snowflake-c gen --rollback b\n"
            "try snowflake-c help con\n"
            "try snowflake-c completions f\n"
            "try snowflake-c decode --no\n"
        )
        r = subprocess.run(
            [bash, "--norc", "-c", script, "bash", str(cli_dir / "snowflake-c.bash")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        want = [
            "complete -F _snowflake_c snowflake-c",
            " ".join(COMMANDS) + " -h --help -V --version",
            "decode",
            "--preset",
            "twitter",
            "base32 base36",
            "borrow",
            "convert",
            "fish",
            "",
        ]
        check("bash completes", r.stdout.splitlines() == want, f"{r.stdout!r} {r.stderr!r}")
    else:
        skip("bash completion", "no bash")
    if shutil.which("shellcheck"):
        r = subprocess.run(["shellcheck", str(cli_dir / "snowflake-c.bash")], capture_output=True, text=True)
        check("the bash completion passes shellcheck", r.returncode == 0, r.stdout)
    zsh = shutil.which("zsh")
    if zsh:
        r = subprocess.run([zsh, "-n", str(cli_dir / "_snowflake-c")], capture_output=True, text=True)
        check("zsh reads its completion", r.returncode == 0, r.stderr)
        test_zsh(zsh, cli_dir)
    else:
        skip("zsh completion", "no zsh")
    fish = shutil.which("fish")
    if fish:
        script = (
            'source $argv[1]; complete -C "snowflake-c ge"; complete -C "snowflake-c gen --pre"; '
            'complete -C "snowflake-c layout --preset so"; complete -C "snowflake-c completions z"'
        )
        r = subprocess.run(
            [fish, "--no-config", "-c", script, str(cli_dir / "snowflake-c.fish")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        got = [line.split("\t")[0] for line in r.stdout.splitlines()]
        check("fish completes", got == ["gen", "--preset", "sonyflake", "zsh"], f"{r.stdout!r} {r.stderr!r}")
    else:
        skip("fish completion", "no fish")
    man = shutil.which("man")
    if man:
        r = subprocess.run(
            [man, "--warnings", "-l", str(cli_dir / "snowflake-c.1")],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"},
        )
        page = re.sub(r".\x08", "", r.stdout)
        check("man renders the page, no warning", r.returncode == 0 and not r.stderr.strip(), r.stderr)
        for heading in ("NAME", "SYNOPSIS", "COMMANDS", "OPTIONS", "GENERATOR OPTIONS", "JSON", "EXIT STATUS"):
            check(f"the man page has {heading}", f"\n{heading}\n" in page)
        for name in COMMANDS:
            check(f"the man page has {name}", f"snowflake-c {name} " in page)
    else:
        skip("man page", "no man")


def test_zsh(zsh: str, cli_dir: Path) -> None:
    """Completes `snowflake-c gen --pre<TAB>` in an interactive zsh (zpty),
    with compadd recorded."""
    with tempfile.TemporaryDirectory() as tmp:
        fdir = Path(tmp) / "functions"
        fdir.mkdir()
        shutil.copy(cli_dir / "_snowflake-c", fdir / "_snowflake-c")
        driver = Path(tmp) / "driver.zsh"
        driver.write_text(
            "zmodload zsh/zpty\n"
            "zpty -b z zsh -f -i\n"
            "zpty -w z 'PROMPT=; unsetopt zle_bracketed_paste 2>/dev/null'\n"
            f"zpty -w z 'fpath=({fdir} $fpath); autoload -U compinit; compinit -u -d {tmp}/zcd'\n"
            'zpty -w z \'compadd() { builtin compadd "$@"; local -a h; '
            'builtin compadd -O h "$@"; print -l -- "HIT:${^h[@]}" >>' + tmp + "/hits; }'\n"
            "zpty -w z 'zstyle \":completion:*\" menu no'\n"
            "zmodload zsh/stat\n"
            "size() { [[ -f $1 ]] && zstat +size $1 || print 0; }\n"
            "for line in 'snowflake-c ge' 'snowflake-c gen --pre' 'snowflake-c layout --preset so'; do\n"
            "  before=$(size " + tmp + "/hits)\n"
            "  zpty -w -n z \"$line\"$'\\t'\n"
            # until the completion has recorded its names (at most 10 s)
            "  for i in {1..100}; do\n"
            "    (( $(size " + tmp + "/hits) > before )) && break\n"
            "    sleep 0.1\n"
            "  done\n"
            "  sleep 0.3\n"
            "  zpty -w -n z $'\\C-u'\n"
            '  print -r -- "END:$line" >>' + tmp + "/hits\n"
            "done\n"
            "zpty -d z\n"
        )
        # zsh is here: a completion that records nothing is a failure.
        try:
            subprocess.run([zsh, "-f", str(driver)], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            check("zsh completes", False, "the zsh driving the completion through zpty never ended")
            return
        hits = (Path(tmp) / "hits").read_text() if (Path(tmp) / "hits").exists() else ""
    rounds: list[list[str]] = []
    current: list[str] = []
    for line in hits.splitlines():
        if line.startswith("END:"):
            rounds.append(current)
            current = []
        elif line.startswith("HIT:"):
            current.append(line[4:])
    if not check("zsh records a completion for each of 3 lines", len(rounds) == 3 and all(rounds), repr(hits[:300])):
        return
    check("zsh completes the command", "gen" in rounds[0], str(rounds[0]))
    check("zsh completes an option", "--preset" in rounds[1], str(rounds[1]))
    check("zsh completes a preset", "sonyflake" in rounds[2], str(rounds[2]))


def write(cli: str) -> int:
    for name, (args, _) in GENERATED.items():
        r = subprocess.run([cli, *args], capture_output=True, text=True, check=True)
        (HERE.parent.parent / "core" / "cli" / name).write_text(r.stdout, encoding="utf-8")
        print(f"wrote core/cli/{name}")
    return 0


def write_guides(cli: str) -> int:
    """Puts under each command of the guides' console blocks what it prints
    now (nothing under gen and serve), one blank line between commands."""

    def block(m: re.Match[str]) -> str:
        parts = re.split(r"^\$ ", m.group(1), flags=re.M)
        out = [parts[0].rstrip("\n")] if parts[0].strip() else []
        for part in parts[1:]:
            command, _, old = part.partition("\n")
            words = shlex.split(command, comments=True)
            chunk = "$ " + command
            if words[1] in MOMENT:
                chunk += "\n" + old.rstrip("\n") if old.strip() else ""
            else:
                r = subprocess.run([cli, *words[1:]], capture_output=True, text=True, check=True)
                chunk += "\n" + r.stdout.rstrip("\n") if r.stdout else ""
            out.append(chunk)
        return "```console\n" + "\n\n".join(out) + "\n```"

    for name in GUIDES:
        path = HERE.parent.parent / name
        text = re.sub(r"```console\n(.*?)```", block, path.read_text(encoding="utf-8"), flags=re.S)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {name}")
    return 0


def main(argv: list[str]) -> int:
    global CLI
    if len(argv) == 2 and argv[0] == "--write":
        return write(argv[1])
    if len(argv) == 2 and argv[0] == "--write-guides":
        return write_guides(argv[1])
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    CLI = argv[0]
    root = Path(argv[1])
    build = Path(argv[2]) if len(argv) == 3 else None
    test_help()
    test_examples()
    test_mistakes()
    test_sql()
    test_json()
    test_uuid7(root)
    test_terms(root)
    test_stats()
    test_readme(root)
    test_guides(root)
    test_generated(root, build)
    test_shells(root)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


CLI = ""
if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
