"""Generators created with too few file descriptors, for the guard's rows of
tests/reliability/run: with RLIMIT_NOFILE at LIMIT, COUNT generators of
node values 0..COUNT-1 (field `worker`). Each must either start guarded (its
stats' guard "held: ...", no warning) or fail with StateError: never an
unguarded start. Prints "HELD v1 v2 ..." (the values it holds), then issues
16 IDs per millisecond from each until the file STOP exists, writes them to
IDS_FILE, and prints the RESULT line.

Usage: nofile.py LIMIT COUNT LAYOUT EPOCH IDS_FILE STOP
"""

import os
import resource
import sys
import time
import warnings

import snowflake_c


def main():
    limit, count, layout, epoch, ids_path, stop = sys.argv[1:7]
    limit, count = int(limit), int(count)
    # Opened before the limit: a file is one more descriptor.
    out = open(ids_path, "w", encoding="ascii")
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    held, notes = {}, []
    refused = unexpected = 0
    ok = True
    for value in range(count):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                gen = snowflake_c.Generator(layout=layout, epoch=int(epoch), node={"worker": value})
            except snowflake_c.StateError:
                refused += 1
                continue
            except Exception as e:  # any other kind fails the row
                unexpected += 1
                ok = False
                notes.append(f"worker {value}: {type(e).__name__}: {e}")
                continue
        guard = gen.stats()["guard"]
        if not guard.startswith("held: ") or caught:
            ok = False
            said = "; ".join(str(w.message) for w in caught) or "no warning"
            notes.append(f"worker {value} started unguarded ({guard}; {said})")
        held[value] = gen
    print("HELD " + " ".join(str(v) for v in held), flush=True)
    ids = []
    while not os.path.exists(stop):
        for gen in held.values():
            ids.extend(gen.next_ids(16))
        time.sleep(0.001 - time.monotonic() % 0.001)
    for gen in held.values():
        gen.close()
    out.write("".join(f"{i}\n" for i in ids))
    out.close()
    note = "; ".join(notes[:3]) or (f"{len(held)} of {count} started guarded, {refused} StateError")
    print(
        f"RESULT ids={len(ids)} faults={count} dups={len(ids) - len(set(ids))} "
        f"expected={refused} unexpected={unexpected} ok={int(ok)} note={note}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
