"""The shared vectors through SQL, on a real server: decode (jsonb, the exact
canonical text, the time, each field, and back through encode), encode,
range, the string forms and the layout errors. Every case that a bigint can
carry runs; the others are counted and named as skipped.

    SFC_PG_BIN=/usr/lib/postgresql/15/bin [SFC_CLI=build/.../snowflake-c] \
        python3 -m unittest tests/postgres/test_vectors.py
"""

from __future__ import annotations

import json
import os
import re
import unittest

from pgserver import Server
from sqlcases import (
    INT64_MAX,
    SQLSTATE,
    cli,
    cli_error,
    cli_layout_args,
    cli_run,
    evaluate,
    layout_args,
    lit,
    load,
    ms_to_timestamptz,
)

server: Server


def setUpModule() -> None:
    global server
    server = Server(os.environ["SFC_PG_BIN"], preload=False)
    server.__enter__()
    server.sql("CREATE EXTENSION snowflake_c")


def tearDownModule() -> None:
    server.__exit__(None, None, None)


def fits(text: str) -> bool:
    """Whether a vector's ID text is a plain decimal that a bigint holds."""
    return text.isdigit() and int(text) <= INT64_MAX


class VectorCase(unittest.TestCase):
    skipped: list[str]

    def assertError(self, got: dict, kind: str, where: str) -> None:
        self.assertNotIn("ok", got, f"{where}: expected {kind}, got {got}")
        self.assertEqual(got["sqlstate"], SQLSTATE[kind], f"{where}: {got}")
        self.assertEqual(got["detail"], f"snowflake-c error kind: {kind}", where)

    def assertBigintError(self, got: dict, where: str) -> None:
        """An ID past 2^63 - 1 refused as one that does not fit a bigint."""
        self.assertError(got, "InvalidArgument", where)
        self.assertIn("does not fit a bigint", got["message"], where)


class Decode(VectorCase):
    def test_decode(self) -> None:
        cases = load("decode")
        runs, exprs, skipped = [], [], []
        for case in cases:
            where = case["description"]
            if case["id"] == "-1":
                exprs.append(f"snowflake_c.decode_json(-1, {layout_args(case['layout'])})")
                runs.append((case, "negative"))
                continue
            if not fits(case["id"]):
                skipped.append(where)
                continue
            args = f"{case['id']}, {layout_args(case['layout'])}"
            exprs += [
                f"snowflake_c.decode_json({args})",
                f"snowflake_c.decode({args})",
                f"(extract(epoch from snowflake_c.decode_time({args})) * 1000000)::bigint",
                "snowflake_c.encode(jsonb_build_object('time_us', "
                f"(extract(epoch from snowflake_c.decode_time({args})) * 1000000)::bigint) || "
                f"(snowflake_c.decode({args}) - 'id' - 'time' - 'time_ms'), {layout_args(case['layout'])})",
            ]
            runs.append((case, "decode"))
            for name in case.get("fields", {}):
                exprs.append(f"snowflake_c.field({case['id']}, {lit(name)}, {layout_args(case['layout'])})")
                runs.append((case, ("field", name)))
        results = iter(evaluate(server, exprs))
        checked = 0
        for case, what in runs:
            where = case["description"]
            with self.subTest(where, what=what):
                if what == "negative":
                    self.assertError(next(results), case["error"], where)
                elif what == "decode":
                    text, jsonb, time_us, back = (next(results) for _ in range(4))
                    if "error" in case:
                        for got in (text, jsonb, time_us, back):
                            self.assertError(got, case["error"], where)
                        continue
                    self.assertEqual(text, {"ok": case["json"]}, where)
                    self.assertEqual(json.loads(jsonb["ok"]), json.loads(case["json"]), where)
                    self.assertEqual(int(time_us["ok"]) // 1000, json.loads(case["json"])["time_ms"], where)
                    self.assertEqual(back, {"ok": case["id"]}, where)
                else:
                    got = next(results)
                    self.assertEqual(got, {"ok": case["fields"][what[1]]}, where)
                checked += 1
        self.assertGreater(checked, 40)
        print(f"\ndecode: {checked} checks; skipped (not a bigint): {len(skipped)}")

    @unittest.skipUnless(cli(), "SFC_CLI not given")
    def test_canonical_text_is_the_clis(self) -> None:
        """decode_json is byte for byte the CLI's decode --json."""
        cases = [c for c in load("decode") if "json" in c and fits(c["id"])]
        got = evaluate(server, [f"snowflake_c.decode_json({c['id']}, {layout_args(c['layout'])})" for c in cases])
        for case, sql in zip(cases, got, strict=True):
            with self.subTest(case["description"]):
                result = cli_run(["decode", *cli_layout_args(case["layout"]), "--json", case["id"]])
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(sql["ok"], result.stdout.rstrip("\n"))


class Encode(VectorCase):
    def test_encode(self) -> None:
        cases = load("encode")
        exprs = []
        for case in cases:
            fields = ", ".join(f'"{k}": {v}' for k, v in case["fields"].items())
            obj = f'{{"time_ms": {case["time_ms"]}{", " if fields else ""}{fields}}}'
            exprs.append(f"snowflake_c.encode({lit(obj)}::jsonb, {layout_args(case['layout'])})")
        for case, got in zip(cases, evaluate(server, exprs), strict=True):
            where = case["description"]
            with self.subTest(where):
                if "error" in case:
                    self.assertError(got, case["error"], where)
                elif int(case["id"]) > INT64_MAX:
                    self.assertBigintError(got, where)
                else:
                    self.assertEqual(got, {"ok": case["id"]}, where)

    def test_time_keys(self) -> None:
        """Exactly one of time_ms, time_us, time (ISO), as in every language."""
        fields = '"worker": 1, "process": 0, "seq": 7'
        exprs = [
            f"snowflake_c.encode('{{{t}, {fields}}}', preset => 'discord')"
            for t in (
                '"time_ms": 1462015105796',
                '"time_us": 1462015105796000',
                '"time": "2016-04-30T11:18:25.796Z"',
                '"time_ms": 1462015105796, "time": "2016-04-30T11:18:25.796Z"',
                '"time_ms": 1462015105796.5',
            )
        ]
        exprs.append(f"snowflake_c.encode('{{{fields}}}', preset => 'discord')")
        got = evaluate(server, exprs)
        for i in range(3):
            self.assertEqual(got[i], {"ok": "175928847299117063"})
        for i in range(3, 6):
            self.assertError(got[i], "InvalidArgument", exprs[i])


class Range(VectorCase):
    def test_range(self) -> None:
        cases = load("range")
        exprs = [
            "(SELECT lo || ',' || hi FROM snowflake_c.range("
            f"{ms_to_timestamptz(int(c['t0_ms']))}, {ms_to_timestamptz(int(c['t1_ms']))}, "
            f"{layout_args(c['layout'])}))"
            for c in cases
        ]
        for case, got in zip(cases, evaluate(server, exprs), strict=True):
            where = case["description"]
            with self.subTest(where):
                if "error" in case:
                    self.assertError(got, case["error"], where)
                elif int(case["max"]) > INT64_MAX:
                    self.assertError(got, "InvalidArgument", where)
                    self.assertIn("does not fit a bigint", got["message"], where)
                else:
                    self.assertEqual(got, {"ok": f"{case['min']},{case['max']}"}, where)

    def test_window_scan(self) -> None:
        """WHERE id BETWEEN lo AND hi finds the IDs of a window, and only them."""
        out = server.sql(
            "CREATE TEMP TABLE t AS SELECT snowflake_c.encode(jsonb_build_object("
            "'time_ms', 1600000000000 + (g / 4), 'datacenter', 1, 'worker', g % 32, 'seq', g % 4096), "
            "preset => 'twitter') AS id FROM generate_series(0, 7999) g;\n"
            "SELECT count(*) FROM t, snowflake_c.range(timestamptz 'epoch' + interval '1600000000.500 seconds', "
            "timestamptz 'epoch' + interval '1600000001 seconds', preset => 'twitter') r "
            "WHERE t.id BETWEEN r.lo AND r.hi;"
        )
        self.assertEqual(out, "2000")  # times 1600000000500 … 999: g from 2000 to 3999


class Encodings(VectorCase):
    def test_encodings(self) -> None:
        cases = load("encodings")
        runs, exprs, skipped = [], [], 0
        for case in cases:
            enc = lit(case["encoding"])
            if "fixed" in case:
                if int(case["id"]) > INT64_MAX:
                    exprs += [f"snowflake_c.parse_id({lit(case['fixed'])}, {enc})"]
                    runs.append((case, "too large"))
                    continue
                exprs += [
                    f"snowflake_c.format_id({case['id']}, {enc})",
                    f"snowflake_c.format_id({case['id']}, {enc}, pad => NULL)",
                    f"snowflake_c.format_id({case['id']}, {enc}, pad => true)",
                    f"snowflake_c.format_id({case['id']}, {enc}, pad => false)",
                    f"snowflake_c.parse_id({lit(case['fixed'])}, {enc})",
                    f"snowflake_c.parse_id({lit(case['shortest'])}, {enc})",
                ]
                runs.append((case, "both ways"))
            elif "text" in case and "\0" in case["text"]:
                skipped += 1  # SQL text cannot hold a NUL
            elif "text" in case:
                exprs.append(f"snowflake_c.parse_id({lit(case['text'])}, {enc})")
                runs.append((case, "parse"))
            else:
                exprs.append(f"snowflake_c.format_id({case['id']}, {enc})")
                runs.append((case, "format fails"))
        results = iter(evaluate(server, exprs))
        for case, what in runs:
            where = case["description"]
            with self.subTest(where):
                if what == "both ways":
                    got = [next(results) for _ in range(6)]
                    self.assertEqual(
                        got,
                        [
                            {"ok": case["default"]},
                            {"ok": case["default"]},
                            {"ok": case["fixed"]},
                            {"ok": case["shortest"]},
                            {"ok": case["id"]},
                            {"ok": case["id"]},
                        ],
                    )
                elif what == "too large":
                    self.assertBigintError(next(results), where)
                elif what == "format fails":
                    self.assertError(next(results), case["error"], where)
                else:
                    got = next(results)
                    if "error" in case:
                        self.assertError(got, case["error"], where)
                        for part in case["message_has"]:
                            self.assertIn(part, got["message"], where)
                    elif int(case["id"]) > INT64_MAX:
                        self.assertBigintError(got, where)
                    else:
                        self.assertEqual(got, {"ok": case["id"]}, where)
        print(f"\nencodings: {len(runs)} cases; skipped (a NUL in the text): {skipped}")


class Layouts(VectorCase):
    def test_layouts(self) -> None:
        """Valid layouts decode; invalid ones raise InvalidLayout with the
        core's message, the same as the CLI's."""
        cases = load("layouts")

        def ref(case: dict) -> dict:
            return {"preset": case["preset"]} if "preset" in case else {"spec": case["spec"], "epoch": case["epoch"]}

        got = evaluate(server, [f"snowflake_c.decode_json(0, {layout_args(ref(c))})" for c in cases])
        for case, result in zip(cases, got, strict=True):
            where = case["description"]
            with self.subTest(where):
                if "error" not in case:
                    self.assertIn("ok", result, where)
                    self.assertEqual(json.loads(result["ok"])["time_ms"], int(case["expect"]["epoch_ms"]), where)
                    continue
                self.assertError(result, case["error"], where)
                if cli():
                    cli_result = cli_run(["decode", *cli_layout_args(ref(case)), "--json", "0"])
                    self.assertNotEqual(cli_result.returncode, 0, where)
                    self.assertEqual(cli_error(cli_result), (case["error"], result["message"]), where)

    def test_describe(self) -> None:
        """layout() gives each valid layout's facts as the vectors expect
        them, and the same object as the CLI's layout --json."""
        cases = [c for c in load("layouts") if "expect" in c]

        def ref(case: dict) -> dict:
            return {"preset": case["preset"]} if "preset" in case else {"spec": case["spec"], "epoch": case["epoch"]}

        got = evaluate(server, [f"snowflake_c.layout({layout_args(ref(c))})" for c in cases])
        for case, result in zip(cases, got, strict=True):
            where = case["description"]
            with self.subTest(where):
                facts, expect = json.loads(result["ok"]), case["expect"]
                for key in ("spec", "total_bits", "max_id"):
                    self.assertEqual(facts[key], expect[key], where)
                for key in ("epoch_ms", "unit_us", "node_capacity", "time_end_ms"):
                    self.assertEqual(facts[key], int(expect[key]), where)
                self.assertAlmostEqual(
                    facts["ids_per_second"], expect["ids_per_second"], delta=1e-9 * expect["ids_per_second"]
                )
                self.assertEqual(facts["fields"], [{**f, "max": int(f["max"])} for f in expect["fields"]], where)
                if cli():
                    cli_result = cli_run(["layout", *cli_layout_args(ref(case)), "--json"])
                    self.assertEqual(cli_result.returncode, 0, cli_result.stderr)
                    self.assertEqual(facts, json.loads(cli_result.stdout), where)

    def test_exactly_one_layout(self) -> None:
        got = evaluate(
            server,
            [
                "snowflake_c.decode(5)",
                "snowflake_c.decode(5, epoch => '1704067200000')",
                "snowflake_c.decode(5, preset => 'twitter', layout => 'time:41@1ms,worker:10,seq:12')",
                "snowflake_c.decode(5, layout => 'time:41@1ms,worker:10,seq:12')",
                "snowflake_c.decode(5, preset => 'twitter', epoch => '1704067200000')",
            ],
        )
        self.assertIn("no layout given", got[0]["message"])
        for result in got:
            self.assertError(result, "InvalidArgument", str(result))

    def test_null_id_is_null(self) -> None:
        self.assertEqual(evaluate(server, ["snowflake_c.decode(NULL, preset => 'twitter')"]), [{"ok": None}])


CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Uuid7(VectorCase):
    def test_uuid7(self) -> None:
        """Every case of tests/vectors/uuid7.json through decode_uuid7,
        decode_uuid7_json and decode_uuid7_time, given as text and, where
        the text is a uuid, as PostgreSQL's uuid type."""
        cases = load("uuid7")
        runs, exprs = [], []
        for case in cases:
            if "\0" in case["text"]:
                # SQL text holds no NUL: PostgreSQL refuses it before any
                # function sees it.
                nul = case["text"].encode().hex()
                exprs.append(f"snowflake_c.decode_uuid7_json(convert_from(decode('{nul}', 'hex'), 'UTF8'))")
                runs.append((case, "nul"))
                continue
            forms = [lit(case["text"])]
            if "error" not in case or CANONICAL_UUID.fullmatch(case["text"]):
                forms.append(f"{lit(case['text'])}::uuid")
            for arg in forms:
                exprs += [
                    f"snowflake_c.decode_uuid7_json({arg})",
                    f"snowflake_c.decode_uuid7({arg})",
                    f"(extract(epoch from snowflake_c.decode_uuid7_time({arg})) * 1000)::bigint",
                ]
                runs.append((case, arg))
        results = iter(evaluate(server, exprs))
        checked = 0
        for case, arg in runs:
            where = f"{case['description']} ({arg})"
            with self.subTest(where):
                if arg == "nul":
                    got = next(results)
                    self.assertEqual(got.get("sqlstate"), "22021", f"{where}: {got}")
                    checked += 1
                    continue
                text, jsonb, time_ms = (next(results) for _ in range(3))
                if "error" in case:
                    for got in (text, jsonb, time_ms):
                        self.assertError(got, case["error"], where)
                        for part in case["message_has"]:
                            self.assertIn(part, got["message"], where)
                else:
                    self.assertEqual(text, {"ok": case["json"]}, where)
                    self.assertEqual(json.loads(jsonb["ok"]), json.loads(case["json"]), where)
                    self.assertEqual(time_ms, {"ok": case["time_ms"]}, where)
                checked += 1
        self.assertEqual(checked, len(runs))
        self.assertGreaterEqual(len({id(c) for c, _ in runs}), len(cases))
        print(f"\nuuid7: {checked} checks of {len(cases)} cases")

    def test_null_is_null(self) -> None:
        got = evaluate(server, ["snowflake_c.decode_uuid7(NULL::uuid)", "snowflake_c.decode_uuid7_time(NULL::text)"])
        self.assertEqual(got, [{"ok": None}, {"ok": None}])


if __name__ == "__main__":
    unittest.main()
