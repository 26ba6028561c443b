"""The site's own pages: the landing page, the Markdown documents, the C API.

    render.py OUT

writes into OUT (which scripts/site has emptied):

  index.html         the landing page: every part of the site
  docs/...           README.md rendered, with every Markdown document it links
                     to (transitively) rendered beside it at its own path, and
                     every other file it links to copied; links between them
                     point at the rendered pages, headings carry GitHub's ids
  cli/index.html     core/cli/snowflake-c.1, the CLI's manual: a section per
                     command (id command-NAME), an entry per option (id
                     option-NAME, option-X for a short form)
  c/index.html       core/include/snowflake_c.h, the C manual: its comments as
                     prose, its declarations as code, an anchor per function,
                     type, macro and enum constant (id = the name), every
                     mention of a name linked to its declaration

The Python, Node.js and Java references (python/, node/, java/) are written by
pdoc, TypeDoc and javadoc (scripts/site); the landing page links to them.
"""

from __future__ import annotations

import html
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

ROOT = Path(__file__).resolve().parent.parent.parent
HEADER = ROOT / "core/include/snowflake_c.h"

STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 0 auto;
       padding: 1rem 1.5rem 4rem; color: #1f2328; }
nav.top { font-size: 0.9rem; border-bottom: 1px solid #d0d7de; padding-bottom: 0.5rem; }
pre, code { font: 0.875rem/1.45 ui-monospace, monospace; }
pre { background: #f6f8fa; padding: 0.75rem 1rem; overflow-x: auto; border-radius: 6px; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; }
.doc { white-space: pre-wrap; font: 0.875rem/1.45 ui-monospace, monospace; margin: 1.25rem 0 0.25rem; }
a.def { font-weight: bold; color: inherit; }
.toc li { margin: 0.15rem 0; }
.toc code { margin-right: 0.4rem; }
"""


def page(title: str, body: str, depth: int) -> str:
    """A complete HTML page `depth` folders below the site's root."""
    up = "../" * depth
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f'<nav class="top"><a href="{up}index.html">snowflake-c documentation</a>'
        f' · <a href="{up}search.html">search</a></nav>\n'
        f"{body}\n</body>\n</html>\n"
    )


def version() -> str:
    found = re.search(r'^#define SFC_VERSION_STRING "([^"]+)"', HEADER.read_text(), re.M)
    if not found:
        sys.exit(f"render.py: no SFC_VERSION_STRING in {HEADER}")
    return found.group(1)


# ---- Markdown documents ------------------------------------------------------


def markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return md.use(anchors_plugin, min_level=1, max_level=6)


PYTHON_PACKAGE = Path("python/snowflake_c")


def render_documents(out: Path) -> None:
    """README.md and every Markdown document it leads to, into out/docs."""
    md = markdown()
    docs = out / "docs"
    queue, seen = [Path("README.md")], {Path("README.md")}
    listings: set[Path] = set()

    def target(source: Path, url: str) -> str:
        """`url` as written in `source`, pointed at the site's copy."""
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path or url.startswith("/"):
            return url
        full = (ROOT / source.parent / unquote(parts.path)).resolve()
        if not full.is_relative_to(ROOT) or not full.exists():
            return url  # left as written: the link check reports it
        rel = full.relative_to(ROOT)
        if rel.parent == PYTHON_PACKAGE and rel.suffix == ".py" and not rel.name.startswith("_"):
            # A public submodule of the Python package: its pdoc page (python/
            # beside docs/ in the site), not a copy of its source.
            page_path = PYTHON_PACKAGE / rel.with_suffix(".html").name
            return "../" + relative(page_path, source.with_suffix(".html"))
        if full.is_dir():
            if (full / "README.md").is_file():
                rel = rel / "README.md"
            else:
                listings.add(rel)
                rel = rel / "index.html"
        if rel.suffix == ".md":
            if rel not in seen:
                seen.add(rel)
                queue.append(rel)
            rel = rel.with_suffix(".html")
        elif rel.name != "index.html" or rel.parent not in listings:
            (docs / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(full, docs / rel)
        link = relative(rel, source.with_suffix(".html"))
        return link + (f"#{parts.fragment}" if parts.fragment else "")

    while queue:
        source = queue.pop(0)
        text = (ROOT / source).read_text(encoding="utf-8")
        tokens = md.parse(text)
        title = source.as_posix()
        for i, token in enumerate(tokens):
            if token.type == "heading_open" and token.tag == "h1" and title == source.as_posix():
                title = tokens[i + 1].content
            for child in [token, *(token.children or [])]:
                for attr in ("href", "src"):
                    value = child.attrGet(attr)
                    if isinstance(value, str):
                        child.attrSet(attr, target(source, value))
        body = md.renderer.render(tokens, md.options, {})
        dest = docs / source.with_suffix(".html")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(page(title, body, len(source.parts)), encoding="utf-8")

    for folder in sorted(listings):
        items = "".join(
            f'<li><a href="{html.escape(p.name)}">{html.escape(p.name)}</a></li>\n'
            for p in sorted((ROOT / folder).iterdir())
            if p.is_file()
        )
        for p in (ROOT / folder).iterdir():
            if p.is_file():
                (docs / folder).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, docs / folder / p.name)
        body = f"<h1><code>{html.escape(folder.as_posix())}/</code></h1>\n<ul>\n{items}</ul>"
        (docs / folder / "index.html").write_text(page(folder.as_posix(), body, len(folder.parts) + 1))


def relative(path: Path, start: Path) -> str:
    """`path` from the folder of `start`, both relative to one root."""
    up = len(start.parent.parts)
    return "../" * up + path.as_posix()


# ---- the C header --------------------------------------------------------------

BANNER = re.compile(r"^/\*\s*(=+|[^=*].*?)\s*\*/$")
FUNCTION = re.compile(r"\bSFC_API\b[^;{]*?\b(sfc_\w+)\s*\(")
TYPEDEF_END = re.compile(r"}\s*(sfc_\w+)\s*;")
TYPEDEF_ONE = re.compile(r"\btypedef\b[^;{}]*?\(?\s*\*?\s*\b(sfc_\w+)\s*\)?\s*(?:\(|;)")
MACRO = re.compile(r"^#define\s+(SFC_\w+)", re.M)
CONSTANT = re.compile(r"^\s*(SFC_[A-Z0-9_]+)\s*(?:=|,|$)", re.M)
NAME = re.compile(r"\b(?:sfc|SFC)_\w+\b")


def header_chunks(lines: list[str]) -> list[list[str]]:
    """The header after its opening comment, split at blank lines outside
    comments and braces."""
    chunks: list[list[str]] = []
    current: list[str] = []
    in_comment, depth = False, 0
    for line in lines:
        if not line.strip() and not in_comment and depth == 0:
            if current:
                chunks.append(current)
            current = []
            continue
        current.append(line)
        code = re.sub(r"/\*.*?\*/", "", line)
        if in_comment:
            if "*/" in line:
                in_comment = False
                code = line.split("*/", 1)[1]
            else:
                code = ""
        if "/*" in code and "*/" not in code.split("/*", 1)[1]:
            in_comment = True
            code = code.split("/*", 1)[0]
        code = re.sub(r'"(\\.|[^"\\])*"', "", code)
        if line.strip() == 'extern "C" {':  # no scope: its } comes at depth 0
            code = ""
        depth = max(0, depth + code.count("{") - code.count("}"))
    if current:
        chunks.append(current)
    return chunks


def split_comments(chunk: list[str]) -> list[tuple[list[str], list[str]]]:
    """A chunk as (comment, code) pairs: each comment that starts a line
    outside braces, and the code after it."""
    pairs: list[tuple[list[str], list[str]]] = [([], [])]
    in_comment, depth = False, 0
    for line in chunk:
        if in_comment:
            pairs[-1][0].append(line)
            in_comment = "*/" not in line
            continue
        if line.lstrip().startswith("/*") and depth == 0:
            if pairs[-1] != ([], []):
                pairs.append(([], []))
            pairs[-1][0].append(line)
            in_comment = "*/" not in line
            continue
        pairs[-1][1].append(line)
        code = re.sub(r'/\*.*?\*/|"(\\.|[^"\\])*"', "", line)
        depth = max(0, depth + code.count("{") - code.count("}"))
    return pairs


def comment_text(lines: list[str]) -> str:
    text = []
    for line in lines:
        line = line.strip()
        line = re.sub(r"^/\*+ ?", "", line)
        line = re.sub(r" ?\*+/$", "", line)
        line = re.sub(r"^\* ?", "", line)
        text.append(line)
    return "\n".join(text).strip("\n")


def declared(code: str) -> list[str]:
    """The names a piece of the header declares, in order."""
    names: list[tuple[int, str]] = []
    for pattern in (FUNCTION, TYPEDEF_END, TYPEDEF_ONE, MACRO):
        names += [(m.start(1), m.group(1)) for m in pattern.finditer(code)]
    if re.search(r"\btypedef\s+enum\b", code):
        body = code[code.index("{") + 1 : code.rindex("}")]
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        start = code.index("{") + 1
        names += [(start + m.start(1), m.group(1)) for m in CONSTANT.finditer(body)]
    ordered: list[str] = []
    for _, name in sorted(names):
        if name not in ordered and name != "SFC_API":
            ordered.append(name)
    return ordered


def render_header(out: Path) -> None:
    lines = HEADER.read_text(encoding="utf-8").splitlines()
    end = next(i for i, line in enumerate(lines) if "*/" in line)
    overview = comment_text(lines[: end + 1])
    chunks = header_chunks(lines[end + 1 :])

    # Sections: a banner is three comment lines, "=====", the title, "=====".
    sections: list[tuple[str, list[tuple[list[str], list[str]]]]] = [("", [])]
    for chunk in chunks:
        banner = [BANNER.match(line.strip()) for line in chunk]
        if len(chunk) == 3 and all(banner):
            title = banner[1].group(1)  # type: ignore[union-attr]
            sections.append((title, []))
            continue
        sections[-1][1].extend(split_comments(chunk))

    known: dict[str, str] = {}
    for _, items in sections:
        for _, code in items:
            for name in declared("\n".join(code)):
                known.setdefault(name, name)

    defined: set[str] = set()

    def link(text: str, define: list[str]) -> str:
        def one(m: re.Match[str]) -> str:
            name = m.group(0)
            if name in define and name not in defined:
                defined.add(name)
                return f'<a class="def" id="{name}" href="#{name}">{name}</a>'
            if name in known:
                return f'<a href="#{name}">{name}</a>'
            return name

        return NAME.sub(one, html.escape(text, quote=False))

    toc, body = [], []
    for title, items in sections:
        if title:
            slug = "section-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
            body.append(f'<h2 id="{slug}">{html.escape(title)}</h2>')
            names = [n for _, code in items for n in declared("\n".join(code)) if n.startswith("sfc_")]
            entries = " ".join(f'<a href="#{n}"><code>{n}</code></a>' for n in dict.fromkeys(names))
            toc.append(f'<li><a href="#{slug}">{html.escape(title)}</a>: {entries}</li>')
        for comment, code in items:
            names = declared("\n".join(code))
            if comment:
                body.append(f'<div class="doc">{link(comment_text(comment), [])}</div>')
            if code:
                body.append(f"<pre><code>{link(chr(10).join(code), names)}</code></pre>")
    missing = sorted(set(known) - defined)
    if missing:
        sys.exit(f"render.py: declared but given no anchor: {', '.join(missing)}")

    text = (
        f"<h1><code>snowflake_c.h</code> {version()}</h1>\n"
        '<p>The C API: <a href="#overview">overview</a>, then the header section by section. '
        "Every function, type, macro and enum constant has an anchor of its own name.</p>\n"
        f'<ul class="toc">\n{chr(10).join(toc)}\n</ul>\n'
        f'<h2 id="overview">Overview</h2>\n<div class="doc">{link(overview, [])}</div>\n' + "\n".join(body)
    )
    (out / "c").mkdir(parents=True, exist_ok=True)
    (out / "c" / "index.html").write_text(page("snowflake_c.h — the C API", text, 1), encoding="utf-8")


# ---- the CLI's manual ----------------------------------------------------------

MANUAL = ROOT / "core/cli/snowflake-c.1"


def roff_inline(text: str) -> str:
    """The manual's inline roff (\\fB, \\fI, \\fR, \\-, \\e) as HTML."""
    out, open_tag = [], None
    for piece in re.split(r"(\\f[BIRP])", text.replace("\\-", "-").replace("\\e", "\\")):
        if re.fullmatch(r"\\f[BIRP]", piece):
            if open_tag:
                out.append(f"</{open_tag}>")
                open_tag = None
            if piece[2] in "BI":
                open_tag = "b" if piece[2] == "B" else "i"
                out.append(f"<{open_tag}>")
        else:
            out.append(html.escape(piece, quote=False))
    if open_tag:
        out.append(f"</{open_tag}>")
    return "".join(out)


def roff_plain(text: str) -> str:
    return re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-").replace("\\e", "\\")


def render_cli(out: Path) -> None:
    """core/cli/snowflake-c.1, the manual that `snowflake-c help --man` writes
    from the command's own tables, as cli/index.html: a section per command
    (id command-NAME) and an entry per option (id option-NAME, and
    option-X for its short form -X)."""
    lines = [line for line in MANUAL.read_text(encoding="utf-8").splitlines() if not line.startswith('.\\"')]
    body: list[str] = []
    toc: list[str] = []
    para: list[str] = []
    # The open lists, innermost last: whether each has a <dd> open. An .RS
    # followed by .TP nests a list in the entry it is in.
    lists: list[bool] = []
    state = {"pre": False, "term": False, "nest": False}

    def flush() -> None:
        if para:
            body.append("<p>" + " ".join(para) + "</p>")
            para.clear()

    def close_list() -> None:
        if lists.pop():
            body.append("</dd>")
        body.append("</dl>")

    def close_all() -> None:
        flush()
        while lists:
            close_list()

    for line in lines:
        request, _, rest = line.partition(" ")
        if state["pre"]:
            if line == ".fi":
                body.append("</pre>")
                state["pre"] = False
            else:
                body.append(roff_inline(line))
            continue
        if state["term"]:  # the term of a .TP entry: an option gets its anchors
            state["term"] = False
            names = [roff_plain(w) for w in re.findall(r"\\fB(\\-[^\\]*(?:\\-[^\\]*)*)\\fR", line)]
            ids = "".join(f'<a id="option-{n.lstrip("-")}"></a>' for n in names)
            body.append(f"<dt>{ids}{roff_inline(line)}</dt><dd>")
            lists[-1] = True
            continue
        if request == ".TH":
            continue
        if request == ".SH":
            close_all()
            words = roff_plain(rest.strip('"')).split()
            title = " ".join(w if w == "JSON" else w.lower() for w in words)
            title = title[:1].upper() + title[1:]
            slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
            body.append(f'<h2 id="{slug}">{html.escape(title)}</h2>')
            toc.append(f'<li><a href="#{slug}">{html.escape(title)}</a></li>')
        elif request == ".SS":
            close_all()
            heading = roff_plain(rest.strip('"'))
            name = heading.split()[0]
            body.append(f'<h3 id="command-{name}"><code>snowflake-c {html.escape(heading)}</code></h3>')
            toc.append(f'<li><a href="#command-{name}"><code>{html.escape(name)}</code></a></li>')
        elif request in (".PP", ".br"):
            flush()
        elif request == ".nf":
            flush()
            body.append("<pre>")
            state["pre"] = True
        elif request == ".TP":
            flush()
            if state["nest"] or not lists:
                body.append("<dl>")
                lists.append(False)
                state["nest"] = False
            elif lists[-1]:
                body.append("</dd>")
                lists[-1] = False
            state["term"] = True
        elif request == ".RS":
            flush()
            state["nest"] = True
        elif request == ".RE":
            flush()
            if state["nest"]:
                state["nest"] = False
            elif len(lists) > 1:
                close_list()
        elif request in (".fi", "."):
            continue
        elif line.startswith("."):
            sys.exit(f"render.py: {MANUAL.name}: a request the renderer does not know: {line}")
        else:
            para.append(roff_inline(line))
    close_all()
    text = (
        "<h1><code>snowflake-c</code>, the command line</h1>\n"
        "<p>The manual of the CLI (<code>man snowflake-c</code>, "
        "<code>snowflake-c help --man</code>), written from the command's own tables. "
        "<code>snowflake-c help COMMAND</code> prints the same for one command.</p>\n"
        '<ul class="toc">' + "".join(toc) + "</ul>\n" + "\n".join(body)
    )
    (out / "cli").mkdir(parents=True, exist_ok=True)
    (out / "cli" / "index.html").write_text(page("snowflake-c(1) — the CLI", text, 1), encoding="utf-8")


# ---- the landing page ----------------------------------------------------------


def render_index(out: Path) -> None:
    bindings = "".join(
        f'<li><a href="docs/{lang}/README.html">{name}</a></li>\n'
        for lang, name in (("python", "Python"), ("node", "Node.js"), ("java", "Java"))
    )
    body = f"""<h1>snowflake-c {version()}</h1>
<p>64-bit, time-ordered unique IDs (the Snowflake family) from a lock-free C core,
with the same IDs, decoding and JSON in every language.</p>
<p><a href="search.html">Search</a> the guides and every reference at once.</p>
<h2>Guides</h2>
<ul>
<li><a href="docs/README.html">README</a>: the CLI, layouts, guarantees, clock rollback,
options, node identity, Kubernetes, errors, platforms, speed</li>
</ul>
<p>Each binding's guide:</p>
<ul>
{bindings}</ul>
<h2>API reference</h2>
<ul>
<li><a href="cli/index.html">CLI</a>: the manual of <code>snowflake-c</code>, every command and option</li>
<li><a href="c/index.html">C</a>: <code>core/include/snowflake_c.h</code>, the core's whole API</li>
<li><a href="python/snowflake_c.html">Python</a>: the <code>snowflake_c</code> package, and its
framework integrations <a href="python/snowflake_c/sqlalchemy.html"><code>snowflake_c.sqlalchemy</code></a>,
<a href="python/snowflake_c/django.html"><code>snowflake_c.django</code></a>,
<a href="python/snowflake_c/pydantic.html"><code>snowflake_c.pydantic</code></a></li>
<li><a href="node/index.html">Node.js</a>: the package's types, by entry point:
<a href="node/modules/snowflake-c.html"><code>snowflake-c</code></a>,
<a href="node/modules/snowflake-c_json.html"><code>snowflake-c/json</code></a>,
<a href="node/modules/snowflake-c_wasm.html"><code>snowflake-c/wasm</code></a></li>
<li><a href="java/index.html">Java</a>: the <code>io.snowflakec</code> module, and its framework
integrations <a href="java-integrations/hibernate/index.html"><code>io.snowflakec.hibernate</code></a>,
<a href="java-integrations/jackson/index.html"><code>io.snowflakec.jackson</code></a> (Jackson 3),
<a href="java-integrations/jackson2/index.html"><code>io.snowflakec.jackson2</code></a> (Jackson 2),
<a href="java-integrations/spring/index.html"><code>io.snowflakec.spring</code></a> (Spring Boot)</li>
</ul>
"""
    (out / "index.html").write_text(page(f"snowflake-c {version()}", body, 0), encoding="utf-8")


def render_search(out: Path) -> None:
    """One search over every page of the site: Pagefind's interface over the
    index that scripts/site builds (pagefind/) once every page is written."""
    body = """<h1>Search</h1>
<p>The guides, the README and the CLI, C, Python, Node.js, Java and integrations references.</p>
<link href="pagefind/pagefind-ui.css" rel="stylesheet">
<script src="pagefind/pagefind-ui.js"></script>
<div id="search"></div>
<script>
window.addEventListener("DOMContentLoaded", () => {
  // Results link from where this page is served (the site may live below a path).
  const baseUrl = new URL(".", location.href).pathname;
  const ui = new PagefindUI({ element: "#search", showSubResults: true, baseUrl });
  const q = new URLSearchParams(location.search).get("q");
  if (q) ui.triggerSearch(q);
});
</script>
<noscript>The search runs in the browser and needs JavaScript.</noscript>"""
    (out / "search.html").write_text(page("Search — snowflake-c", body, 0), encoding="utf-8")


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: render.py OUT")
    out = Path(sys.argv[1])
    render_documents(out)
    render_header(out)
    render_cli(out)
    render_index(out)
    render_search(out)


if __name__ == "__main__":
    main()
