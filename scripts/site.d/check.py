"""Checks a site that scripts/site built.

    check.py SITE

Fails (exit 1, each problem on a line) when
  - a link of a page (href, src) names a local file that is not in SITE, or
    leaves SITE, or names an anchor (#id) that its page does not have;
  - a public name has no page or anchor in its reference:
      C        every SFC_API function of core/include/snowflake_c.h has an
               anchor of its name in c/index.html
      Python   every name of snowflake_c.__all__ (the package as installed in
               the interpreter that runs this) has one in
               python/snowflake_c.html, and every name of the __all__ of
               snowflake_c.sqlalchemy, .django and .pydantic one in
               python/snowflake_c/<submodule>.html
      Node.js  each entry point of the package (snowflake-c,
               snowflake-c/json, snowflake-c/wasm) has its TypeDoc module
               page, and every export it declares its own page
               (node/classes/snowflake-c.NAME.html,
               node/functions/snowflake-c_json.NAME.html, …)
      Java     every public type of the io.snowflakec sources, nested ones
               too, has its javadoc page; so does every public type of the
               integrations (java-integrations/snowflake-c-*), in
               java-integrations/<package>/.
      PostgreSQL
               every function of the extension (CREATE FUNCTION in
               bindings/postgres/snowflake_c.sql) is shown called, NAME(, on
               docs/docs/postgres.html;
  - the CLI's manual (cli/index.html) lacks a command or option of the CLI
    as its own tables give them (snowflake-c --help and snowflake-c help
    COMMAND, of the CLI installed beside this interpreter, or $SFC_CLI): every
    command has its section (id command-NAME), every option of every command
    its entry (id option-NAME, option-X for a short form -X), and every
    option of the command itself (snowflake-c --version) is shown on the page;
  - a Markdown document of the repository (git ls-files '*.md') is not a
    page of the site (docs/<path>.html): every one is linked from the README
    or from a document it leads to.
The external links (http, https) are listed, not fetched.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent.parent
LINKS = {"href": {"a", "link", "area"}, "src": {"img", "script", "iframe", "source", "embed"}}


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                self.ids.add(value)
            elif tag in LINKS.get(name, ()):
                self.links.append((self.getpos()[0], value))

    handle_startendtag = handle_starttag


def parse(path: Path, cache: dict[Path, Page]) -> Page:
    if path not in cache:
        page = Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        page.close()
        cache[path] = page
    return cache[path]


def check_links(site: Path, problems: list[str]) -> Counter[str]:
    cache: dict[Path, Page] = {}
    external: Counter[str] = Counter()
    pages = sorted(site.rglob("*.html"))
    for path in pages:
        where = path.relative_to(site)
        for line, url in parse(path, cache).links:
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") or url.startswith("//"):
                external[url] += 1
                continue
            if parts.scheme:  # mailto:, javascript:, data:
                continue
            target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
            if not target.is_relative_to(site):
                problems.append(f"{where}:{line}: {url}: outside the site")
                continue
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{where}:{line}: {url}: no such file")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html" and fragment not in parse(target, cache).ids:
                problems.append(f"{where}:{line}: {url}: no id {fragment!r} in {target.relative_to(site)}")
    print(f"links: {len(pages)} pages, {sum(len(p.links) for p in cache.values())} links checked")
    return external


def ids(path: Path) -> set[str]:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page.ids


def require(site: Path, what: str, names: list[str], found: set[str] | None, problems: list[str], page=None) -> None:
    if not names:
        problems.append(f"{what}: no public names found (the parser is out of date)")
    for name in names:
        if found is None:
            if not (site / page(name)).is_file():
                problems.append(f"{what}: {name} has no page {page(name)}")
        elif name not in found:
            problems.append(f"{what}: {name} has no anchor")
    print(f"{what}: {len(names)} public names")


def check_names(site: Path, problems: list[str]) -> None:
    header = (ROOT / "core/include/snowflake_c.h").read_text()
    functions = re.findall(r"\bSFC_API\b[^;{]*?\b(sfc_\w+)\s*\(", header)
    require(site, "C", functions, ids(site / "c/index.html"), problems)

    import snowflake_c

    require(site, "Python", list(snowflake_c.__all__), ids(site / "python/snowflake_c.html"), problems)
    for submodule in ("sqlalchemy", "django", "pydantic"):
        module = importlib.import_module(f"snowflake_c.{submodule}")
        page = site / f"python/snowflake_c/{submodule}.html"
        found = ids(page) if page.is_file() else set()
        require(site, f"Python snowflake_c.{submodule}", list(module.__all__), found, problems)

    folders = {
        "class": "classes",
        "function": "functions",
        "interface": "interfaces",
        "type": "types",
        "const": "variables",
        "let": "variables",
        "enum": "enums",
    }
    entries = {
        "snowflake-c": "node/index.d.ts",
        "snowflake-c/json": "node/json.d.ts",
        "snowflake-c/wasm": "node/wasm/index.d.ts",
    }
    where: dict[str, str] = {}
    for module, source in entries.items():
        prefix = module.replace("/", "_")
        where[module] = f"node/modules/{prefix}.html"
        typescript = (ROOT / source).read_text()
        exports = dict.fromkeys(
            re.findall(
                r"^export\s+(?:declare\s+)?(class|function|interface|type|const|let|enum)\s+(\w+)", typescript, re.M
            )
        )
        where |= {f"{module}: {name}": f"node/{folders[kind]}/{prefix}.{name}.html" for kind, name in exports}
    require(site, "Node.js", list(where), None, problems, page=where.get)

    pages = site / "java/io.snowflakec/io/snowflakec"
    types = public_java_types(ROOT / "java/src/main/java/io/snowflakec")
    require(site, "Java", types, None, problems, page=lambda name: (pages / f"{name}.html").relative_to(site))
    integrations: dict[str, Path] = {}
    for module in sorted((ROOT / "java-integrations").glob("snowflake-c-*/src/main/java/io/snowflakec")):
        for package in sorted(p for p in module.iterdir() if p.is_dir()):
            for name in public_java_types(package):
                integrations[f"io.snowflakec.{package.name}.{name}"] = (
                    site / f"java-integrations/{package.name}/io/snowflakec/{package.name}/{name}.html"
                )
    require(
        site,
        "Java integrations",
        list(integrations),
        None,
        problems,
        page=lambda name: integrations[name].relative_to(site),
    )


def check_postgres(site: Path, problems: list[str]) -> None:
    """Every function of the extension shown called on its page."""
    sql = (ROOT / "bindings/postgres/snowflake_c.sql").read_text(encoding="utf-8")
    functions = sorted(set(re.findall(r"^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(\w+)\s*\(", sql, re.M)))
    page = site / "docs/docs/postgres.html"
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    if not functions:
        problems.append("PostgreSQL: no functions found (the parser is out of date)")
    for name in functions:
        if not re.search(rf"\b{name}\(", text):
            problems.append(f"PostgreSQL: {name}() is not shown on docs/docs/postgres.html")
    print(f"PostgreSQL: {len(functions)} functions")


def cli_path() -> Path:
    """The CLI to read the tables of: $SFC_CLI, or the one installed beside
    this interpreter (scripts/site installs the package, CLI included, into
    its venv)."""
    import os

    return Path(os.environ.get("SFC_CLI") or Path(sys.executable).parent / "snowflake-c")


OPTION_LINE = re.compile(r"^  (?:(-\w), )?(--[\w-]+)")


def cli_section(text: str, title: str) -> list[str]:
    """The lines of a section of the CLI's help ("commands:", "options:"),
    up to the next blank line."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(title)]
    out: list[str] = []
    for start in starts:
        for line in lines[start + 1 :]:
            if not line.strip():
                break
            out.append(line)
    return out


def check_cli(site: Path, problems: list[str]) -> None:
    """Every command and option of the CLI on its manual's page."""
    import subprocess

    cli = cli_path()
    if not cli.is_file():
        problems.append(f"CLI: no snowflake-c at {cli} (set SFC_CLI)")
        return

    def run(*args: str) -> str:
        return subprocess.run([str(cli), *args], capture_output=True, text=True, check=True).stdout

    top = run("--help")
    commands = [line.split()[0] for line in cli_section(top, "commands:")]
    own = [m.group(2) for line in cli_section(top, "options:") if (m := OPTION_LINE.match(line))]
    options: dict[str, list[str]] = {}
    for command in commands:
        text = run("help", command)
        for line in cli_section(text, "options:") + cli_section(text, "generator options"):
            if m := OPTION_LINE.match(line):
                for name in m.groups():
                    if name:
                        options.setdefault(name, []).append(command)
    page = site / "cli/index.html"
    found = ids(page) if page.is_file() else set()
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    if not commands or not options or not own:
        problems.append("CLI: no commands or options found in its help (the parser is out of date)")
    for command in commands:
        if f"command-{command}" not in found:
            problems.append(f"CLI: the command {command} has no section (id command-{command}) on cli/index.html")
    for name, taken_by in sorted(options.items()):
        if f"option-{name.lstrip('-')}" not in found:
            problems.append(
                f"CLI: the option {name} (of {', '.join(taken_by)}) has no entry "
                f"(id option-{name.lstrip('-')}) on cli/index.html"
            )
    for name in own:
        if not re.search(rf"snowflake-c {re.escape(name)}\b", text):
            problems.append(f"CLI: snowflake-c {name} is not shown on cli/index.html")
    print(f"CLI: {len(commands)} commands, {len(options)} options, {len(own)} of its own")


def check_documents(site: Path, problems: list[str]) -> None:
    """Every Markdown document of the repository is a page of the site."""
    import subprocess

    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "*.md"], capture_output=True, text=True, check=True
    ).stdout.split()
    missing = [name for name in listed if not (site / "docs" / Path(name).with_suffix(".html")).is_file()]
    for name in missing:
        problems.append(f"documents: {name} is not on the site (docs/{Path(name).with_suffix('.html')}): link it")
    print(f"documents: {len(listed)} Markdown files, {len(listed) - len(missing)} on the site")


def public_java_types(package: Path) -> list[str]:
    """The public types of a package's sources, nested ones as Outer.Inner."""
    types: list[str] = []
    kinds = r"(?:(?:static|final|abstract|sealed|non-sealed|strictfp)\s+)*(?:class|interface|enum|record|@interface)"
    for source in sorted(package.glob("*.java")):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", source.read_text(), flags=re.S)
        for indent, name in re.findall(rf"^([ \t]*)public\s+{kinds}\s+(\w+)", text, re.M):
            types.append(name if not indent else f"{source.stem}.{name}")
    return types


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: check.py SITE")
    site = Path(sys.argv[1]).resolve()
    problems: list[str] = []
    external = check_links(site, problems)
    check_names(site, problems)
    check_postgres(site, problems)
    check_cli(site, problems)
    check_documents(site, problems)
    print(f"external links (listed, not fetched): {len(external)}")
    for url, count in sorted(external.items()):
        print(f"  {url}" + (f" ({count}×)" if count > 1 else ""))
    if problems:
        for problem in problems:
            print(f"site check: {problem}", file=sys.stderr)
        sys.exit(f"site check: {len(problems)} problems")
    print("site check: clean")


if __name__ == "__main__":
    main()
