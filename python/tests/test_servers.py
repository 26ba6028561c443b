"""The multi-process recipe of docs/integrations/python-servers.md, run as
written: gunicorn with and without --preload, uvicorn with workers, each
started here on a Unix socket, many requests, every worker with a node value
of its own."""

from __future__ import annotations

import http.client
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import snowflake_c as sfc
from doc_examples import commands, write_files

PAGE = "python-servers.md"
SERVERS = [line for line in commands(PAGE) if line.split()[0] in ("gunicorn", "uvicorn")]
REQUESTS, CLIENTS = 300, 8


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP over a Unix socket: no TCP port, and it works without a network."""

    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=30)
        self.path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect(self.path)
        self.sock = sock


def get(path: str) -> dict[str, object]:
    """One request on a connection of its own (so that any worker may take it)."""
    connection = UnixHTTPConnection(path)
    try:
        connection.request("GET", "/", headers={"Connection": "close"})
        response = connection.getresponse()
        assert response.status == 200
        answer: dict[str, object] = json.loads(response.read())
        return answer
    finally:
        connection.close()


pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="gunicorn and the forking servers are POSIX-only (and so is the recipe)"
)


def test_the_page_gives_three_servers() -> None:
    assert [line.split()[0] for line in SERVERS] == ["gunicorn", "gunicorn", "uvicorn"]
    assert "--preload" in SERVERS[0] and "--preload" not in SERVERS[1]


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, int, Path]]:
    """The server of a command line of the page, started in tmp_path on a
    Unix socket: (socket path, number of workers, state_dir)."""
    line: str = request.param
    argv = shlex.split(line)
    program = shutil.which(argv[0], path=str(Path(sys.executable).parent))
    if program is None:
        pytest.skip(f"{argv[0]} is not installed (python/run-tests.sh installs it)")
    write_files(PAGE, tmp_path)
    state = tmp_path / "state"
    sock = str(tmp_path / "server.sock")
    bind = ["--bind", f"unix:{sock}"] if argv[0] == "gunicorn" else ["--uds", sock]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWFLAKE_")}
    env["APP_SNOWFLAKE_DIR"] = str(state)
    log = open(tmp_path / "server.log", "wb")  # closed below, once the server has stopped
    process = subprocess.Popen(
        [program, *argv[1:-1], *bind, argv[-1]],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the workers stop with it
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, (tmp_path / "server.log").read_text()
            try:
                get(sock)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                assert time.monotonic() < deadline, (tmp_path / "server.log").read_text()
                time.sleep(0.1)
        yield sock, int(argv[argv.index("--workers") + 1]), state
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


@pytest.mark.parametrize("server", SERVERS, indirect=True, ids=["gunicorn-preload", "gunicorn", "uvicorn"])
def test_every_worker_has_its_own_node_value(server: tuple[str, int, Path]) -> None:
    sock, workers, _state = server
    answers: list[dict[str, object]] = []
    deadline = time.monotonic() + 20
    # Requests until every worker has answered (the kernel hands connections
    # to whichever worker is waiting), at least REQUESTS of them.
    with ThreadPoolExecutor(CLIENTS) as pool:
        while len(answers) < REQUESTS or len({a["pid"] for a in answers}) < workers:
            assert time.monotonic() < deadline, f"workers seen: {sorted({a['pid'] for a in answers})}"  # type: ignore[type-var]
            answers += pool.map(lambda _: get(sock), range(REQUESTS // 3))
    ids = [int(str(a["id"])) for a in answers]
    assert len(set(ids)) == len(ids)  # zero duplicates
    worker_of: dict[object, set[object]] = {}
    for a in answers:
        worker_of.setdefault(a["pid"], set()).add(a["worker"])
    assert len(worker_of) == workers
    assert all(len(values) == 1 for values in worker_of.values()), worker_of  # one value per process
    values = [next(iter(v)) for v in worker_of.values()]
    assert len(set(values)) == workers  # distinct across the workers
    for ident, a in zip(ids, answers, strict=True):
        assert sfc.decode(ident, preset="default").fields["worker"] == a["worker"]
