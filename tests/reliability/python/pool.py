"""Many Python processes on one pool (worker=auto in one state directory),
churned: a multiprocessing pool whose workers exit after every task, so new
processes keep taking values that others just released -- and a generator
used in the parent and then inherited by forked children, which must move
to fresh workers (pool mode) or refuse with GeneratorForked (static node).

Usage: pool.py STATE_DIR TASKS IDS_PER_TASK. Prints the RESULT line of
tests/reliability/run.
"""

import multiprocessing as mp
import os
import sys

import snowflake_c

# The default preset's fields on the row's epoch (RELIABILITY_EPOCH_MS, set
# by tests/reliability/run): the host-wide claim is keyed on the epoch, so
# the values are shared with nothing else on the machine.
ROW_LAYOUT = {
    "layout": "time:41@1ms,clock:3,worker:7,seq:12",
    "epoch": int(os.environ.get("RELIABILITY_EPOCH_MS", "1704067200000")),
}
STATE_DIR = None
INHERITED = None


def init(state_dir):
    global STATE_DIR
    STATE_DIR = state_dir


def fresh_task(n):
    """A new generator from the pool in a new process."""
    with snowflake_c.Generator(**ROW_LAYOUT, node={"worker": "auto"}, state_dir=STATE_DIR) as gen:
        return gen.node["worker"], gen.next_ids(n)


def inherited_task(n):
    """The parent's generator, used in a forked child."""
    ids = INHERITED.next_ids(n)
    return INHERITED.node["worker"], ids


def inherited_static_task(_n):
    try:
        INHERITED.next_id()
    except snowflake_c.GeneratorForked as e:
        return "GeneratorForked", str(e)
    except snowflake_c.SnowflakeError as e:
        return type(e).__name__, str(e)
    return "an ID", ""


def main():
    global INHERITED
    state_dir, tasks, per_task = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    all_ids, notes = [], []
    faults = expected = unexpected = 0
    ok = True

    # Churn: fresh processes (spawned: nothing inherited) on one pool.
    ctx = mp.get_context("spawn")
    with ctx.Pool(4, initializer=init, initargs=(state_dir,), maxtasksperchild=1) as p:
        results = p.map(fresh_task, [per_task] * tasks, chunksize=1)
    for _worker, ids in results:
        all_ids.extend(ids)
    faults += tasks

    # Fork after use, pool mode: the children leave the parent's worker.
    INHERITED = snowflake_c.Generator(**ROW_LAYOUT, node={"worker": "auto"}, state_dir=state_dir)
    all_ids.extend(INHERITED.next_ids(per_task))
    parent_worker = INHERITED.node["worker"]
    fork = mp.get_context("fork")
    with fork.Pool(4, maxtasksperchild=1) as p:
        results = p.map(inherited_task, [per_task] * 8, chunksize=1)
    faults += 8
    for worker, ids in results:
        if worker == parent_worker:
            ok = False
            notes.append("a forked child kept the parent's worker")
        all_ids.extend(ids)
    all_ids.extend(INHERITED.next_ids(per_task))
    INHERITED.close()

    # Fork after use, static node: the child refuses.
    INHERITED = snowflake_c.Generator(**ROW_LAYOUT, node={"worker": 100})
    all_ids.extend(INHERITED.next_ids(per_task))
    with fork.Pool(2, maxtasksperchild=1) as p:
        answers = p.map(inherited_static_task, [0, 0], chunksize=1)
    faults += 2
    for kind, message in answers:
        if kind == "GeneratorForked" and "fork" in message:
            expected += 1
        else:
            ok = False
            unexpected += kind != "an ID"
            notes.append(f"a forked static child answered {kind}: {message}")
    all_ids.extend(INHERITED.next_ids(per_task))

    dups = len(all_ids) - len(set(all_ids))
    if dups:
        ok = False
        notes.append(f"{dups} duplicate IDs")
    note = "; ".join(notes) if notes else f"{tasks} spawned tasks, 10 forked children"
    print(f"RESULT ids={len(all_ids)} faults={faults} dups={dups} expected={expected} "
          f"unexpected={unexpected} ok={int(ok)} note={note}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
