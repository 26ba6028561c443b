"""A Django process of test_django.py: makes and applies the migrations of
django_ids, or saves rows from forked workers and threads.

    python django_writer.py migrate
    python django_writer.py write FORKS THREADS ROWS

The environment names the database (the SQLite file IDS_DB, or the
PostgreSQL server's socket folder IDS_PG_HOST and database IDS_PG_NAME), the state_dir of the pool
(IDS_STATE), the layout (IDS_SPEC, IDS_EPOCH), the folder that holds the
migrations package django_ids_migrations (IDS_MIGRATIONS), and a barrier
folder with the number of processes that meet there (IDS_BARRIER,
IDS_PROCESSES). `write` saves a row in the parent (so that it has drawn IDs
before forking, as a project imported by a pre-forking server may), then
forks FORKS workers; each saves a first row, waits at the barrier (so that
all hold their node values at once), then saves THREADS x ROWS rows from its
threads, half through save() and half through bulk_create(). Every process
prints {"pid", "node"}: its worker value.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import django
from barrier import arrive, meet
from django.conf import settings
from django.core.management import call_command
from django.db import connections


def database() -> dict[str, object]:
    """SQLite (IDS_DB, a file), or PostgreSQL (IDS_PG_HOST, the socket folder of
    a server; IDS_PG_NAME, the database) through psycopg."""
    if "IDS_PG_HOST" in os.environ:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": os.environ["IDS_PG_NAME"],
            "USER": "postgres",
            "HOST": os.environ["IDS_PG_HOST"],
        }
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ["IDS_DB"],
        "OPTIONS": {"timeout": 60, "transaction_mode": "IMMEDIATE"},
    }


def configure() -> None:
    sys.path.insert(0, os.environ["IDS_MIGRATIONS"])
    settings.configure(
        INSTALLED_APPS=["django_ids"],
        DATABASES={"default": database()},
        MIGRATION_MODULES={"django_ids": "django_ids_migrations"},
        SNOWFLAKE_C={
            "layout": os.environ["IDS_SPEC"],
            "epoch": int(os.environ["IDS_EPOCH"]),
            "node": {"worker": "auto"},
            "state_dir": os.environ["IDS_STATE"],
        },
        USE_TZ=True,
    )
    django.setup()


def report() -> None:
    from snowflake_c.django import generator

    # One write(2) of a whole line, under PIPE_BUF: the eight processes share
    # the pipe, and a line written in two pieces could meet another's.
    line = json.dumps({"pid": os.getpid(), "node": generator().node["worker"]}) + "\n"
    os.write(sys.stdout.fileno(), line.encode())


def save_rows(threads: int, rows: int) -> None:
    from django_ids.models import Row

    Row.objects.create(pid=os.getpid(), thread=-1)
    meet(os.environ["IDS_BARRIER"], int(os.environ["IDS_PROCESSES"]))
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            half = rows // 2
            for _ in range(half):
                Row(pid=os.getpid(), thread=n).save()
            for start in range(half, rows, 25):
                Row.objects.bulk_create(Row(pid=os.getpid(), thread=n) for _ in range(min(25, rows - start)))
        except BaseException as e:  # reported by the main thread
            errors.append(e)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=run, args=(n,)) for n in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    if errors:
        raise errors[0]


def write(forks: int, threads: int, rows: int) -> None:
    from django_ids.models import Row

    Row.objects.create(pid=os.getpid(), thread=-1)
    arrive(os.environ["IDS_BARRIER"])  # counted, not waiting: it lives until its workers end
    connections.close_all()  # no connection crosses the fork
    sys.stdout.flush()  # nor a buffered line, which each child would print again
    children = []
    for _ in range(forks):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                save_rows(threads, rows)
                report()
            except BaseException as e:
                print(f"worker {os.getpid()}: {e!r}", file=sys.stderr, flush=True)
                code = 1
            os._exit(code)
        children.append(pid)
    report()
    failed = [pid for pid in children if os.waitpid(pid, 0)[1] != 0]
    if failed:
        sys.exit(f"workers {failed} failed")


if __name__ == "__main__":
    configure()
    if sys.argv[1] == "migrate":
        call_command("makemigrations", "django_ids", verbosity=0)
        call_command("migrate", verbosity=0)
        call_command("makemigrations", "--check", "--dry-run", verbosity=0)  # exits 1 on a change
    else:
        forks, threads, rows = (int(a) for a in sys.argv[2:5])
        write(forks, threads, rows)
