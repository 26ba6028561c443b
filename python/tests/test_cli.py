"""The canonical JSON matches the C CLI byte for byte; the package installs that CLI.

The wheel carries the C snowflake-c command (its scripts), and
``python -m snowflake_c`` runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig

import pytest

import snowflake_c as sfc


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=60)


def pymain(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run(sys.executable, "-m", "snowflake_c", *args, stdin=stdin)


def _sample_ids(layout: sfc.Layout) -> list[int]:
    """IDs across the layout's life, plus its extremes."""
    ids = {0, layout.max_id}
    step = max(layout.max_id // 997, 1)
    ids.update(range(0, layout.max_id, step))
    return sorted(ids)


@pytest.mark.parametrize("preset", list(sfc.presets()))
def test_json_identical_to_the_c_cli(cli: str, preset: sfc.PresetName) -> None:
    layout = sfc.Layout.preset(preset)
    ids = _sample_ids(layout)
    c = run(cli, "decode", "--preset", preset, "--json", stdin="\n".join(map(str, ids)) + "\n")
    assert c.returncode == 0, c.stderr
    assert c.stdout.splitlines() == [sfc.decode(i, layout).to_json() for i in ids]


def test_json_identical_for_generated_ids_and_custom_layouts(cli: str) -> None:
    spec, epoch = "time:44@100us,region:3,clock:2,worker:3,seq:12", "2020-02-29T12:00:00Z"
    layout = sfc.Layout(spec, epoch)
    with sfc.Generator(layout=layout, node={"region": 5, "worker": 6}, rollback="clock") as g:
        ids = g.next_ids(3000)
    c = run(cli, "decode", "--layout", spec, "--epoch", epoch, "--json", *map(str, ids[:: len(ids) // 50]))
    assert c.returncode == 0, c.stderr
    assert c.stdout.splitlines() == [sfc.decode(i, layout).to_json() for i in ids[:: len(ids) // 50]]


@pytest.mark.parametrize(
    "args",
    [
        ["decode", "--preset", "discord", "175928847299117063", "105484726235607040"],
        ["decode", "--preset", "discord", "--json", "175928847299117063"],
        ["encode", "--preset", "discord", "--time", "1462015105796", "worker=1", "process=0", "seq=7"],
        [
            "encode",
            "--preset",
            "discord",
            "--json",
            "--time",
            "2016-04-30T11:18:25.796Z",
            "worker=1",
            "process=0",
            "seq=7",
        ],
        ["range", "--preset", "twitter", "2024-01-01", "2024-01-02"],
        ["range", "--preset", "twitter", "--json", "1704067200000", "1704153600000"],
        ["layout", "--preset", "sonyflake"],
        ["layout", "--layout", "time:41@1ms,worker:10,seq:12", "--epoch", "2024-01-01", "--json"],
        ["layout", "--json"],
        ["presets"],
        ["presets", "--json"],
        ["--version"],
    ],
)
def test_python_cli_prints_what_the_c_cli_prints(cli: str, args: list[str]) -> None:
    c, p = run(cli, *args), pymain(*args)
    assert (p.returncode, p.stdout) == (c.returncode, c.stdout)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["decode", "--preset", "discord", "12a"], 1),
        (["decode", "--preset", "twitter", "9223372036854775808"], 1),
        (["decode", "--preset", "nope", "1"], 1),
        (["gen", "--preset", "twitter"], 1),
        (["gen", "--layout", "time:41,seq:22"], 2),
        (["gen", "--epoch", "0"], 2),
        (["gen", "--preset", "twitter", "--layout", "time:41,seq:22", "--epoch", "0"], 2),
        (["frobnicate"], 2),
        (["gen", "--bogus"], 2),
        ([], 2),
    ],
)
def test_errors_exit_non_zero_with_a_message(cli: str, args: list[str], code: int) -> None:
    p = pymain(*args)
    assert p.returncode == code, p.stderr
    assert p.stderr.strip() and not p.stdout
    assert run(cli, *args).returncode == code


def test_gen_and_decode_from_stdin() -> None:
    p = pymain("gen", "-n", "5000", "--preset", "twitter", "--node", "datacenter=1,worker=3")
    assert p.returncode == 0, p.stderr
    ids = [int(x) for x in p.stdout.split()]
    assert len(ids) == 5000 and ids == sorted(set(ids))
    d = pymain("decode", "--preset", "twitter", "--json", stdin=p.stdout)
    assert d.returncode == 0, d.stderr
    lines = d.stdout.splitlines()
    assert len(lines) == 5000
    assert json.loads(lines[0])["worker"] == 3 and json.loads(lines[0])["datacenter"] == 1


def test_gen_json_and_stats() -> None:
    p = pymain("gen", "-n", "3", "--json", "--stats", "--node", "worker=2", "--rollback", "clock")
    assert p.returncode == 0, p.stderr
    docs = [json.loads(line) for line in p.stdout.splitlines()]
    assert [d["worker"] for d in docs] == [2, 2, 2]
    stats = json.loads(p.stderr.splitlines()[-1])
    assert stats["ids_issued"] == 3 and stats["rollback"] == "clock"
    assert stats["node"] == {"worker": 2} and stats["node_sources"] == {"worker": "explicit"}
    p = pymain("gen", "-n", "3", "--stats", "--node", "worker=2", "--rollback", "clock")
    assert p.returncode == 0, p.stderr
    assert "ids_issued=3" in p.stderr and "worker=2(explicit)" in p.stderr


def test_gen_matches_c_cli_stats_line_shape(cli: str) -> None:
    args = ["gen", "-n", "2", "--stats", "--node", "worker=2"]
    c, p = run(cli, *args), pymain(*args)
    assert c.returncode == p.returncode == 0
    assert _keys(p.stderr) == _keys(c.stderr)


def test_the_c_command_is_installed_beside_python() -> None:
    from snowflake_c.__main__ import find_command

    command = find_command()
    assert command is not None
    assert os.path.dirname(command) == sysconfig.get_path("scripts")
    with open(command, "rb") as f:
        magic = f.read(4)
    assert magic in (b"\x7fELF", b"\xcf\xfa\xed\xfe") or magic[:2] == b"MZ", "a native program, not a script"
    assert run(command, "--version").stdout == f"snowflake-c {sfc.__version__}\n"


def test_python_m_without_the_command_says_how_to_fix() -> None:
    code = "import sysconfig, shutil, sys; sysconfig.get_path = lambda *a: '/nonexistent'; "
    code += "shutil.which = lambda *a: None; sys.executable = '/nonexistent/python'; "
    code += "from snowflake_c.__main__ import main; sys.exit(main(['--version']))"
    p = run(sys.executable, "-c", code)
    assert p.returncode == 2 and "reinstall" in p.stderr and not p.stdout


def _keys(stats_line: str) -> list[str]:
    return [kv.split("=")[0] for kv in stats_line.split()]
