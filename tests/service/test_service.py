"""snowflake-c serve, the real server driven by real clients (standard
library only): the shared vectors through /v1/decode and /v1/layout byte
for byte as the CLI prints them, 16 keep-alive clients taking 1,000,000
IDs, every error row, hostile clients, /metrics, SIGTERM under load
with a successor on the same node value and state folder.

SFC_CLI names the command (built with the service)."""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import tempfile
import threading
import unittest
import urllib.parse
from pathlib import Path

CLI = os.environ.get("SFC_CLI", "")
ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"
TIMEOUT = 60  # seconds any one wait may take before the test fails


def layout_args(layout: dict) -> list[str]:
    if layout.get("preset"):
        return ["--preset", layout["preset"]]
    return ["--layout", layout["spec"], "--epoch", layout["epoch"]]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, timeout=TIMEOUT)


class Server:
    """One `snowflake-c serve` on 127.0.0.1, port 0, in its own folder."""

    def __init__(self, args: list[str], env: dict | None = None, cwd: str | None = None, wrap: list[str] | None = None):
        # wrap: a command prefix that execs the server (a namespace, a host name).
        self.proc = subprocess.Popen(
            [*(wrap or []), CLI, "serve", "--listen", "127.0.0.1:0", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=cwd,
        )
        self.lines: list[str] = []
        self.host = self.port = None
        for raw in self.proc.stderr:  # until the start line
            line = raw.decode()
            self.lines.append(line)
            m = re.search(r"serving on http://([0-9.]+):([0-9]+):", line)
            if m:
                self.host, self.port = m.group(1), int(m.group(2))
                break
        if self.port is None:
            self.proc.wait(TIMEOUT)
            self.proc.stderr.close()
            raise RuntimeError("serve did not start: " + "".join(self.lines))
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for raw in self.proc.stderr:
            self.lines.append(raw.decode())

    def conn(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)

    def get(self, path: str, headers: dict | None = None, method: str = "GET"):
        c = self.conn()
        try:
            c.request(method, path, headers=headers or {})
            r = c.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            c.close()

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(TIMEOUT)
        self.reader.join(TIMEOUT)
        self.proc.stderr.close()
        return rc

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.stop()


def node_args(layout_json: dict, value: int = 0) -> list[str]:
    names = [f["name"] for f in layout_json["fields"] if f["kind"] == "node"]
    return ["--node", ",".join(f"{n}={value}" for n in names)] if names else []


class Vectors(unittest.TestCase):
    """The decode and layout vectors, through the server and the CLI."""

    def serve_layout(self, largs: list[str]):
        out = cli("layout", "--json", *largs)
        if out.returncode != 0:
            return None, out
        layout = json.loads(out.stdout)
        # Decoding only: no ID is made, so no claim is needed.
        return Server([*largs, *node_args(layout), "--no-guard"]), out

    def test_decode_vectors(self):
        vectors = json.loads((VECTORS / "decode.json").read_text(encoding="utf-8"))
        by_layout: dict[str, list] = {}
        for v in vectors:
            by_layout.setdefault(json.dumps(v["layout"], sort_keys=True), []).append(v)
        checked = 0
        for key, group in by_layout.items():
            largs = layout_args(json.loads(key))
            server, out = self.serve_layout(largs)
            self.assertIsNotNone(server, f"{largs}: {out.stderr!r}")
            with server:
                status, _, body = server.get("/v1/layout")
                self.assertEqual((status, body), (200, out.stdout), largs)
                for v in group:
                    with self.subTest(layout=largs, id=v["id"]):
                        path = "/v1/decode/" + urllib.parse.quote(v["id"], safe="")
                        status, headers, body = server.get(path)
                        if "error" in v:
                            self.assertEqual(status, 400, body)
                            self.assertEqual(json.loads(body)["error"]["kind"], v["error"])
                        else:
                            want = cli("decode", "--json", *largs, v["id"]).stdout
                            self.assertEqual((status, body), (200, want))
                            self.assertEqual(body, v["json"].encode() + b"\n")
                            self.assertEqual(headers["Content-Type"], "application/json")
                        checked += 1
        self.assertEqual(checked, len(vectors))

    def test_layout_vectors(self):
        vectors = json.loads((VECTORS / "layouts.json").read_text(encoding="utf-8"))
        served = 0
        for v in vectors:
            if "error" in v:
                continue
            largs = ["--preset", v["preset"]] if v.get("preset") else ["--layout", v["spec"], "--epoch", v["epoch"]]
            with self.subTest(layout=largs):
                server, out = self.serve_layout(largs)
                self.assertIsNotNone(server, f"{largs}: {out.stderr!r}")
                with server:
                    status, _, body = server.get("/v1/layout")
                    self.assertEqual((status, body), (200, out.stdout))
                    served += 1
        self.assertGreater(served, 10)

    def test_decode_from_an_encoding(self):
        with Server(["--preset", "discord", "--node", "worker=0,process=0", "--no-guard"]) as s:
            b62 = cli("convert", "--to", "base62", "175928847299117063").stdout.decode().strip()
            status, _, body = s.get(f"/v1/decode/{b62}?from=base62")
            want = cli("decode", "--json", "--preset", "discord", "175928847299117063").stdout
            self.assertEqual((status, body), (200, want))

    def test_uuid7_vectors(self):
        """from=uuid7: each UUIDv7 vector's JSON, as `decode --from uuid7 --json`."""
        vectors = json.loads((VECTORS / "uuid7.json").read_text(encoding="utf-8"))
        checked = 0
        with Server(["--preset", "default", "--node", "worker=0", "--no-guard"]) as s:
            for v in vectors:
                if not v["text"] or "/" in v["text"] or "\0" in v["text"]:
                    continue  # not a path segment
                with self.subTest(text=v["text"]):
                    path = "/v1/decode/" + urllib.parse.quote(v["text"], safe="") + "?from=uuid7"
                    status, _, body = s.get(path)
                    if "error" in v:
                        self.assertEqual(status, 400, body)
                        error = json.loads(body)["error"]
                        self.assertEqual(error["kind"], v["error"])
                        for part in v["message_has"]:
                            self.assertIn(part, error["message"])
                    else:
                        want = cli("decode", "--from", "uuid7", "--json", v["text"]).stdout
                        self.assertEqual((status, body), (200, want))
                        self.assertEqual(body, v["json"].encode() + b"\n")
                    checked += 1
            status, _, body = s.get("/v1/decode/1?from=base63")
            self.assertEqual(status, 400, body)
            self.assertIn("or uuid7", json.loads(body)["error"]["message"])
        self.assertGreater(checked, 15)


class Generation(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def test_sixteen_keep_alive_clients_take_a_million_unique_ids(self):
        clients, per_client, batch = 16, 62_500, 2_500
        results: list[list[int]] = [[] for _ in range(clients)]
        errors: list[str] = []
        with Server(["--node", "worker=101", "--state-dir", self.dir.name], cwd=self.dir.name) as s:

            def take(k: int) -> None:
                c = s.conn()
                try:
                    while len(results[k]) < per_client:
                        c.request("GET", f"/v1/ids?count={batch}")
                        r = c.getresponse()
                        body = r.read()
                        if r.status != 200:
                            errors.append(f"{r.status} {body!r}")
                            return
                        results[k].extend(int(x) for x in body.split())
                        if r.getheader("Connection", "").lower() == "close":
                            errors.append("the server closed a keep-alive connection")
                            return
                finally:
                    c.close()

            threads = [threading.Thread(target=take, args=(k,)) for k in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(errors, [])
            for ids in results:
                self.assertEqual(len(ids), per_client)
                self.assertTrue(
                    all(a < b for a, b in zip(ids, ids[1:], strict=False)), "not increasing on one connection"
                )
            everything = [i for ids in results for i in ids]
            self.assertEqual(len(set(everything)), 1_000_000)
            status, _, metrics = s.get("/metrics")
            self.assertEqual(status, 200)
            samples = parse_prometheus(metrics.decode())
            self.assertEqual(samples[("snowflake_c_ids_served_total", "")], 1_000_000)
            self.assertGreaterEqual(samples[("snowflake_c_generator_ids_issued_total", "")], 1_000_000)
            self.assertEqual(samples[("snowflake_c_http_requests_total", 'code="200"')], clients * per_client // batch)

    def test_single_ids_and_json(self):
        with Server(["--node", "worker=102"], cwd=self.dir.name) as s:
            c = s.conn()
            last = 0
            for _ in range(200):  # one keep-alive connection
                c.request("GET", "/v1/id")
                r = c.getresponse()
                body = r.read()
                self.assertEqual(r.status, 200)
                self.assertRegex(body, rb"^[0-9]+\n$")
                self.assertGreater(int(body), last)
                last = int(body)
            c.close()
            status, headers, body = s.get("/v1/id", {"Accept": "application/json"})
            self.assertEqual(status, 200)
            self.assertEqual(headers["Content-Type"], "application/json")
            self.assertGreater(int(json.loads(body)["id"]), last)
            status, _, body = s.get("/v1/ids?count=3&format=base62", {"Accept": "application/json"})
            ids = json.loads(body)["ids"]
            self.assertEqual(len(ids), 3)
            for text in ids:
                back = cli("convert", "--from", "base62", text)
                self.assertEqual(back.returncode, 0, back.stderr)
            status, _, body = s.get("/v1/ids?count=4&format=hex")
            self.assertEqual(len(body.split()), 4)
            self.assertEqual(s.get("/healthz")[0], 200)
            self.assertEqual(s.get("/readyz")[0], 200)

    def test_sigterm_under_load_and_the_successor(self):
        state = os.path.join(self.dir.name, "state")
        os.mkdir(state)
        args = ["--preset", "twitter", "--node", "datacenter=3,worker=17", "--state-dir", state]
        issued: list[int] = []
        lock = threading.Lock()
        failures: list[str] = []
        answered = threading.Semaphore(0)
        s = Server(args, cwd=self.dir.name)

        def load() -> None:
            c = s.conn()
            while True:
                try:
                    c.request("GET", "/v1/ids?count=100")
                    r = c.getresponse()
                except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionRefusedError):
                    return  # closed before the reply began, or no longer listening
                try:
                    body = r.read()
                except Exception as e:  # a reply cut short: a lost request
                    failures.append(f"reply cut short: {e!r}")
                    return
                if r.status != 200:
                    failures.append(f"{r.status} {body!r}")
                    return
                ids = [int(x) for x in body.split()]
                if len(ids) != 100:
                    failures.append(f"{len(ids)} IDs in a reply of 100")
                    return
                with lock:
                    issued.extend(ids)
                answered.release()

        threads = [threading.Thread(target=load) for _ in range(8)]
        for t in threads:
            t.start()
        for _ in range(200):  # under load: 200 replies in, then the signal
            self.assertTrue(answered.acquire(timeout=TIMEOUT))
        rc = s.stop()
        for t in threads:
            t.join(TIMEOUT)
        self.assertEqual(rc, 0, "".join(s.lines))
        self.assertEqual(failures, [])
        self.assertTrue(any("stopped on SIGTERM" in line for line in s.lines), s.lines)
        self.assertEqual(len(set(issued)), len(issued))
        with Server(args, cwd=self.dir.name) as successor:
            status, _, body = successor.get("/v1/ids?count=1000")
            self.assertEqual(status, 200)
            self.assertGreater(min(int(x) for x in body.split()), max(issued))

    def test_a_generator_that_refuses_answers_503(self):
        # baidu's time field ran out in 2024: its generator refuses every ID.
        with Server(["--preset", "baidu", "--node", "worker=4000103"], cwd=self.dir.name) as s:
            status, headers, body = s.get("/v1/id")
            self.assertEqual(status, 503, body)
            self.assertEqual(headers.get("Retry-After"), "1")
            self.assertEqual(json.loads(body)["error"]["kind"], "TimeExhausted")
            self.assertEqual(s.get("/readyz")[0], 503)
            self.assertEqual(s.get("/healthz")[0], 200)
            samples = parse_prometheus(s.get("/metrics")[2].decode())
            self.assertEqual(samples[("snowflake_c_refusals_total", "")], 1)
        self.assertTrue(any("refused: TimeExhausted" in line for line in s.lines), s.lines)


class Errors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.server = Server(["--node", "worker=104", "--max-count", "1000"], cwd=cls.dir.name)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.dir.cleanup()

    def error(self, path: str, status: int, kind: str, method: str = "GET"):
        got, headers, body = self.server.get(path, method=method)
        self.assertEqual(got, status, body)
        self.assertEqual(json.loads(body)["error"]["kind"], kind)
        self.assertTrue(json.loads(body)["error"]["message"])
        return headers

    def test_bad_input_is_400(self):
        for path in [
            "/v1/ids",
            "/v1/ids?count=0",
            "/v1/ids?count=-1",
            "/v1/ids?count=abc",
            "/v1/ids?count=1001",
            "/v1/ids?count=99999999999999999999999",
            "/v1/ids?count=2&format=nope",
            "/v1/decode/abc",
            "/v1/decode/",
            "/v1/decode/18446744073709551616",
            "/v1/decode/123?from=nope",
        ]:
            with self.subTest(path=path):
                self.error(path, 400, "InvalidArgument")
        self.assertEqual(self.server.get("/v1/ids?count=1000")[0], 200)

    def test_unknown_path_is_404_and_other_methods_405(self):
        self.error("/", 404, "NotFound")
        self.error("/v1/idz", 404, "NotFound")
        for method in ["POST", "PUT", "DELETE"]:
            headers = self.error("/v1/id", 405, "MethodNotAllowed", method=method)
            self.assertIn("GET", headers["Allow"])

    def test_a_megabyte_of_headers_is_refused_and_others_are_served(self):
        sock = socket.create_connection((self.server.host, self.server.port), timeout=TIMEOUT)
        reply = b""
        try:
            sock.sendall(b"GET /v1/id HTTP/1.1\r\nHost: x\r\n")
            pad = b"X-Pad: " + b"a" * 1000 + b"\r\n"
            for _ in range(1000):  # 1 MB, unless the server answers first
                if select.select([sock], [], [], 0)[0]:
                    break
                try:
                    sock.sendall(pad)
                except (BrokenPipeError, ConnectionResetError):
                    break
            while True:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                reply += chunk
        finally:
            sock.close()
        self.assertRegex(reply, rb"^HTTP/1\.1 (413|431) ")
        self.assertEqual(self.server.get("/v1/id")[0], 200)

    def test_headers_within_the_bound_are_served_past_it_431(self):
        # The bound is docs/service.md's: request line and headers within
        # 16 KiB; 12 KiB of headers (a long bearer token, cookies) pass.
        for size, status in [(12 * 1024, 200), (17 * 1024, 431)]:
            with self.subTest(size=size):
                sock = socket.create_connection((self.server.host, self.server.port), timeout=TIMEOUT)
                try:
                    pad = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"a" * 1000) for i in range(size // 1024))
                    sock.sendall(b"GET /v1/id HTTP/1.1\r\nHost: x\r\n" + pad + b"\r\n")
                    reply = sock.recv(65536)
                finally:
                    sock.close()
                self.assertTrue(reply.startswith(b"HTTP/1.1 %d " % status), reply[:80])

    def test_a_slow_client_blocks_no_one(self):
        # More slow clients than the server has threads, each a byte at a
        # time, and between their bytes another client's whole request.
        slow = [socket.create_connection((self.server.host, self.server.port), timeout=TIMEOUT) for _ in range(8)]
        request = b"GET /v1/id HTTP/1.1\r\nHost: x\r\n\r\n"
        try:
            for i in range(4):
                for sock in slow:
                    sock.sendall(request[i : i + 1])
                status, _, body = self.server.get("/v1/id")
                self.assertEqual(status, 200)
            for sock in slow:
                sock.sendall(request[4:])
                self.assertTrue(sock.recv(4096).startswith(b"HTTP/1.1 200 "))
        finally:
            for sock in slow:
                sock.close()

    def test_pipelined_requests_are_answered_in_order(self):
        sock = socket.create_connection((self.server.host, self.server.port), timeout=TIMEOUT)
        try:
            sock.sendall(
                b"GET /v1/id HTTP/1.1\r\nHost: x\r\n\r\n" * 3
                + b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        finally:
            sock.close()
        self.assertEqual(re.findall(rb"HTTP/1\.1 ([0-9]+) ", data), [b"200", b"200", b"200", b"404"])

    def test_metrics_parse(self):
        samples = parse_prometheus(self.server.get("/metrics")[2].decode())
        self.assertIn(("snowflake_c_http_request_duration_seconds_bucket", 'le="+Inf"'), samples)
        self.assertIn(("snowflake_c_generator_node", 'field="worker",source="explicit"'), samples)
        self.assertEqual(samples[("snowflake_c_generator_node", 'field="worker",source="explicit"')], 104)


class Token(unittest.TestCase):
    def test_bearer_token(self):
        with tempfile.TemporaryDirectory() as d:
            for args, env in [(["--token", "s3cret"], None), ([], {"SNOWFLAKE_TOKEN": "s3cret"})]:
                with self.subTest(args=args), Server(["--node", "worker=105", *args], env=env, cwd=d) as s:
                    for headers in [
                        {},
                        {"Authorization": "Bearer nope"},
                        {"Authorization": "Bearer s3cre"},
                        {"Authorization": "Bearer s3cretx"},
                        {"Authorization": "Basic s3cret"},
                    ]:
                        status, got, body = s.get("/v1/id", headers)
                        self.assertEqual(status, 401, headers)
                        self.assertIn("Bearer", got["WWW-Authenticate"])
                        self.assertEqual(json.loads(body)["error"]["kind"], "Unauthorized")
                    self.assertEqual(s.get("/v1/id", {"Authorization": "Bearer s3cret"})[0], 200)
                    self.assertEqual(s.get("/metrics", {"Authorization": "Bearer s3cret"})[0], 200)
                    self.assertEqual(s.get("/metrics")[0], 401)
                    self.assertEqual(s.get("/healthz")[0], 200)
                    self.assertEqual(s.get("/readyz")[0], 200)


SAMPLE = re.compile(
    r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\n]|\\.)*\",?)*)\})? (\S+)$"
)


def parse_prometheus(text: str) -> dict:
    """The samples of the Prometheus text format, by (name, labels); fails
    on a line the format does not allow or a sample of an undeclared
    metric."""
    typed: dict[str, str] = {}
    samples: dict = {}
    assert text.endswith("\n")
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped"), line
            typed[name] = kind
            continue
        m = SAMPLE.match(line)
        assert m, f"not a Prometheus sample: {line!r}"
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        assert name in typed or base in typed, f"no TYPE for {name}"
        samples[(name, labels.rstrip(","))] = float(value)
    return samples


if __name__ == "__main__":
    unittest.main()
