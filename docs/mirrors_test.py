"""scripts/docs --check fails when a typed mirror differs from the core's tables.

The typed mirrors (Python's TypedDicts, TypeScript's interfaces, a lease's
stats among them, Java's Stats getters and Builder setters) are generated
blocks of scripts/docs. In a copy of the documents it reads, each change
below (a name, a type) must fail the check with a diff of that file, and
scripts/docs must write the file back as it was.

  mirrors_test.py DOC_TABLES      (meson test docs-mirrors)
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import io
import shutil
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "docs"
STATS_JAVA = "java/src/main/java/io/snowflakec/Stats.java"
GENERATOR_JAVA = "java/src/main/java/io/snowflakec/Generator.java"

# A file, a line of one of its mirrors, and that line changed.
CHANGES = [
    ("python/snowflake_c/_types.py", "    ids_issued: int\n", "    ids_issue: int\n"),
    ("python/snowflake_c/_types.py", "    max_wait: Duration | None\n", "    max_wait: int | None\n"),
    ("python/snowflake_c/_types.py", '    _TimeSource = Literal["wall", ', '    _TimeSource = Literal["wal", '),
    ("python/snowflake_c/_types.py", "    max_id: int\n", "    max_id: str\n"),
    ("python/snowflake_c/_types.py", "    duration_ms: int\n", "    duration: int\n"),
    ("python/snowflake_c/_types.py", '"pool", "lease"]', '"pool"]'),
    ("python/snowflake_c/_types.py", '"instagram", "jssafe"]', '"instagram"]'),
    ("node/index.d.ts", "'base58' | 'base62';", "'base58';"),
    ("node/index.d.ts", "'pool' | 'lease';", "'pool';"),
    ("node/index.d.ts", "  idsIssued: number;\n", "  idsIssue: number;\n"),
    ("node/index.d.ts", "  readonly bits: number;\n", "  readonly width: number;\n"),
    ("node/index.d.ts", "  randomStart?: boolean | null;\n", "  randomStart?: string | null;\n"),
    ("node/index.d.ts", "  horizonMs: number;\n", "  horizonMs: bigint;\n"),
    (STATS_JAVA, "  public long idsIssued() {\n", "  public long idsIssue() {\n"),
    (
        GENERATOR_JAVA,
        "    public Builder maxWait(Duration maxWait) {\n",
        "    public Builder maxWait(long maxWait) {\n",
    ),
]


def load_docs() -> types.ModuleType:
    """scripts/docs as a module (it has no .py)."""
    loader = importlib.machinery.SourceFileLoader("scripts_docs", str(SCRIPT))
    spec = importlib.util.spec_from_loader("scripts_docs", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["scripts_docs"] = module  # for its dataclasses
    loader.exec_module(module)
    return module


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


def run(docs: types.ModuleType, tree: Path, *args: str) -> Run:
    """scripts/docs' main in this process, on the tables read once."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = docs.main([*args, "--tables", "-", "--root", str(tree)])
        except SystemExit as e:  # its fail()
            code = e.code if isinstance(e.code, int) else 1
    return Run(code, out.getvalue(), err.getvalue())


def main(program: str) -> int:
    docs = load_docs()
    # doc-tables once: each run holds the guard's claim of its example while
    # it runs, and two at a time refuse each other (meson runs this test
    # alone, so that the `docs` test's does not meet this one).
    tables, targets = docs.read_tables(program), docs.read_targets()
    setattr(docs, "read_tables", lambda _program: tables)  # noqa: B010
    setattr(docs, "read_targets", lambda: targets)  # noqa: B010
    render = docs.Render(tables, targets)
    paths = {*docs.blocks(render), *docs.whole_files(render), *docs.GUARD_QUOTES}
    paths |= {path for path, *_ in docs.JAVA_ENUMS}
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        for path in paths:
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / path, tree / path)
        # The Java enums that give an option a second setter (TimeSource).
        shutil.copytree(ROOT / docs.JAVA_SOURCES, tree / docs.JAVA_SOURCES, dirs_exist_ok=True)
        same = run(docs, tree, "--check")
        if same.returncode != 0:
            print(f"the copy, unchanged, fails the check:\n{same.stdout}{same.stderr}")
            return 1
        for path, old, new in CHANGES:
            file = tree / path
            text = file.read_text(encoding="utf-8")
            if text.count(old) != 1:
                failed.append(f"{path}: {old.strip()!r} is not there once: the mirror changed, update CHANGES")
                continue
            file.write_text(text.replace(old, new), encoding="utf-8")
            check = run(docs, tree, "--check")
            if check.returncode != 1 or f"a/{path}" not in check.stdout:
                failed.append(f"{path}: with {new.strip()!r}, the check exits {check.returncode}:\n{check.stdout}")
            written = run(docs, tree)
            if written.returncode != 0 or file.read_text(encoding="utf-8") != text:
                failed.append(f"{path}: scripts/docs did not write {old.strip()!r} back: {written.stderr}")
            file.write_text(text, encoding="utf-8")
    for line in failed:
        print(f"mirrors_test: {line}", file=sys.stderr)
    if not failed:
        print(f"docs-mirrors: {len(CHANGES)} changes to the typed mirrors fail scripts/docs --check")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
