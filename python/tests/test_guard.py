"""The host-wide guard: two live generators never share a layout and node value.

A second one is refused with WorkerUnavailable (in this process or another);
anything correct starts: other values, a value given back or freed by a killed
holder, the guard turned off, a folder the guard cannot use. Every test has a
guard folder of its own (tmp_path), so that it never meets another suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import snowflake_c as sfc
from conftest import host_name_prefix

LAYOUT: dict[str, Any] = {"layout": "time:41@1ms,worker:10,seq:12", "epoch": 1704067200000}
HOLDER = str(Path(__file__).with_name("hold_generator.py"))


def guarded(folder: Path, **node: Any) -> dict[str, Any]:
    """Generator keywords: LAYOUT, the node values, and the guard folder."""
    return {**LAYOUT, "node": node, "guard_dir": str(folder)}


class Holder:
    """A generator in a process of its own, held until release()."""

    def __init__(self, kwargs: dict[str, Any], count: int = 0, prefix: Sequence[str] = ()) -> None:
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, HOLDER, json.dumps(kwargs), str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.report: dict[str, Any] = {}

    def wait_ready(self) -> dict[str, Any]:
        """The process's report, once its generator exists (or failed to)."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the holder exited without a report (status {self.proc.wait()})"
        self.report = json.loads(line)
        return self.report

    def release(self) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        return self.proc.wait(timeout=60)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=60)


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    """Holders started by a test; none outlives it."""
    started: list[Holder] = []
    yield started
    for h in started:
        h.kill()
        if h.proc.stdout is not None:
            h.proc.stdout.close()
        if h.proc.stdin is not None:
            h.proc.stdin.close()


def hold(holders: list[Holder], kwargs: dict[str, Any], count: int = 0, prefix: Sequence[str] = ()) -> Holder:
    h = Holder(kwargs, count, prefix)
    holders.append(h)
    h.wait_ready()
    return h


def held_message(folder: Path, pid: int, value: str) -> list[str]:
    """What a refusal says: the value, its holder, the folder, and how to share it."""
    return [
        f"node value {value} is in use by live process {pid}",
        f"guard folder {os.path.realpath(folder)}",
        "turn the guard off",
    ]


def test_a_second_process_with_the_same_value_is_refused(tmp_path: Path, holders: list[Holder]) -> None:
    kwargs: dict[str, Any] = {"preset": "twitter", "node": {"datacenter": 1, "worker": 3}, "guard_dir": str(tmp_path)}
    first = hold(holders, kwargs)
    assert first.report["guard"].startswith(f"held: {tmp_path}/"), first.report
    second = hold(holders, kwargs)
    assert second.report["error"] == "WorkerUnavailable"
    for part in held_message(tmp_path, first.proc.pid, "datacenter=1,worker=3"):
        assert part in second.report["message"]
    assert second.proc.wait(timeout=60) == 3
    with pytest.raises(sfc.WorkerUnavailable, match=f"live process {first.proc.pid} "):
        sfc.Generator(**kwargs)
    # Its holder gone, the value is free.
    assert first.release() == 0
    with sfc.Generator(**kwargs) as g:
        assert g.stats()["guard"].startswith("held: ")


def test_in_one_process_the_value_is_refused_until_given_back(tmp_path: Path) -> None:
    kwargs = guarded(tmp_path, worker=3)
    first = sfc.Generator(**kwargs)
    with pytest.raises(sfc.WorkerUnavailable) as info:
        sfc.Generator(**kwargs)
    for part in held_message(tmp_path, os.getpid(), "worker=3"):
        assert part in str(info.value)
    with sfc.Generator(**guarded(tmp_path, worker=4)), sfc.Generator(**{**kwargs, "epoch": 0}):
        pass  # another value, another epoch: other IDs, so both start
    first.close()
    with sfc.Generator(**kwargs):
        with pytest.raises(sfc.WorkerUnavailable):
            sfc.Generator(**kwargs)
    # The context's exit gave it back; so does the last reference going away.
    unnamed = sfc.Generator(**kwargs)
    del unnamed
    sfc.Generator(**kwargs).close()


def test_guard_false_shares_a_value_on_purpose(tmp_path: Path) -> None:
    kwargs = guarded(tmp_path, worker=5)
    with sfc.Generator(**kwargs) as guarded_one, sfc.Generator(**kwargs, guard=False) as sharing:
        assert guarded_one.stats()["guard"].startswith("held: ")
        assert sharing.stats()["guard"] == "off"
        assert sharing.node == guarded_one.node == {"worker": 5}
    # An unguarded generator registers nothing: a guarded one still starts beside it.
    with sfc.Generator(**kwargs, guard=False), sfc.Generator(**kwargs) as g:
        assert g.stats()["guard"].startswith("held: ")


@pytest.mark.parametrize("value", [0, 1, "no"])
def test_guard_takes_only_a_bool(tmp_path: Path, value: Any) -> None:
    with pytest.raises(sfc.InvalidArgument, match="guard must be true or false"):
        sfc.Generator(**guarded(tmp_path, worker=1), guard=value)


def test_guard_none_is_the_default_on(tmp_path: Path) -> None:
    with sfc.Generator(**guarded(tmp_path, worker=1), guard=None) as g:
        assert g.stats()["guard"].startswith("held: ")


def test_guard_dir_takes_paths_and_refuses_a_nul(tmp_path: Path) -> None:
    for folder in (tmp_path / "a", str(tmp_path / "b"), os.fsencode(tmp_path / "c")):
        with sfc.Generator(**LAYOUT, node=1, guard_dir=folder) as g:
            assert g.stats()["guard"].startswith("held: ")
    with pytest.raises(sfc.InvalidArgument, match="guard_dir.*NUL byte at position"):
        sfc.Generator(**LAYOUT, node=1, guard_dir=str(tmp_path) + "\0x")
    with pytest.raises(sfc.InvalidArgument, match="guard_dir"):
        sfc.Generator(**LAYOUT, node=1, guard_dir=3)  # type: ignore[arg-type]


def unusable_folders(tmp_path: Path) -> list[tuple[Path, str]]:
    """Folders the guard cannot use, with what the stats say about each."""
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    cases = [(a_file, "a-file")]
    if os.name != "nt":
        shared = tmp_path / "shared"
        shared.mkdir()
        shared.chmod(0o777)
        link = tmp_path / "link"
        link.symlink_to(tmp_path)
        cases += [(shared, "writable by other users"), (link, "is a symbolic link")]
        if os.geteuid() == 0:
            foreign = tmp_path / "foreign"
            foreign.mkdir(mode=0o700)
            os.chown(foreign, 65534, 65534)
            cases.append((foreign, "belongs to uid 65534"))
    return cases


def test_a_folder_the_guard_cannot_use_never_stops_a_generator(tmp_path: Path) -> None:
    for folder, why in unusable_folders(tmp_path):
        kwargs = guarded(folder, worker=7)
        with sfc.Generator(**kwargs) as g, sfc.Generator(**kwargs) as h:
            guard = g.stats()["guard"]
            assert guard.startswith("unavailable: ") and why in guard, (folder, guard)
            assert h.stats()["guard"] == guard
            # Both run, unguarded, and their stats say why.
            assert sfc.decode(g.next_id(), g.layout)["worker"] == sfc.decode(h.next_id(), h.layout)["worker"] == 7


def test_distinct_values_in_20_processes_all_start(tmp_path: Path, holders: list[Holder]) -> None:
    started = [Holder(guarded(tmp_path, worker=w), 1000) for w in range(20)]
    holders.extend(started)
    reports = [h.wait_ready() for h in started]
    assert [r.get("error") for r in reports] == [None] * 20, reports
    assert [r["node"]["worker"] for r in reports] == list(range(20))
    assert len({r["guard"] for r in reports}) == 20
    ids = [i for r in reports for i in r["ids"]]
    assert len(set(ids)) == len(ids) == 20_000
    # While they live, each of their values is taken.
    refused = hold(holders, guarded(tmp_path, worker=11))
    assert refused.report["error"] == "WorkerUnavailable"
    assert f"live process {started[11].proc.pid} " in refused.report["message"]
    assert [h.release() for h in started] == [0] * 20


def test_a_killed_holders_value_is_free_at_once(tmp_path: Path, holders: list[Holder]) -> None:
    kwargs = guarded(tmp_path, worker=9)
    for _ in range(3):
        holder = hold(holders, kwargs)
        assert "error" not in holder.report, holder.report
        with pytest.raises(sfc.WorkerUnavailable, match=f"live process {holder.proc.pid} "):
            sfc.Generator(**kwargs)
        holder.kill()  # SIGKILL: no cleanup runs in the holder
        with sfc.Generator(**kwargs) as g:
            assert g.stats()["guard"].startswith("held: ")


def _in_forked_child(g: sfc.Generator, kwargs: dict[str, Any]) -> list[str]:
    """In a forked child: uses g, creates a generator with its value, closes g. Returns what happened."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        said = []
        try:
            try:
                g.next_id()
                said.append("issued")
            except sfc.GeneratorForked:
                said.append("GeneratorForked")
            try:
                sfc.Generator(**kwargs).close()
                said.append("started")
            except sfc.WorkerUnavailable as e:
                said.append(f"WorkerUnavailable {e}")
            g.close()  # the child's copy goes; the parent's value must stay held
            said.append("closed")
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            said.append(f"unexpected {e!r}")
        os.write(w, "\n".join(said).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        said = f.read().split("\n")
    assert os.waitpid(pid, 0)[1] == 0
    return said


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_leaves_the_parents_guard_in_place(tmp_path: Path, holders: list[Holder]) -> None:
    kwargs = guarded(tmp_path, worker=6)
    with sfc.Generator(**kwargs) as g:
        said = _in_forked_child(g, kwargs)
        assert said[0] == "GeneratorForked", said
        assert said[1].startswith("WorkerUnavailable ") and f"live process {os.getpid()} " in said[1], said
        assert said[2:] == ["closed"], said
        # The child is gone, having closed its copy: the parent still holds the value.
        third = hold(holders, kwargs)
        assert third.report["error"] == "WorkerUnavailable"
        assert f"live process {os.getpid()} " in third.report["message"]
        g.next_id()
    assert "error" not in hold(holders, kwargs).report


def test_env_node_values_read_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "12")
    with sfc.Generator(**LAYOUT, node="env:JOB_COMPLETION_INDEX", guard_dir=tmp_path) as g:
        assert g.node == {"worker": 12}
        with pytest.raises(sfc.WorkerUnavailable, match="worker=12"):
            sfc.Generator(**LAYOUT, node=12, guard_dir=tmp_path)
    monkeypatch.delenv("JOB_COMPLETION_INDEX")
    with pytest.raises(sfc.InvalidArgument, match="JOB_COMPLETION_INDEX is not set"):
        sfc.Generator(**LAYOUT, node={"worker": "env:JOB_COMPLETION_INDEX"}, guard_dir=tmp_path)
    monkeypatch.setenv("POD_INDEX", "two")
    with pytest.raises(sfc.InvalidArgument, match="POD_INDEX='two' is not a number"):
        sfc.Generator(**LAYOUT, node={"worker": "env:POD_INDEX"}, guard_dir=tmp_path)


POD: dict[str, Any] = {"layout": "time:41@1ms,pod:5,proc:5,seq:12", "epoch": "2024-01-01"}


def test_pod_recipe_host_and_a_pool_field(tmp_path: Path, holders: list[Holder]) -> None:
    """In a pod whose host name is orders-7: host plus auto gives 4 processes distinct values;
    host alone in a second process is refused."""
    prefix = host_name_prefix()
    if prefix is None:
        pytest.skip("cannot set a host name here (unshare -u, or unshare -ru, refused)")
    recipe: dict[str, Any] = {**POD, "node": {"pod": "host", "proc": "auto"}, "state_dir": str(tmp_path)}
    pods = [Holder(recipe, 20_000, (*prefix, "orders-7")) for _ in range(4)]
    holders.extend(pods)
    reports = [p.wait_ready() for p in pods]
    assert [r.get("error") for r in reports] == [None] * 4, reports
    assert sorted(r["node"]["proc"] for r in reports) == [0, 1, 2, 3]
    assert {r["node"]["pod"] for r in reports} == {7}
    ids = [i for r in reports for i in r["ids"]]
    assert len(set(ids)) == len(ids) == 80_000, "no duplicate across the pod's processes"
    assert [p.release() for p in pods] == [0] * 4

    alone: dict[str, Any] = {
        "preset": "twitter",
        "node": {"datacenter": 1, "worker": "host"},
        "guard_dir": str(tmp_path),
    }
    first = hold(holders, alone, prefix=(*prefix, "orders-7"))
    assert first.report["node"] == {"datacenter": 1, "worker": 7}
    second = hold(holders, alone, prefix=(*prefix, "orders-7"))
    assert second.report["error"] == "WorkerUnavailable"
    for part in held_message(tmp_path, first.proc.pid, "datacenter=1,worker=7"):
        assert part in second.report["message"]
