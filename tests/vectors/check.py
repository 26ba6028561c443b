#!/usr/bin/env python3
"""Checks the shared test vectors.

    python3 tests/vectors/check.py [VECTORS_DIR]

- every *.json file but schema.json is validated against schema.json (the
  file name picks the case shape: decode.json -> $defs/decode_file); a file
  whose name has no shape in the schema is an error;
- every case has a non-empty description, unique across all files;
- the files are what tools/gen_vectors.py (the independent reference model)
  generates, unless --no-model is given.

Exits 0 when all is well, 1 on any problem (each printed on stderr), 2 when
the `jsonschema` package is missing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:  # pragma: no cover - depends on the machine
    print(
        "check.py needs the jsonschema package: pip install jsonschema", file=sys.stderr
    )
    sys.exit(2)


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
