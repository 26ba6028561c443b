"""The shipped type stubs match the module (mypy.stubtest) and type-check real use."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mypy")

ALLOWLIST = Path(__file__).resolve().parent / "stubtest-allowlist.txt"


def test_stubtest() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "snowflake_c", "--concise", "--allowlist", str(ALLOWLIST)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_stubs_type_check_an_example(tmp_path: Path) -> None:
    example = tmp_path / "example.py"
    example.write_text(
        textwrap.dedent(
            """
            from array import array
            from datetime import datetime, timezone
            import snowflake_c

            with snowflake_c.Generator(preset="twitter", node={"datacenter": 1, "worker": 3}) as g:
                one: int = g.next_id()
                many: list[int] = g.next_ids(1000)
                buf = array("Q", bytes(8 * 100))
                count: int = g.fill(buf)
                issued: int = g.stats()["ids_issued"]
                ident, wait = g.next_id_at(g.now_us())
            parts = snowflake_c.decode(one, preset="twitter")
            when: datetime = parts.time
            text: str = parts.to_json()
            worker: int = parts.fields["worker"]
            ident_again: int = int(parts)
            plain: dict[str, int | str] = parts.as_dict()
            seen: set[snowflake_c.Parts] = {parts}
            first: snowflake_c.Parts = min(parts, snowflake_c.decode(one + 1, preset="twitter"))
            before: bool = parts < first
            lo, hi = snowflake_c.range(datetime(2024, 1, 1, tzinfo=timezone.utc), "2024-01-02", preset="twitter")
            spec: str = snowflake_c.Layout.preset("discord").spec
            try:
                snowflake_c.decode(-1, preset="twitter")
            except snowflake_c.InvalidArgument as e:
                status: str = e.status
            """
        )
    )
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(example)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_preset_name_is_the_core_table() -> None:
    """PresetName lists the core's presets, in the table's order: a new
    preset is a name the type checker takes."""
    import typing

    import snowflake_c

    assert list(typing.get_args(snowflake_c.PresetName)) == list(snowflake_c.presets())


def test_a_misspelled_preset_is_a_type_error(tmp_path: Path) -> None:
    """preset is PresetName, the core's preset names, not a plain str: a typo
    is caught by the type checker in every call that takes one."""
    calls = [
        'snowflake_c.Generator(preset="twiter", node={"datacenter": 1, "worker": 3})',
        'snowflake_c.decode(1, preset="twiter")',
        'snowflake_c.encode(0, {"worker": 1}, preset="twiter")',
        'snowflake_c.range(0, 1, preset="twiter")',
        'snowflake_c.Layout.preset("twiter")',
    ]
    example = tmp_path / "typo.py"
    example.write_text("import snowflake_c\n\n" + "\n".join(calls) + "\n")
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--no-error-summary", str(example)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in r.stdout.splitlines() if ": error: " in line]
    lines = sorted({int(line.split(":")[1]) for line in errors})
    assert lines == list(range(3, 3 + len(calls))), r.stdout + r.stderr
    assert all("'twiter'" in line and "expected \"Literal['default'" in line for line in errors), r.stdout


def test_package_and_tests_pass_mypy_strict() -> None:
    """The package's Python sources and these tests type-check against the stubs."""
    tests = Path(__file__).resolve().parent
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "snowflake_c", "tests"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tests.parent,
    )
    assert r.returncode == 0, r.stdout + r.stderr
