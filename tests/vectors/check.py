#!/usr/bin/env python3
"""Checks the shared test vectors.

    python3 tests/vectors/check.py [VECTORS_DIR]

- every *.json file but schema.json is validated against schema.json (the
  file name picks the case shape: decode.json -> $defs/decode_file); a file
  whose name has no shape in the schema is an error;
- every case has a non-empty description, unique across all files;
- the files are what tools/gen_vectors.py (the independent reference model)
  generates, unless --no-model is given;
- every case of encodings.json agrees with the plain-Python model of the
  string forms below (Python's own integers, nothing from the project);
- every warnings case of contract.json says what a generator of its layout
  and guard says on any day from the one the cases were decided on (today
  included): Unguarded first when the guard is off, LayoutEnding when the
  layout's time field ends within ten years of that day or has ended, and
  never an outcome that moves with the date.

Exits 0 when all is well, 1 on any problem (each printed on stderr), 2 when
the `jsonschema` package is missing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

try:
    import jsonschema
except ImportError:  # pragma: no cover - depends on the machine
    print(
        "check.py needs the jsonschema package: pip install jsonschema", file=sys.stderr
    )
    sys.exit(2)


# The string forms (the header's "String forms"): alphabet in ASCII order, fixed width.
ENCODINGS = {
    "dec": ("0123456789", 20),
    "hex": ("0123456789abcdef", 16),
    "base32": ("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 13),
    "base36": ("0123456789abcdefghijklmnopqrstuvwxyz", 13),
    "base58": ("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 11),
    "base62": ("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 11),
}
SHORTEST_BY_DEFAULT = {"dec"}  # the default form; the others' is the fixed width
CASE_FOLDED = {"hex", "base32", "base36"}
CROCKFORD_ALIASES = {"I": "1", "L": "1", "O": "0"}


def format_id(number: int, encoding: str, shortest: bool = False) -> str:
    digits, width = ENCODINGS[encoding]
    text = ""
    while True:
        number, d = divmod(number, len(digits))
        text = digits[d] + text
        if number == 0:
            break
    return text if shortest else text.rjust(width, digits[0])


def parse_id(text: str, encoding: str) -> int | None:
    """The ID `text` stands for, or None when it is not one."""
    if encoding not in ENCODINGS:
        return None
    digits, width = ENCODINGS[encoding]
    if not 0 < len(text) <= width:
        return None
    if encoding == "base32":
        text = "".join(CROCKFORD_ALIASES.get(c, c) for c in text.upper())
    elif encoding in CASE_FOLDED:
        text = text.lower()
    number = 0
    for c in text:
        if c not in digits:
            return None
        number = number * len(digits) + digits.index(c)
    return number if number < 2**64 else None


def check_encodings(cases: list) -> list[str]:
    problems = []
    for i, c in enumerate(cases):
        here = f"encodings.json[{i}] {c.get('description')!r}"
        enc = c.get("encoding")
        if "fixed" in c:
            n = int(c["id"])
            for key, got in (
                ("default", format_id(n, enc, enc in SHORTEST_BY_DEFAULT)),
                ("fixed", format_id(n, enc)),
                ("shortest", format_id(n, enc, True)),
            ):
                if c[key] != got:
                    problems.append(f"{here}: {key} is {c[key]!r}, the model gives {got!r}")
        elif "text" in c:
            got = parse_id(c["text"], enc)
            want = int(c["id"]) if "id" in c else None
            if got != want:
                problems.append(f"{here}: the model parses {c['text']!r} to {got}, not {want}")
        elif enc in ENCODINGS:
            problems.append(f"{here}: formatting fails only for an unknown encoding")
    return problems


# The warnings of a new generator (the header's sfc_generator_warning_at).
WARNINGS_DECIDED_MS = 1795910400000  # 2026-11-29T00:00:00Z: the cases hold from then on
TEN_YEARS_MS = 3652 * 86_400_000  # the core's "within ten years"
LATEST_READ_MS = 7258118400000  # 2200-01-01T00:00:00Z: no vector is read later
UNIT_US = {"us": 1, "ms": 1000, "s": 1_000_000}


def time_end_ms(spec: str, epoch: str) -> int:
    """When a layout's time field (the first) runs out, Unix ms."""
    name, _, rest = spec.split(",")[0].partition(":")
    assert name == "time", spec
    bits, _, unit = rest.partition("@")
    unit = unit or "1ms"
    unit_us = int(unit.rstrip("usm")) * UNIT_US[unit.lstrip("0123456789")]
    if epoch.isdigit():
        epoch_ms = int(epoch)
    else:
        when = datetime.fromisoformat(epoch.replace("Z", "+00:00"))
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        epoch_ms = int(when.timestamp() * 1000)
    return epoch_ms + (2 ** int(bits)) * unit_us // 1000


def check_warnings(cases: list) -> list[str]:
    problems = []
    today_ms = int(time.time() * 1000)
    for i, c in enumerate(cases):
        if "warnings" not in c:
            continue
        here = f"contract.json[{i}] {c.get('description')!r}"
        end = time_end_ms(c["args"]["layout"], c["args"]["epoch"])
        ending = end - WARNINGS_DECIDED_MS < TEN_YEARS_MS
        if not ending and end - LATEST_READ_MS < TEN_YEARS_MS:
            problems.append(f"{here}: whether its layout warns moves with the date (it ends at {end} ms)")
        if ending != (end - max(today_ms, WARNINGS_DECIDED_MS) < TEN_YEARS_MS):
            problems.append(f"{here}: today's outcome is not the one decided")
        want = ([] if c.get("guard") else ["Unguarded"]) + (["LayoutEnding"] if ending else [])
        got = [w["kind"] for w in c["warnings"]]
        if got != want:
            problems.append(f"{here}: warns {got}, the model says {want}")
        day = datetime.fromtimestamp(end / 1000, timezone.utc).strftime("%Y-%m-%d")
        for w in c["warnings"]:
            if w["kind"] == "LayoutEnding" and day not in w["message_has"]:
                problems.append(f"{here}: LayoutEnding does not name the day it ends, {day}")
    return problems


def check(directory: Path, run_model: bool) -> list[str]:
    problems: list[str] = []
    schema = json.loads((directory / "schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    seen: dict[str, str] = {}
    files = sorted(p for p in directory.glob("*.json") if p.name != "schema.json")
    if not files:
        problems.append(f"{directory}: no vector files")
    for path in files:
        shape = f"{path.stem}_file"
        if shape not in schema["$defs"]:
            problems.append(f"{path.name}: no case shape '{shape}' in schema.json")
            continue
        try:
            cases = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            problems.append(f"{path.name}: not JSON: {e}")
            continue
        validator = jsonschema.Draft202012Validator(
            {**schema, "$ref": f"#/$defs/{shape}"}
        )
        for err in sorted(validator.iter_errors(cases), key=lambda e: list(e.path)):
            where = "/".join(str(p) for p in err.absolute_path)
            problems.append(f"{path.name}: at /{where}: {err.message[:300]}")
        if not isinstance(cases, list):
            continue
        for name, checker in (("encodings.json", check_encodings), ("contract.json", check_warnings)):
            if path.name != name:
                continue
            try:
                problems += checker(cases)
            except (KeyError, ValueError, TypeError, AssertionError) as e:
                problems.append(f"{path.name}: malformed case ({e!r})")
        for i, case in enumerate(cases):
            desc = case.get("description") if isinstance(case, dict) else None
            if not isinstance(desc, str) or not desc.strip():
                problems.append(f"{path.name}[{i}]: missing description")
                continue
            here = f"{path.name}[{i}]"
            if desc in seen:
                problems.append(
                    f"{here}: description {desc!r} already used by {seen[desc]}"
                )
            else:
                seen[desc] = here
    model = directory / "tools" / "gen_vectors.py"
    if run_model and model.exists():
        r = subprocess.run(
            [sys.executable, str(model), "--check"], capture_output=True, text=True
        )
        if r.returncode != 0:
            problems.append(
                "the files differ from what tools/gen_vectors.py generates "
                f"(run it to regenerate): {r.stderr.strip()}"
            )
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description="Validate the shared test vectors.")
    ap.add_argument(
        "directory", nargs="?", type=Path, default=Path(__file__).resolve().parent
    )
    ap.add_argument(
        "--no-model",
        action="store_true",
        help="do not compare with tools/gen_vectors.py",
    )
    args = ap.parse_args()
    problems = check(args.directory, not args.no_model)
    for p in problems:
        print(p, file=sys.stderr)
    n = (
        sum(
            len(json.loads(p.read_text()))
            for p in args.directory.glob("*.json")
            if p.name != "schema.json"
        )
        if not problems
        else 0
    )
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"vectors ok: {n} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
