"""The client examples of docs/service.md (curl, Go's and Python's
standard libraries), each run as it is written against a real server.

SFC_CLI names the command (built with the service)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from test_service import ROOT, Server, cli

TESTED = re.compile(r"<!-- tested: (\w+) -->\n```\w*\n(.*?)```\n", re.S)


class Examples(unittest.TestCase):
    """The client examples of docs/service.md, each run as written against
    a real server with a token: three IDs, then the first one decoded."""

    @classmethod
    def setUpClass(cls):
        text = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
        cls.blocks = dict(TESTED.findall(text))
        assert len(cls.blocks) == text.count("<!-- tested: "), "a tested marker without its block"
        cls.dir = tempfile.TemporaryDirectory()
        cls.server = Server(["--node", "worker=106", "--token", "t0ken"], cwd=cls.dir.name)
        cls.env = {
            **os.environ,
            "SNOWFLAKE_URL": f"http://{cls.server.host}:{cls.server.port}",
            "SNOWFLAKE_TOKEN": "t0ken",
        }

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.dir.cleanup()

    def test_the_three_clients_are_there(self):
        self.assertEqual(sorted(self.blocks), ["bash", "go", "python"])

    def run_example(self, command: list[str], env: dict | None = None) -> None:
        out = subprocess.run(command, capture_output=True, timeout=300, cwd=self.dir.name, env=env or self.env)
        self.assertEqual(out.returncode, 0, out.stderr.decode())
        lines = out.stdout.decode().split("\n", 3)
        ids = [int(x) for x in lines[:3]]
        self.assertTrue(ids[0] < ids[1] < ids[2], ids)
        want = cli("decode", "--json", "--preset", "default", str(ids[0])).stdout.decode()
        self.assertEqual(lines[3], want)
        # Without the token the example fails rather than printing an error as IDs.
        bare = {k: v for k, v in (env or self.env).items() if k != "SNOWFLAKE_TOKEN"}
        refused = subprocess.run(command, capture_output=True, timeout=300, cwd=self.dir.name, env=bare)
        self.assertNotEqual(refused.returncode, 0, refused.stdout)

    def test_curl(self):
        curl = shutil.which("curl")
        self.assertIsNotNone(curl, "curl is missing: run scripts/setup")
        self.run_example(["bash", "-euo", "pipefail", "-c", self.blocks["bash"]])

    def test_go(self):
        go = shutil.which("go")
        self.assertIsNotNone(go, "go is missing: run scripts/setup (Debian golang-go)")
        main = Path(self.dir.name) / "main.go"
        main.write_text(self.blocks["go"], encoding="utf-8")
        # The build cache outlives the test (the standard library compiles once).
        env = {**self.env, "GOCACHE": str(ROOT / "build" / "go-cache"), "GOTOOLCHAIN": "local", "GOFLAGS": ""}
        vet = subprocess.run([go, "vet", str(main)], capture_output=True, timeout=300, cwd=self.dir.name, env=env)
        self.assertEqual(vet.returncode, 0, vet.stderr.decode())
        self.run_example([go, "run", str(main)], env)

    def test_python(self):
        self.run_example([sys.executable, "-c", self.blocks["python"]])


if __name__ == "__main__":
    unittest.main()
