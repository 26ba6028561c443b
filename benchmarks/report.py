"""Normalises the raw output of every language's benchmark into one JSON schema,
draws the chart and (full runs) rewrites the results section of the README.

Called by benchmarks/run; on its own:

    python benchmarks/report.py --raw build/bench-raw/<stamp> --out benchmarks/results \
        --stamp <date>-<host> [--quick] [--readme benchmarks/README.md] [--failed LANG]...

Inputs in --raw (each optional; a missing language is reported as such):
  c.json                     benchmarks/c/bench --json
  python.json                benchmarks/python/run.sh --json
  node.json                  benchmarks/node/bench.js --json
  java-t1[-rN].json, java-t2[-rN].json   JMH -rf json, 1 and 2 threads (one file per round)
  java-duplicates.json       io.snowflakec.bench.DuplicateCheck
Outputs in --out: <stamp>.json (validated against results.schema.json), <stamp>.svg
and <stamp>.png; with --readme also latest.svg and latest.png.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "results.schema.json"
ID_SCENARIOS = ["next", "next-2-threads", "batch-1000", "classic", "classic-2-threads"]
# String forms: one ID formatted to its fixed-width text, or that text parsed, per call.
# base32 and base62 are the forms peers offer (tsid-creator's and CosId's).
STRING_SCENARIOS = ["format-base32", "parse-base32", "format-base62", "parse-base62"]
# Per-ID work on given IDs, no ID issued, each peer's output checked equal to
# snowflake-c's before timing: the string forms and decode (an ID to its time and fields).
OUTPUT_SCENARIOS = STRING_SCENARIOS + ["decode"]
SCENARIOS = ID_SCENARIOS + OUTPUT_SCENARIOS
SCENARIO_TITLES = {
    "next": "single-ID call, wide layout",
    "next-2-threads": "single-ID call, 2 threads",
    "batch-1000": "batch of 1000",
    "classic": "classic 41/10/12 layout",
    "classic-2-threads": "classic layout, 2 threads",
    "format-base32": "format, base32 (Crockford)",
    "parse-base32": "parse, base32 (Crockford)",
    "format-base62": "format, base62",
    "parse-base62": "parse, base62",
    "decode": "decode, Discord IDs",
}
LANGUAGES = ["c", "python", "node", "java"]
LANGUAGE_TITLES = {"c": "C", "python": "Python", "node": "Node.js", "java": "Java"}
CLASSIC_LIMIT = 4_096_000.0  # IDs/s of a 12-bit sequence per millisecond
CLASSIC = "time:41@1ms,worker:10,seq:12"
OURS = "snowflake-c"
COUNTER = f"{OURS} (time_source=counter)"  # ours, the wall clock read once the CPU's counter says the ms is over
# The floor of the design: a minimal binding doing one next-ID call's work (clock read, tick,
# compare-and-swap of one word, the language's integer), built beside each language's benchmark.
FLOOR = "minimal binding (floor)"
FLOORS = dict.fromkeys(LANGUAGES, FLOOR)
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def record(
    language: str,
    scenario: str,
    implementation: str,
    version: str,
    layout: str,
    threads: int,
    rates: list[float],
    duplicates: int | None,
    checked: int | None,
    *,
    kind: str | None = None,
    classic: bool = False,
    note: str = "",
) -> dict[str, Any]:
    """One result in the common schema from the IDs/s of each repetition."""
    if scenario in OUTPUT_SCENARIOS:  # no IDs issued: nothing to check for duplicates
        duplicates = checked = None
    ids = spread(rates)
    ns = {"median": 1e9 / ids["median"], "min": 1e9 / ids["max"], "max": 1e9 / ids["min"]}
    if kind is None:
        kind = "snowflake-c" if implementation.startswith(OURS) else "reference" if implementation == FLOOR else "peer"
    return {
        "language": language,
        "scenario": scenario,
        "implementation": implementation,
        "kind": kind,
        "version": version,
        "layout": layout,
        "threads": threads,
        "reps": len(rates),
        "ns_per_id": ns,
        "ids_per_s": ids,
        "duplicates": duplicates,
        "ids_checked": checked,
        "fraction_of_limit": ids["median"] / CLASSIC_LIMIT if classic else None,
        "note": note,
    }


# ---- C ---------------------------------------------------------------------


def from_c(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in raw:
        ours = r["implementation"].startswith(OURS)
        ids = r["ids_per_s"]
        ns = r["ns_per_id"]
        out.append(
            {
                "language": "c",
                "scenario": r["scenario"],
                "implementation": r["implementation"],
                "kind": "snowflake-c" if ours else "reference",
                "version": r["version"],
                "layout": r["layout"],
                "threads": r["threads"],
                "reps": r["reps"],
                "ns_per_id": {k: float(ns[k]) for k in ("median", "min", "max")},
                "ids_per_s": {k: float(ids[k]) for k in ("median", "min", "max")},
                "duplicates": r["duplicates"],
                "ids_checked": None,
                "fraction_of_limit": r["fraction_of_limit"],
                "note": "" if ours else "reference built into the benchmark, not a library",
            }
        )
    return out


# ---- Python ------------------------------------------------------------------

# Contender name in bench.py → (scenario, implementation, package, layout, classic limit?).
PYTHON_CASES: dict[str, tuple[str, str, str | None, str | None, bool]] = {
    "snowflake-c next_id() [wide]": ("next", OURS, None, None, False),
    "snowflake-c next_ids(1000) [wide]": ("batch-1000", OURS, None, None, False),
    "snowflake-c next_id() [classic]": ("classic", OURS, None, None, True),
    "snowflake-c next_ids(1000) [classic]": ("classic", f"{OURS} (next_ids(1000))", None, None, True),
    "snowflake-id next(gen)": ("classic", "snowflake-id", "snowflake-id", "time:41@1ms,instance:10,seq:12", True),
    "sonyflake-turbo next(sf) [4096 machines]": (
        "next",
        "sonyflake-turbo (4096 machines)",
        "sonyflake-turbo",
        "time:39@10ms,seq:8,machine:16",
        False,
    ),
    "sonyflake-turbo sf(1000) [4096 machines]": (
        "batch-1000",
        "sonyflake-turbo (4096 machines)",
        "sonyflake-turbo",
        "time:39@10ms,seq:8,machine:16",
        False,
    ),
    "snowflake-id-toolkit generate_next_id()": (
        "classic",
        "snowflake-id-toolkit",
        "snowflake-id-toolkit",
        "time:41@1ms,node:10,seq:12",
        True,
    ),
    "uuid-utils uuid7()": ("next", "uuid-utils (uuid7)", "uuid-utils", "UUIDv7, 128 bits", False),
    "stdlib uuid.uuid4()": ("next", "uuid.uuid4 (stdlib)", None, "UUIDv4, 128 bits, random", False),
    "snowflake-c next_id() [wide, time_source=counter]": ("next", COUNTER, None, None, False),
    "minimal binding next_id() [wide, floor]": ("next", FLOOR, None, None, False),
    # format_id / parse_id on IDs of the wide layout, fixed width.
    **{
        f"snowflake-c {call}({arg}, {enc!r})": (f"{op}-{enc}", OURS, None, None, False)
        for op, call, arg in (("format", "format_id", "id"), ("parse", "parse_id", "text"))
        for enc in ("base32", "base62")
    },
}


def python_versions(root: Path) -> dict[str, str]:
    """Versions of the packages in the Python benchmark's venv (build/bench-venv)."""
    paths = glob.glob(str(root / "build/bench-venv/lib/python*/site-packages"))
    return {
        d.metadata["Name"].lower().replace("_", "-"): d.version for d in importlib.metadata.distributions(path=paths)
    }


def from_python(raw: dict[str, Any], root: Path) -> list[dict[str, Any]]:
    versions = python_versions(root)
    layouts = raw["layouts"]
    out = []
    for r in raw["results"]:
        case = PYTHON_CASES.get(r["name"])
        if case is None:  # buffers, drift options: in the Python benchmark's own output only
            continue
        scenario, impl, package, layout, classic = case
        if package is None and impl.startswith(OURS):
            version = raw["snowflake_c"]
            layout = layouts["classic" if scenario == "classic" else "wide"]
        elif impl == FLOOR:
            version, layout = "-", layouts["wide"]
        elif package is None:
            version = raw["python"]
        else:
            version = versions.get(package, "?")
        dups = r.get("duplicates", None if r["unique"] is None else (0 if r["unique"] else 1))
        out.append(
            record(
                "python",
                scenario,
                impl,
                version,
                layout or "?",
                1,
                r["rates"],
                dups,
                r.get("ids_checked"),
                classic=classic,
            )
        )
    return out


# ---- Node.js -----------------------------------------------------------------

NODE_PACKAGES = ["@sapphire/snowflake", "snowflakify", "simple-flakeid", "nodejs-snowflake", "@sindresorhus/base62"]


def node_versions(root: Path) -> dict[str, str]:
    versions = {}
    for package in NODE_PACKAGES:
        meta = root / "benchmarks/node/node_modules" / package / "package.json"
        if meta.exists():
            versions[package] = json.loads(meta.read_text())["version"]
    ours = root / "node/package.json"
    versions[OURS] = json.loads(ours.read_text())["version"] if ours.exists() else "?"
    return versions


def from_node(raw: dict[str, Any], root: Path) -> list[dict[str, Any]]:
    versions = node_versions(root)
    out = []
    for r in raw["results"]:
        name, layout = r["name"], r["layout"]
        package = name.split(" (")[0]
        version = "-" if name == FLOOR else versions.get(package, "?")
        dups, checked = r["duplicates"], r["checked"]
        if name == f"{OURS} (twitter)":
            out.append(
                record("node", "classic", OURS, version, layout, 1, r["nextIdSamples"], dups, checked, classic=True)
            )
            continue
        # Peers on a 12-bit sequence per millisecond are classic-layout generators.
        classic = "seq:12" in layout and not name.startswith(OURS)
        out.append(
            record(
                "node",
                "classic" if classic else "next",
                name,
                version,
                layout,
                1,
                r["nextIdSamples"],
                dups,
                checked,
                classic=classic,
            )
        )
        if name == FLOOR:  # the floor of the design is a single-ID reference
            continue
        out.append(
            record(
                "node",
                "batch-1000",
                name,
                version,
                layout,
                1,
                r["batch1000Samples"],
                dups,
                checked,
                note="" if r["nativeBatch"] else "a loop of 1000 single calls into a BigUint64Array",
            )
        )
    classic = raw["classic"]
    ours_classic = next((r for r in raw["results"] if r["name"] == f"{OURS} (twitter)"), None)
    for key, impl in (("keptTyped", "every ID kept"), ("keptBatch", "nextIds(1000), every ID kept")):
        out.append(
            record(
                "node",
                "classic",
                f"{OURS} ({impl})",
                versions[OURS],
                ours_classic["layout"] if ours_classic else "twitter preset",
                1,
                classic["samples"][key],
                ours_classic["duplicates"] if ours_classic else None,
                ours_classic["checked"] if ours_classic else None,
                classic=True,
            )
        )
    # String forms: {"encoding", "op", "name", "package", "call", "layout", "samples"}; decode: the
    # same without "encoding" and "op".
    outputs = [(f"{r['op']}-{r['encoding']}", r) for r in raw.get("encodings", [])]
    outputs += [("decode", r) for r in raw.get("decode", [])]
    for scenario, r in outputs:
        out.append(
            record(
                "node",
                scenario,
                r["name"],
                "-" if r["name"] == FLOOR else versions.get(r["package"], "?"),
                r["layout"],
                1,
                r["samples"],
                None,
                None,
                note=r["call"],
            )
        )
    return out


# ---- Java --------------------------------------------------------------------

JAVA_WIDE = "time:41@1ms,worker:1,seq:21"
# JMH method → (scenario, implementation, Maven artifactId, layout, classic limit?).
JAVA_BENCHMARKS: dict[str, tuple[str, str, str, str, bool]] = {
    "snowflakecNextIdWide": ("next", OURS, "snowflake-c", JAVA_WIDE, False),
    "snowflakecNextIdWideCounter": ("next", COUNTER, "snowflake-c", JAVA_WIDE, False),
    "floorNextId": ("next", FLOOR, "-", JAVA_WIDE, False),  # FloorBenchmarks
    "snowflakecNextIds1000Wide": ("batch-1000", OURS, "snowflake-c", JAVA_WIDE, False),
    "snowflakecNextIdsInto1000Wide": ("batch-1000", f"{OURS} (caller's array)", "snowflake-c", JAVA_WIDE, False),
    "snowflakecNextIdClassic": ("classic", OURS, "snowflake-c", "time:41@1ms,datacenter:5,worker:5,seq:12", True),
    "hutoolSnowflake": ("classic", "hutool Snowflake", "hutool-core", "time:41@1ms,datacenter:5,worker:5,seq:12", True),
    "cosidMillisecondSnowflakeId": (
        "classic",
        "CosId MillisecondSnowflakeId",
        "cosid-core",
        "time:41@1ms,machine:10,seq:12",
        True,
    ),
    "cosidMillisecondSnowflakeIdWide": (
        "next",
        "CosId MillisecondSnowflakeId (wide)",
        "cosid-core",
        JAVA_WIDE,
        False,
    ),
    "yitterIdGenerator": ("next", "yitter IdGenerator", "yitter-idgenerator", "worker:6,seq:6 (drift)", False),
    "tsidCreator": ("next", "tsid-creator", "tsid-creator", "time:42@1ms,node:10,counter:12 (runs ahead)", False),
    # EncodingBenchmarks: IDs of the wide layout to fixed-width text and back.
    "snowflakecFormatBase32": ("format-base32", OURS, "snowflake-c", JAVA_WIDE, False),
    "snowflakecParseBase32": ("parse-base32", OURS, "snowflake-c", JAVA_WIDE, False),
    "snowflakecFormatBase62": ("format-base62", OURS, "snowflake-c", JAVA_WIDE, False),
    "snowflakecParseBase62": ("parse-base62", OURS, "snowflake-c", JAVA_WIDE, False),
    "tsidFormatBase32": ("format-base32", "tsid-creator Tsid.toString()", "tsid-creator", JAVA_WIDE, False),
    "tsidParseBase32": ("parse-base32", "tsid-creator Tsid.from(text)", "tsid-creator", JAVA_WIDE, False),
    "tsidFormatBase62": ("format-base62", "tsid-creator encode(62)", "tsid-creator", JAVA_WIDE, False),
    "tsidParseBase62": ("parse-base62", "tsid-creator decode(text, 62)", "tsid-creator", JAVA_WIDE, False),
    "cosidFormatBase62": ("format-base62", "CosId Radix62IdConverter (padded)", "cosid-core", JAVA_WIDE, False),
    "cosidParseBase62": ("parse-base62", "CosId Radix62IdConverter (padded)", "cosid-core", JAVA_WIDE, False),
}


def java_versions(root: Path) -> dict[str, str]:
    pom = root / "benchmarks/java/pom.xml"
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    versions = {}
    for dep in ET.parse(pom).getroot().iterfind("m:dependencies/m:dependency", ns):
        artifact, version = dep.findtext("m:artifactId", "", ns), dep.findtext("m:version", "?", ns)
        versions[artifact] = version
    return versions


def from_java(runs: list[list[dict[str, Any]]], dups: list[dict[str, Any]], root: Path) -> list[dict[str, Any]]:
    versions = java_versions(root)
    checked = {(d["benchmark"], d["threads"]): d for d in dups}
    out = []
    # A benchmark's forks from every round of the run (one JMH invocation per round, each
    # benchmark once in it), its rates together.
    forks: dict[tuple[str, int], list[list[float]]] = {}
    for run in runs:
        for b in run:
            forks.setdefault((b["benchmark"], b["threads"]), []).extend(b["primaryMetric"]["rawData"])
    for run in runs:
        for b in run:
            method = b["benchmark"].rsplit(".", 1)[-1]
            if method not in JAVA_BENCHMARKS or (b["benchmark"], b["threads"]) not in forks:
                continue
            scenario, impl, artifact, layout, classic = JAVA_BENCHMARKS[method]
            threads = b["threads"]
            if threads == 2:
                # The common scenarios have no 2-thread batch or string form.
                if scenario == "batch-1000" or scenario in STRING_SCENARIOS:
                    continue
                scenario += "-2-threads"
            rates = [x for fork in forks.pop((b["benchmark"], b["threads"])) for x in fork]
            d = checked.get((method, threads))
            out.append(
                record(
                    "java",
                    scenario,
                    impl,
                    "-" if impl == FLOOR else versions.get(artifact, "?"),
                    layout,
                    threads,
                    rates,
                    d["duplicates"] if d else None,
                    d["checked"] if d else None,
                    classic=classic,
                )
            )
    return out


# ---- Machine -----------------------------------------------------------------


def first_line(cmd: list[str]) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "not found"
    text = (p.stdout or p.stderr).strip()
    return text.splitlines()[0] if text else "not found"


def java_runtime(raw: dict[str, Any]) -> str:
    jmh: dict[str, Any] = next(iter(raw.get("java-t1") or raw.get("java-t2") or []), {})
    if jmh.get("jdkVersion"):
        return f"{jmh.get('vmName', 'JVM')} {jmh['jdkVersion']}"
    return first_line(["java", "-version"])


def machine(root: Path, raw: dict[str, Any]) -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    os_name = platform.system()
    try:
        fields = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line)
        os_name = fields.get("PRETTY_NAME", os_name).strip('"')
    except OSError:
        pass
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    bench_python = root / "build/bench-venv/bin/python"
    return {
        "cpu": cpu,
        "cores": os.cpu_count() or 0,
        "arch": platform.machine(),
        "os": os_name,
        "kernel": platform.release(),
        "load_average": load,
        "runtimes": {
            "c": first_line([os.environ.get("CC", "cc"), "--version"]),
            "python": raw.get("python", {}).get("python")
            or first_line([str(bench_python) if bench_python.exists() else "python3", "--version"]),
            "node": raw.get("node", {}).get("node") or first_line(["node", "--version"]),
            "java": java_runtime(raw),
        },
    }


# ---- Comparisons -------------------------------------------------------------


def add_ratios(results: list[dict[str, Any]]) -> None:
    """snowflake-c's median IDs/s over each other result's, same language, scenario and run."""
    ours = {(r["language"], r["scenario"]): r for r in results if r["implementation"] == OURS}
    for r in results:
        o = ours.get((r["language"], r["scenario"]))
        r["snowflake_c_ratio"] = (
            None if o is None or r["kind"] == "snowflake-c" else o["ids_per_s"]["median"] / r["ids_per_s"]["median"]
        )


def fmt_rate(x: float) -> str:
    if x >= 1e9:
        return f"{x / 1e9:.2f} G"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f}"


def tick_label(x: float) -> str:
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return f"{x / scale:g}{unit}"
    return f"{x:g}"


def fmt_dups(r: dict[str, Any]) -> str:
    if r["scenario"] in OUTPUT_SCENARIOS:
        return "–"
    if r["duplicates"] is None:
        return "not checked"
    return str(r["duplicates"])


def console_table(results: list[dict[str, Any]]) -> str:
    lines = [
        f"{'lang':<7}{'scenario':<19}{'implementation':<40}{'thr':>3} {'IDs/s median [min-max]':>28} "
        f"{'ns/ID':>9} {'dups':>6} {'limit':>8} {'sfc x':>7}"
    ]
    for r in results:
        ids = r["ids_per_s"]
        frac = f"{100 * r['fraction_of_limit']:.1f}%" if r["fraction_of_limit"] is not None else "-"
        ratio = f"{r['snowflake_c_ratio']:.2f}" if r["snowflake_c_ratio"] else "-"
        lines.append(
            f"{r['language']:<7}{r['scenario']:<19}{r['implementation'][:39]:<40}{r['threads']:>3} "
            f"{fmt_rate(ids['median']):>8} [{fmt_rate(ids['min'])}-{fmt_rate(ids['max'])}]".ljust(104)
            + f"{r['ns_per_id']['median']:>9.2f} {fmt_dups(r):>6} {frac:>8} {ratio:>7}"
        )
    return "\n".join(lines)


def summary_rows(results: list[dict[str, Any]], scenarios: list[str]) -> list[dict[str, Any]]:
    """Per language and scenario: snowflake-c beside the fastest peer that issued no duplicates
    (string forms and decode issue no IDs: every peer that produced the same output counts)."""
    rows = []
    for lang in LANGUAGES:
        for sc in scenarios:
            group = [r for r in results if r["language"] == lang and r["scenario"] == sc]
            ours = next((r for r in group if r["implementation"] == OURS), None)
            if ours is None:
                continue
            others = [
                r for r in group if r["kind"] != "snowflake-c" and (r["duplicates"] == 0 or sc in OUTPUT_SCENARIOS)
            ]
            # A string form's floor has a column of its own, never the peer's.
            floor = next((r for r in others if sc in OUTPUT_SCENARIOS and r["implementation"] == FLOOR), None)
            others = [r for r in others if r is not floor]
            # A reference (the floor of the design, C's built-in generators) only where there is
            # no peer: the floors table sets snowflake-c beside its floor.
            others = [r for r in others if r["kind"] == "peer"] or others
            best = max(others, key=lambda r: r["ids_per_s"]["median"], default=None)
            dup_peers = [r for r in group if r["kind"] != "snowflake-c" and r["duplicates"]]
            rows.append({"ours": ours, "best": best, "dup_peers": dup_peers, "floor": floor})
    return rows


def floor_rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per language, the `next` scenario on 1 thread: snowflake-c (default, and time_source=counter)
    beside the floor of the design and the fastest peer that issued no duplicates."""
    rows = []
    for lang in LANGUAGES:
        group = {r["implementation"]: r for r in results if r["language"] == lang and r["scenario"] == "next"}
        if OURS not in group:
            continue
        peers = [r for r in group.values() if r["kind"] == "peer" and r["duplicates"] == 0]
        rows.append(
            {
                "language": lang,
                "ours": group[OURS],
                "counter": group.get(COUNTER),
                "floor": group.get(FLOORS[lang]),
                "peer": max(peers, key=lambda r: r["ids_per_s"]["median"], default=None),
            }
        )
    return rows


def floors_table(results: list[dict[str, Any]]) -> list[str]:
    """The floors table (markdown; the console prints it too): ns per ID and the ratios, each
    snowflake-c's IDs/s over the other's (above 1: snowflake-c issues more per second)."""

    def ns(r: dict[str, Any] | None) -> str:
        return f"{r['ns_per_id']['median']:.2f}" if r else "–"

    def times(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
        return f"{a['ids_per_s']['median'] / b['ids_per_s']['median']:.2f}" if a and b else "–"

    rows = floor_rows(results)
    if not rows:
        return []
    out = [
        "| language | snowflake-c ns/ID | time_source=counter ns/ID | floor ns/ID | fastest peer | ns/ID "
        "| snowflake-c × floor | counter × floor | snowflake-c × peer | counter × peer |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        o, c, f, p = row["ours"], row["counter"], row["floor"], row["peer"]
        peer = f"{p['implementation']} {p['version']}" if p else "–"
        out.append(
            f"| {LANGUAGE_TITLES[row['language']]} | {ns(o)} | {ns(c)} | {ns(f)} | {peer} | {ns(p)} "
            f"| {times(o, f)} | {times(c, f)} | {times(o, p)} | {times(c, p)} |"
        )
    return out


FLOORS_NOTE = (
    "Floors: `next`, 1 thread, medians of the same run. The floor of the design is a minimal binding "
    "doing one call's work (read the wall clock, derive the millisecond tick, compare-and-swap one "
    "64-bit word, return the language's integer: `benchmarks/floor/floor.h` under a C extension, "
    "a Node-API function and a JNI function; in C, floor.h's function itself). Every ID is kept. "
    "× is snowflake-c's IDs/s over the other's."
)


def markdown(doc: dict[str, Any], json_link: str, chart_link: str) -> str:
    m = doc["machine"]
    rt = m["runtimes"]
    out = [
        f"Run of {doc['date']} ({doc['mode']} mode), `{doc['command']}`, on {m['cpu']}, {m['cores']} cores "
        f"({m['arch']}), {m['os']}, kernel {m['kernel']}, load average {m['load_average']} at the end; "
        f"{rt['c']}; Python {rt['python']}; Node.js {rt['node']}; Java {rt['java'].strip()}.",
        "",
        f"![snowflake-c beside the peers of each language]({chart_link})",
        "",
        "| language | scenario | snowflake-c IDs/s | ns/ID | of the layout limit | fastest peer or reference "
        "without duplicates | IDs/s | snowflake-c × | duplicates (snowflake-c / others) |",
        "|---|---|---:|---:|---:|---|---:|---:|---|",
    ]
    for row in summary_rows(doc["results"], ID_SCENARIOS):
        o, b = row["ours"], row["best"]
        frac = f"{100 * o['fraction_of_limit']:.1f} %" if o["fraction_of_limit"] is not None else "–"
        peer = "–" if b is None else b["implementation"] + ("" if b["kind"] == "reference" else f" {b['version']}")
        peer_rate = fmt_rate(b["ids_per_s"]["median"]) if b else "–"
        ratio = f"{o['ids_per_s']['median'] / b['ids_per_s']['median']:.2f}" if b else "–"
        dups = ", ".join(f"{r['implementation']} {r['duplicates']}" for r in row["dup_peers"]) or "0"
        out.append(
            f"| {LANGUAGE_TITLES[o['language']]} | {o['scenario']} | {fmt_rate(o['ids_per_s']['median'])} | "
            f"{o['ns_per_id']['median']:.2f} | {frac} | {peer} | {peer_rate} | {ratio} | "
            f"{fmt_dups(o)} / {dups} |"
        )
    floors = floors_table(doc["results"])
    if floors:
        out += ["", FLOORS_NOTE, "", *floors]
    strings = summary_rows(doc["results"], OUTPUT_SCENARIOS)
    if strings:
        out += [
            "",
            "String forms (on IDs of the wide layout, fixed width) and decode (on Discord IDs), one ID "
            "per call, each peer's output checked equal to snowflake-c's before timing. The floor of a "
            "string form is a minimal binding's function that turns an ID into a string of the same "
            "length, or such a string into an ID (`benchmarks/node/floor`); × floor is its ns/ID over "
            "snowflake-c's:",
            "",
            "| language | scenario | snowflake-c IDs/s | ns/ID | fastest peer | IDs/s | snowflake-c × "
            "| floor ns/ID | × floor |",
            "|---|---|---:|---:|---|---:|---:|---:|---:|",
        ]
    for row in strings:
        o, b, f = row["ours"], row["best"], row["floor"]
        peer = "–" if b is None else f"{b['implementation']} {b['version']}"
        peer_rate = fmt_rate(b["ids_per_s"]["median"]) if b else "–"
        ratio = f"{o['ids_per_s']['median'] / b['ids_per_s']['median']:.2f}" if b else "–"
        floor_ns = f"{f['ns_per_id']['median']:.2f}" if f else "–"
        floor_ratio = f"{f['ns_per_id']['median'] / o['ns_per_id']['median']:.2f}" if f else "–"
        out.append(
            f"| {LANGUAGE_TITLES[o['language']]} | {o['scenario']} | {fmt_rate(o['ids_per_s']['median'])} | "
            f"{o['ns_per_id']['median']:.2f} | {peer} | {peer_rate} | {ratio} | {floor_ns} | {floor_ratio} |"
        )
    out += [
        "",
        f"Medians of interleaved repetitions; every row of the run, with min–max, versions and layouts: "
        f"[`{Path(json_link).name}`]({json_link}).",
    ]
    if doc["languages_failed"]:
        out += ["", f"No results from: {', '.join(doc['languages_failed'])}."]
    return "\n".join(out)


def rewrite_readme(path: Path, section: str) -> None:
    text = path.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: no {BEGIN} … {END} section")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{section}\n{END}{tail}")


# ---- Chart -------------------------------------------------------------------


def chart(doc: dict[str, Any], paths: list[Path]) -> None:
    """One grid of panels (language × scenario) for the ID scenarios, and below it one for the
    string forms when the run has them."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: a smaller, searchable SVG
    matplotlib.rcParams["svg.hashsalt"] = "snowflake-c"  # stable element ids between runs
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    results = doc["results"]
    sections = []  # (languages, scenarios) of each grid
    for group in (ID_SCENARIOS, OUTPUT_SCENARIOS):
        scenarios = [s for s in group if any(r["scenario"] == s for r in results)]
        langs = [lang for lang in LANGUAGES if any(r["language"] == lang and r["scenario"] in group for r in results)]
        if scenarios and langs:
            sections.append((langs, scenarios))
    if not sections:
        sections = [(["c"], ["next"])]
    cell = {
        (lang, sc): sorted(
            (r for r in results if r["language"] == lang and r["scenario"] == sc),
            key=lambda r: (r["kind"] != "snowflake-c", r["implementation"] != OURS, -r["ids_per_s"]["median"]),
        )
        for langs, scenarios in sections
        for lang in langs
        for sc in scenarios
    }
    # One row of panels per language of each section, a title row at the top of each section.
    rows_of = [(lang, scenarios, i == 0) for langs, scenarios in sections for i, lang in enumerate(langs)]
    heights = [
        max(2, max(len(cell[(lang, sc)]) for sc in scenarios)) * 0.32 + (1.3 if top else 0.9)
        for lang, scenarios, top in rows_of
    ]
    columns = max(len(scenarios) for _, scenarios in sections)
    fig, axes = plt.subplots(
        len(rows_of),
        columns,
        figsize=(3.9 * columns, sum(heights) + 1.2),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    colours = {"snowflake-c": "#1f77b4", "peer": "#9a9a9a", "reference": "#d0b070"}
    for i, (lang, scenarios, top) in enumerate(rows_of):
        last = i + 1 == len(rows_of) or rows_of[i + 1][2]
        for j in range(len(scenarios), columns):
            axes[i][j].axis("off")
        for j, sc in enumerate(scenarios):
            ax = axes[i][j]
            rows = cell[(lang, sc)]
            strings = sc in OUTPUT_SCENARIOS
            if top:
                ax.set_title(SCENARIO_TITLES[sc], fontsize=10)
            if not rows:
                ax.axis("off")
                ax.text(0.5, 0.5, "not measured", ha="center", va="center", color="#999999", fontsize=9)
                if j == 0:
                    ax.text(-0.05, 0.5, LANGUAGE_TITLES[lang], ha="right", va="center", fontsize=12)
                continue
            y = list(range(len(rows)))[::-1]
            med = [r["ids_per_s"]["median"] for r in rows]
            lo = [r["ids_per_s"]["median"] - r["ids_per_s"]["min"] for r in rows]
            hi = [r["ids_per_s"]["max"] - r["ids_per_s"]["median"] for r in rows]
            ax.barh(
                y,
                med,
                xerr=[lo, hi],
                color=[colours[r["kind"]] for r in rows],
                error_kw={"elinewidth": 0.8, "capsize": 2},
                height=0.7,
            )
            ax.set_xscale("log")
            # Down to the lowest minimum, but not 100 times below the lowest median (a stalled iteration).
            low = max(min(r["ids_per_s"]["min"] for r in rows), min(med) / 100) / 4
            high = max(r["ids_per_s"]["max"] for r in rows) * 40
            if sc.startswith("classic"):
                low, high = min(low, CLASSIC_LIMIT / 4), max(high, CLASSIC_LIMIT * 40)
            ax.set_xlim(low, high)
            ax.xaxis.set_major_locator(LogLocator(base=10, numticks=6))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: tick_label(x)))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_yticks(y)
            ax.set_yticklabels([textwrap.fill(r["implementation"], 26) for r in rows], fontsize=7)
            ax.tick_params(axis="x", labelsize=7)
            ax.grid(axis="x", which="major", linewidth=0.4, alpha=0.6)
            if sc.startswith("classic"):
                ax.axvline(CLASSIC_LIMIT, color="#d62728", linewidth=0.8, linestyle="--")
            for yy, r in zip(y, rows, strict=True):
                label = fmt_rate(r["ids_per_s"]["median"])
                if r["duplicates"]:
                    label += f" {r['duplicates']} dups"
                elif r["duplicates"] is None and not strings:
                    label += "  (not checked)"
                ax.text(
                    r["ids_per_s"]["max"],
                    yy,
                    " " + label,
                    va="center",
                    fontsize=6.5,
                    color="#d62728" if r["duplicates"] else "#333333",
                )
            if j == 0:
                ax.set_ylabel(LANGUAGE_TITLES[lang], fontsize=12)
            if last:
                what = "IDs decoded/s" if sc == "decode" else "IDs formatted or parsed/s" if strings else "IDs/s"
                ax.set_xlabel(f"{what} (median, min–max; log scale)", fontsize=8)
    m = doc["machine"]
    fig.suptitle(
        f"snowflake-c beside its peers, per language: {doc['date']} ({doc['mode']}), "
        f"{m['cpu']}, {m['cores']} cores, {m['os']}\n"
        "blue: snowflake-c; grey: peers from PyPI, npm, Maven Central; "
        "tan: references (C's built-in ones, each language's floor); "
        "dashed red: the classic layout's limit, 4.096 M IDs/s",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    for p in paths:
        fig.savefig(p, dpi=110 if p.suffix == ".png" else None)
    plt.close(fig)


# ---- Main --------------------------------------------------------------------


def load(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() and path.stat().st_size else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", type=Path, required=True, help="folder of the raw per-language results")
    ap.add_argument("--out", type=Path, required=True, help="folder for <stamp>.json/.svg/.png")
    ap.add_argument("--stamp", required=True, help="<date>-<host>: the output files' name")
    ap.add_argument("--root", type=Path, default=HERE.parent, help="the repository")
    ap.add_argument("--quick", action="store_true", help="the run was a --quick smoke run")
    ap.add_argument(
        "--readme",
        type=Path,
        action="append",
        default=[],
        help="rewrite this README's results section (full runs; may be repeated)",
    )
    ap.add_argument("--failed", action="append", default=[], help="a language that produced no results")
    args = ap.parse_args()

    raw: dict[str, Any] = {}
    for name in ("c", "python", "node", "java-duplicates"):
        data = load(args.raw / f"{name}.json")
        if data is not None:
            raw[name] = data
    # JMH's rounds: java-t1.json, or java-t1-r1.json, java-t1-r2.json, … (interleaved forks).
    for name in ("java-t1", "java-t2"):
        rounds = [load(f) for f in sorted(args.raw.glob(f"{name}.json")) + sorted(args.raw.glob(f"{name}-r*.json"))]
        if any(r is not None for r in rounds):
            raw[name] = [b for r in rounds if r is not None for b in r]
    results: list[dict[str, Any]] = []
    failed = list(args.failed)
    readers: dict[str, Callable[[], list[dict[str, Any]]]] = {
        "c": lambda: from_c(raw["c"]),
        "python": lambda: from_python(raw["python"], args.root),
        "node": lambda: from_node(raw["node"], args.root),
        "java": lambda: from_java(
            [raw[k] for k in ("java-t1", "java-t2") if k in raw], raw.get("java-duplicates", []), args.root
        ),
    }
    for lang, read in readers.items():
        present = ("java-t1" in raw or "java-t2" in raw) if lang == "java" else lang in raw
        if not present:
            continue
        try:
            results.extend(read())
        except (KeyError, TypeError, ValueError, IndexError) as e:
            print(f"report: cannot read the {lang} results: {e!r}", file=sys.stderr)
            failed.append(lang)
    order = {s: i for i, s in enumerate(SCENARIOS)}
    results.sort(key=lambda r: (LANGUAGES.index(r["language"]), order[r["scenario"]], r["threads"]))
    add_ratios(results)

    doc = {
        "schema_version": 1,
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "mode": "quick" if args.quick else "full",
        "command": "benchmarks/run" + (" --quick" if args.quick else ""),
        "host": args.stamp.split("-", 3)[-1],
        "machine": machine(args.root, raw),
        "languages_failed": sorted(set(failed)),
        "results": results,
    }
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))

    args.out.mkdir(parents=True, exist_ok=True)
    json_path = args.out / f"{args.stamp}.json"
    json_path.write_text(json.dumps(doc, indent=1) + "\n")
    charts = [args.out / f"{args.stamp}.svg", args.out / f"{args.stamp}.png"]
    chart(doc, charts)

    print(console_table(results))
    floors = floors_table(results)
    if floors:
        print()
        print(FLOORS_NOTE)
        print("\n".join(floors))
    print()
    print(f"wrote {json_path}, {charts[0].name}, {charts[1].name}")
    if args.readme and not args.quick:
        for c in charts:
            shutil.copyfile(c, args.out / f"latest{c.suffix}")
        for readme in args.readme:
            here = readme.resolve().parent
            rewrite_readme(
                readme,
                markdown(
                    doc,
                    os.path.relpath(json_path.resolve(), here),
                    os.path.relpath((args.out / "latest.svg").resolve(), here),
                ),
            )
            print(f"rewrote the results section of {readme} (chart: {args.out / 'latest.svg'})")

    ours_dups = sum(r["duplicates"] or 0 for r in results if r["kind"] == "snowflake-c")
    if ours_dups:
        print(f"report: snowflake-c issued {ours_dups} duplicate IDs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
