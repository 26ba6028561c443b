"""The guard: one host-wide claim per ID space and node bits.

A second live generator that could issue the same IDs is refused with
WorkerUnavailable, in this process or another, whatever its field names and
whether it has a state_dir; anything correct starts: other values, another
epoch, a value given back or freed by a killed holder. guard=False runs
unguarded and warns with UnguardedWarning. Every layout here is on this
run's own epoch (conftest.OWN_EPOCH), so that no other suite on the machine
shares its claims.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import snowflake_c as sfc
from conftest import OWN_EPOCH, host_name_prefix, own

LAYOUT: dict[str, Any] = {"layout": "time:41@1ms,worker:10,seq:12", "epoch": OWN_EPOCH}
HOLDER = str(Path(__file__).with_name("hold_generator.py"))


def guarded(**node: Any) -> dict[str, Any]:
    """Generator keywords: LAYOUT and the node values."""
    return {**LAYOUT, "node": node}


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


def held_message(pid: int, value: str) -> list[str]:
    """What a refusal says: the value, its holder, the claim, and how to share it."""
    return [f"node value {value} is held by live process {pid} ", "host-wide claim ", "turn the guard off"]


TAKEN_OVER = (
    "the generator is closed: a newer generator of this process took node value {} "
    "(a cell or a reload run again); use that one"
)


def test_in_one_process_the_same_generator_again_takes_the_value_over() -> None:
    """A notebook cell run twice: the newer generator starts after every ID of
    the older one, which is closed and says why; another layout whose IDs
    could meet it is still refused, naming this process."""
    kwargs = guarded(worker=3)
    first = sfc.Generator(**kwargs)
    assert first.stats()["guard"].startswith("held: ")
    before = first.next_ids(100)
    assert not first.closed
    second = sfc.Generator(**kwargs)
    assert second.next_id() > max(before)
    assert first.closed and not second.closed
    with pytest.raises(sfc.InvalidArgument) as closed:
        first.next_id()
    assert str(closed.value) == TAKEN_OVER.format("worker=3")
    with sfc.Generator(**guarded(worker=4)):
        pass  # another value: other IDs, so both start
    # Another epoch issues the same integers, a millisecond apart: refused.
    with pytest.raises(sfc.WorkerUnavailable) as info:
        sfc.Generator(**{**kwargs, "epoch": OWN_EPOCH + 1})
    for part in [
        f"node value worker=3 is held by live process {os.getpid()}, this process: "
        "another of its generators is still open (host-wide claim ",
        "close that one first, or use it again",
    ]:
        assert part in str(info.value)
    second.next_id()  # not taken over by the refused one
    second.close()
    first.close()  # closed already: nothing more
    # The context's exit gave it back; so does the last reference going away.
    unnamed = sfc.Generator(**kwargs)
    del unnamed
    sfc.Generator(**kwargs).close()


def test_a_second_process_with_the_same_value_is_refused(holders: list[Holder]) -> None:
    kwargs: dict[str, Any] = {**own("twitter"), "node": {"datacenter": 1, "worker": 3}}
    first = hold(holders, kwargs)
    assert first.report["guard"].startswith("held: "), first.report
    second = hold(holders, kwargs)
    assert second.report["error"] == "WorkerUnavailable"
    for part in held_message(first.proc.pid, "datacenter=1,worker=3"):
        assert part in second.report["message"]
    assert second.proc.wait(timeout=60) == 3
    with pytest.raises(sfc.WorkerUnavailable, match=f"held by live process {first.proc.pid} "):
        sfc.Generator(**kwargs)
    # Its holder gone, the value is free.
    assert first.release() == 0
    with sfc.Generator(**kwargs) as g:
        assert g.stats()["guard"].startswith("held: ")


SPLIT: dict[str, Any] = {
    "layout": "time:41@1ms,datacenter:5,worker:5,seq:12",
    "epoch": OWN_EPOCH,
    "node": {"datacenter": 1, "worker": 3},
}
WHOLE: dict[str, Any] = {"layout": "time:41@1ms,worker:10,seq:12", "epoch": OWN_EPOCH, "node": {"worker": 35}}


def test_field_names_do_not_split_the_claim(holders: list[Holder]) -> None:
    """datacenter 1, worker 3 in 5+5 bits and worker 35 in 10 bits are the same bits: the same IDs."""
    when = OWN_EPOCH + 5
    split = sfc.encode(when, {**SPLIT["node"], "seq": 0}, layout=SPLIT["layout"], epoch=OWN_EPOCH)
    assert split == sfc.encode(when, {**WHOLE["node"], "seq": 0}, layout=WHOLE["layout"], epoch=OWN_EPOCH)
    for first, second in ((SPLIT, WHOLE), (WHOLE, SPLIT)):
        with sfc.Generator(**first) as g:
            with pytest.raises(sfc.WorkerUnavailable, match=f"held by live process {os.getpid()}, this process: "):
                sfc.Generator(**second)
            assert g.stats()["guard"].startswith("held: ")
    holder = hold(holders, SPLIT)
    assert "error" not in holder.report, holder.report
    with pytest.raises(sfc.WorkerUnavailable, match=f"held by live process {holder.proc.pid} ") as info:
        sfc.Generator(**WHOLE)
    assert "this process" not in str(info.value)
    # Other bits (worker 36) are another claim.
    with sfc.Generator(**{**WHOLE, "node": {"worker": 36}}):
        pass


def test_a_state_dir_generator_beside_a_guard_only_one_takes_it_over(tmp_path: Path) -> None:
    """One claim whatever the state_dir: in this process each takes the one
    before over (the options may differ, the layout and node values not)."""
    kwargs = guarded(worker=8)
    a, b = tmp_path / "a", tmp_path / "b"
    plain = sfc.Generator(**kwargs)
    stated = sfc.Generator(**kwargs, state_dir=a)
    assert stated.stats()["guard"].startswith("held: ")
    with pytest.raises(sfc.InvalidArgument, match="a newer generator of this process took node value worker=8"):
        plain.next_id()
    other = sfc.Generator(**kwargs, state_dir=b)  # another folder, the same claim
    with pytest.raises(sfc.InvalidArgument, match="a newer generator of this process took"):
        stated.next_id()
    last = other.next_id()
    with sfc.Generator(**kwargs) as again:
        assert again.next_id() > last
    for g in (plain, stated, other):
        g.close()


def test_guard_false_runs_unguarded_and_warns() -> None:
    kwargs = guarded(worker=5)
    with pytest.warns(sfc.UnguardedWarning, match="worker=5 is not guarded") as record:
        sharing = sfc.Generator(**kwargs, guard=False)
    assert record[0].filename == __file__, "the warning points at the caller's Generator(...)"
    with sharing, sfc.Generator(**kwargs) as guarded_one:
        assert sharing.stats()["guard"] == "off"
        assert guarded_one.stats()["guard"].startswith("held: ")
        assert sharing.node == guarded_one.node == {"worker": 5}
        # An unguarded generator takes no claim, and does not stop a guarded one.
        with pytest.warns(sfc.UnguardedWarning):
            sfc.Generator(**kwargs, guard=False).close()
    # As an error, the warning stops the generator's creation.
    with warnings.catch_warnings():
        warnings.simplefilter("error", sfc.UnguardedWarning)
        with pytest.raises(sfc.UnguardedWarning):
            sfc.Generator(**kwargs, guard=False)


def test_a_guarded_generator_does_not_warn() -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with sfc.Generator(**guarded(worker=5)) as g, sfc.Generator(**guarded(worker=6), guard=True):
            g.next_id()
    assert [w for w in record if issubclass(w.category, sfc.UnguardedWarning)] == []


def test_unguarded_warning_is_a_public_user_warning() -> None:
    assert issubclass(sfc.UnguardedWarning, UserWarning)
    assert not issubclass(sfc.UnguardedWarning, sfc.SnowflakeError)
    assert "UnguardedWarning" in sfc.__all__ and sfc.UnguardedWarning.__module__ == "snowflake_c"
    assert sfc.UnguardedWarning.__doc__


@pytest.mark.parametrize("value", [0, 1, "no"])
def test_guard_takes_only_a_bool(value: Any) -> None:
    with pytest.raises(sfc.InvalidArgument, match="guard must be true or false"):
        sfc.Generator(**guarded(worker=1), guard=value)


def test_guard_none_is_the_default_on() -> None:
    with sfc.Generator(**guarded(worker=1), guard=None) as g:
        assert g.stats()["guard"].startswith("held: ")


@pytest.mark.skipif(os.name == "nt", reason="needs resource.setrlimit")
def test_no_file_descriptors_left_refuses_never_starts_unguarded(tmp_path: Path) -> None:
    """With a low RLIMIT_NOFILE, each generator either holds its claim or fails with StateError."""
    script = textwrap.dedent(
        f"""
        import json, resource, snowflake_c
        resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40))
        kept, said = [], []
        for worker in range(60):
            try:
                kept.append(snowflake_c.Generator(layout={LAYOUT["layout"]!r}, epoch={OWN_EPOCH}, node=worker))
                said.append(kept[-1].stats()["guard"])
            except snowflake_c.SnowflakeError as e:
                said.append(e.status)
        print(json.dumps(said))
        """
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    said = json.loads(r.stdout)
    assert all(s.startswith("held: ") or s == "StateError" for s in said), said
    assert "StateError" in said, "the limit was reached"


def test_distinct_values_in_20_processes_all_start(holders: list[Holder]) -> None:
    started = [Holder(guarded(worker=w), 1000) for w in range(20)]
    holders.extend(started)
    reports = [h.wait_ready() for h in started]
    assert [r.get("error") for r in reports] == [None] * 20, reports
    assert [r["node"]["worker"] for r in reports] == list(range(20))
    assert len({r["guard"] for r in reports}) == 20
    ids = [i for r in reports for i in r["ids"]]
    assert len(set(ids)) == len(ids) == 20_000
    # While they live, each of their values is taken.
    refused = hold(holders, guarded(worker=11))
    assert refused.report["error"] == "WorkerUnavailable"
    assert f"held by live process {started[11].proc.pid} " in refused.report["message"]
    assert [h.release() for h in started] == [0] * 20


def test_a_killed_holders_value_is_free_at_once(holders: list[Holder]) -> None:
    kwargs = guarded(worker=9)
    for _ in range(3):
        holder = hold(holders, kwargs)
        assert "error" not in holder.report, holder.report
        with pytest.raises(sfc.WorkerUnavailable, match=f"held by live process {holder.proc.pid} "):
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
def test_a_forked_child_leaves_the_parents_guard_in_place(holders: list[Holder]) -> None:
    kwargs = guarded(worker=6)
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


def test_env_node_values_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "12")
    with sfc.Generator(**LAYOUT, node="env:JOB_COMPLETION_INDEX") as g:
        assert g.node == {"worker": 12}
        # The same value given outright is the same generator: it takes it over.
        with sfc.Generator(**LAYOUT, node=12):
            with pytest.raises(sfc.InvalidArgument, match="took node value worker=12"):
                g.next_id()
    monkeypatch.delenv("JOB_COMPLETION_INDEX")
    with pytest.raises(sfc.InvalidArgument, match="JOB_COMPLETION_INDEX is not set"):
        sfc.Generator(**LAYOUT, node={"worker": "env:JOB_COMPLETION_INDEX"})
    monkeypatch.setenv("POD_INDEX", "two")
    with pytest.raises(sfc.InvalidArgument, match="POD_INDEX='two' is not a number"):
        sfc.Generator(**LAYOUT, node={"worker": "env:POD_INDEX"})


POD: dict[str, Any] = {"layout": "time:41@1ms,pod:5,proc:5,seq:12", "epoch": OWN_EPOCH}


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

    alone: dict[str, Any] = {**own("twitter"), "node": {"datacenter": 1, "worker": "host"}}
    first = hold(holders, alone, prefix=(*prefix, "orders-7"))
    assert first.report["node"] == {"datacenter": 1, "worker": 7}
    second = hold(holders, alone, prefix=(*prefix, "orders-7"))
    assert second.report["error"] == "WorkerUnavailable"
    for part in held_message(first.proc.pid, "datacenter=1,worker=7"):
        assert part in second.report["message"]
