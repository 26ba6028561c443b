"""snowflake_c.django: the field, its migrations and its settings, on SQLite
and on PostgreSQL (a server of each test's own, tests/postgres/pgserver.py,
where one is installed).

The multi-process runs and the migrations run in processes of their own
(django_writer.py); the rest configures Django in this process, with an
in-memory database."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

pytest.importorskip("django")

import django  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.exceptions import ImproperlyConfigured  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from postgres_server import postgres_server  # noqa: E402

import snowflake_c as sfc  # noqa: E402
from conftest import OWN_EPOCH, own  # noqa: E402
from doc_examples import commands, scripts, write_files  # noqa: E402

HERE = Path(__file__).resolve().parent
SPEC = sfc.Layout.preset("default").spec
LAYOUT = sfc.Layout(SPEC, OWN_EPOCH)


class Database(NamedTuple):
    """Where django_writer.py saves: its environment, and a query for the test."""

    env: dict[str, str]
    query: Callable[[str], list[tuple[Any, ...]]]


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        path = tmp_path / "ids.sqlite3"

        def query_sqlite(sql: str) -> list[tuple[Any, ...]]:
            with sqlite3.connect(path) as db:
                return db.execute(sql).fetchall()

        yield Database({"IDS_DB": str(path)}, query_sqlite)
        return
    with postgres_server() as pg:
        import psycopg

        pg.sql("CREATE DATABASE ids")

        def query_postgres(sql: str) -> list[tuple[Any, ...]]:
            with psycopg.connect(host=str(pg.socket_dir), user="postgres", dbname="ids") as db:
                return db.execute(sql).fetchall()

        yield Database({"IDS_PG_HOST": str(pg.socket_dir), "IDS_PG_NAME": "ids"}, query_postgres)


def _env(tmp_path: Path, database: Database | None = None) -> dict[str, str]:
    migrations = tmp_path / "migrations"
    (migrations / "django_ids_migrations").mkdir(parents=True, exist_ok=True)
    (migrations / "django_ids_migrations" / "__init__.py").touch()
    (tmp_path / "state").mkdir(exist_ok=True)
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("SNOWFLAKE_")},
        **(database.env if database else {"IDS_DB": str(tmp_path / "ids.sqlite3")}),
        "IDS_STATE": str(tmp_path / "state"),
        "IDS_SPEC": SPEC,
        "IDS_EPOCH": str(OWN_EPOCH),
        "IDS_MIGRATIONS": str(migrations),
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }


def _writer(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(
        [sys.executable, str(HERE / "django_writer.py"), *args], env=env, capture_output=True, text=True, timeout=180
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def test_migrations_are_made_applied_and_complete(database: Database, tmp_path: Path) -> None:
    env = _env(tmp_path, database)
    _writer(env, "migrate")  # makemigrations, migrate, then makemigrations --check finds nothing
    made = list((tmp_path / "migrations" / "django_ids_migrations").glob("0001_*.py"))
    assert len(made) == 1
    text = made[0].read_text()
    assert "import snowflake_c.django" in text
    assert "snowflake_c.django.SnowflakeField(primary_key=True, serialize=False)" in text
    assert "snowflake_c.django.SnowflakeField(unique=True)" in text
    if "IDS_DB" in env:
        info = database.query("PRAGMA table_info(django_ids_row)")
        columns = {row[1]: (row[2], row[5]) for row in info}
    else:
        types = database.query(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'django_ids_row'"
        )
        key = database.query(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
            " AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'django_ids_row'::regclass AND i.indisprimary"
        )
        columns = {name: (kind, int((name,) in key)) for name, kind in types}
    assert columns["id"] == ("bigint", 1)  # (type, primary key)
    assert columns["copy"][0] == "bigint"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks its workers, as a pre-forking server does")
def test_forked_workers_and_threads_save_unique_ids_of_their_own_worker(database: Database, tmp_path: Path) -> None:
    """Two projects, each forking three workers after drawing IDs, four
    threads each: every ID is unique and decodes to the worker value of the
    process that saved it; the eight processes hold eight values."""
    env = _env(tmp_path, database)
    _writer(env, "migrate")
    forks, threads, rows = 3, 4, 60
    env.update(IDS_BARRIER=str(tmp_path / "barrier"), IDS_PROCESSES=str(2 * (1 + forks)))
    runs = [
        subprocess.Popen(
            [sys.executable, str(HERE / "django_writer.py"), "write", str(forks), str(threads), str(rows)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    node_of: dict[int, int] = {}
    for run in runs:
        out, err = run.communicate(timeout=180)
        assert run.returncode == 0, err
        for line in out.splitlines():
            report = json.loads(line)
            node_of[report["pid"]] = report["node"]
    assert len(node_of) == 2 * (1 + forks)
    assert len(set(node_of.values())) == len(node_of)  # a value of its own each
    rows_read = database.query("SELECT id, copy, pid, thread FROM django_ids_row")
    assert len(rows_read) == 2 * (1 + forks * (1 + threads * rows))
    ids = [r[0] for r in rows_read] + [r[1] for r in rows_read]
    assert len(set(ids)) == len(ids)  # zero duplicates, keys and copies alike
    for key, copy, pid, _thread in rows_read:
        assert sfc.decode(key, LAYOUT).fields["worker"] == node_of[pid]
        assert sfc.decode(copy, LAYOUT).fields["worker"] == node_of[pid]
    per_worker = {(pid, thread) for _, _, pid, thread in rows_read if thread >= 0}
    assert len(per_worker) == 2 * forks * threads


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_doc_example_runs_as_written(backend: str, tmp_path: Path) -> None:
    """The page's files, commands and script as written: on SQLite, and with
    its mysite.settings_postgres on a PostgreSQL server (PGHOST, its socket)."""
    page = "python-django.md"
    files = write_files(page, tmp_path)
    assert {p.relative_to(tmp_path).as_posix() for p in files} == {
        "mysite/settings.py",
        "mysite/settings_postgres.py",
        "shop/models.py",
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SNOWFLAKE_", "PG"))}
    with contextlib.ExitStack() as stack:
        if backend == "postgresql":
            pg = stack.enter_context(postgres_server())
            pg.sql("CREATE DATABASE shop")
            env["PGHOST"] = str(pg.socket_dir)
        keys = _run_doc_example(page, env, backend, tmp_path)
    assert len({sfc.decode(k, preset="default").fields["worker"] for k in keys}) == 1  # one process, one value


def _run_doc_example(page: str, env: dict[str, str], backend: str, tmp_path: Path) -> list[int]:
    """Runs the page's commands and script; returns the keys of shop_order."""
    for line in commands(page):
        if line.startswith("pip "):
            continue
        if line.startswith("export "):
            name, value = line.removeprefix("export ").split("=", 1)
            if name == "DJANGO_SETTINGS_MODULE" and backend == "postgresql":
                value += "_postgres"  # as the page says
            env[name] = value
            continue
        argv = line.split()
        assert argv[0] == "python"
        r = subprocess.run(
            [sys.executable, *argv[1:]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert r.returncode == 0, f"{line}: {r.stdout}{r.stderr}"
    assert list((tmp_path / "shop" / "migrations").glob("0001_*.py"))
    (code,) = scripts(page)
    (tmp_path / "use.py").write_text(code)
    r = subprocess.run([sys.executable, "use.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    if backend == "postgresql":
        assert not (tmp_path / "db.sqlite3").exists()
        import psycopg

        with psycopg.connect(dbname="shop", user="postgres", host=env["PGHOST"]) as db:
            keys = [row[0] for row in db.execute("SELECT id FROM shop_order ORDER BY id")]
    else:
        with sqlite3.connect(tmp_path / "db.sqlite3") as db:
            keys = [row[0] for row in db.execute("SELECT id FROM shop_order ORDER BY id")]
    assert len(keys) == 4 and str(keys[0]) in r.stdout
    return keys


# -- in this process -------------------------------------------------------


@pytest.fixture(scope="module")
def django_db() -> Iterator[None]:
    """Django set up in this process, the tables made in a memory database."""
    if not settings.configured:
        settings.configure(
            INSTALLED_APPS=["django_ids"],
            DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
            MIGRATION_MODULES={"django_ids": None},
            USE_TZ=True,
        )
        django.setup()
    call_command("migrate", run_syncdb=True, verbosity=0)
    yield
    from snowflake_c.django import _generator

    _generator.reset()


def _fresh_row() -> tuple[int, int]:
    from django_ids.models import Row

    row = Row.objects.create(pid=os.getpid(), thread=0)
    stored = Row.objects.get(pk=row.pk)
    return stored.id, stored.copy


def test_deconstruct_names_the_field_and_round_trips(django_db: None) -> None:
    from snowflake_c.django import SnowflakeField

    for kwargs in ({"primary_key": True}, {"unique": True, "null": True}, {"db_index": True}):
        name, path, args, given = SnowflakeField(**kwargs).deconstruct()
        assert path == "snowflake_c.django.SnowflakeField"
        assert given == kwargs and args == []
        assert SnowflakeField(*args, **given).deconstruct()[1:] == (path, args, given)


def test_settings_give_the_generator_and_a_change_makes_a_new_one(django_db: None, tmp_path: Path) -> None:
    from snowflake_c.django import generator

    static = {**own("twitter"), "node": {"datacenter": 7, "worker": 9}}
    with override_settings(SNOWFLAKE_C=static):
        key, copy = _fresh_row()
        first = generator()
        for i in (key, copy):
            assert sfc.decode(i, **own("twitter")).fields == {"datacenter": 7, "worker": 9, "seq": i & 4095}
    assert first.closed  # the setting changed back: that generator was closed
    pooled = {**own("twitter"), "node": {"datacenter": 7, "worker": "auto"}, "state_dir": str(tmp_path)}
    with override_settings(SNOWFLAKE_C=pooled):
        key, _ = _fresh_row()
        assert generator().stats()["node_sources"]["worker"] == "pool"
        assert sfc.decode(key, **own("twitter")).fields["worker"] == generator().node["worker"]


def make_test_generator() -> sfc.Generator:
    """SNOWFLAKE_C as a dotted path: this function."""
    return sfc.Generator(**own("sonyflake"), node={"machine": 4242})


def test_settings_as_a_dotted_path(django_db: None) -> None:
    with override_settings(SNOWFLAKE_C="test_django.make_test_generator"):
        key, _ = _fresh_row()
        assert sfc.decode(key, **own("sonyflake")).fields["machine"] == 4242


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (None, "needs the SNOWFLAKE_C setting"),
        (42, "not int"),
        ({"preset": "nope"}, "SNOWFLAKE_C: .*nope"),
        ({**own("twitter")}, "SNOWFLAKE_C: no value for node field 'datacenter'"),
        ({**own("discord"), "node": {"worker": 1, "process": 1}}, "do not fit a signed BIGINT"),
        ("test_django.no_such_function", "SNOWFLAKE_C: .*no_such_function"),
    ],
)
def test_bad_settings_are_improperly_configured(django_db: None, config: object, message: str) -> None:
    from django_ids.models import Row

    with override_settings(SNOWFLAKE_C=config), pytest.raises(ImproperlyConfigured, match=message):
        Row.objects.create(pid=0, thread=0)
    assert not Row.objects.filter(pid=0).exists()


def test_an_explicit_id_is_kept(django_db: None) -> None:
    from django_ids.models import Row

    with override_settings(SNOWFLAKE_C={**own("default"), "node": 3}):
        row = Row(id=12345, copy=67890, pid=1, thread=1)
        row.save()
        assert Row.objects.get(pk=12345).copy == 67890
        row.thread = 2
        row.save()  # an update keeps both
        assert Row.objects.get(pk=12345).thread == 2
        from snowflake_c.django import generator

        assert generator().stats()["ids_issued"] == 0


def test_save_and_bulk_create_insert_at_once(django_db: None) -> None:
    """A new row is one INSERT (no UPDATE tried first); bulk_create gives
    every object its key, drawn in order."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django_ids.models import Row

    with override_settings(SNOWFLAKE_C={**own("default"), "node": 5}):
        row = Row(pid=2, thread=0)
        assert row.pk is None  # nothing drawn before the save
        with CaptureQueriesContext(connection) as queries:
            row.save()
        assert [q["sql"].split()[0] for q in queries.captured_queries] == ["INSERT"]
        made = Row.objects.bulk_create([Row(pid=3, thread=n) for n in range(10)])
        keys = [r.pk for r in made]
        assert keys == sorted(keys) and row.pk < keys[0]
        assert sorted(Row.objects.filter(pid=3).values_list("pk", flat=True)) == keys
        assert {sfc.decode(k, **own("default")).fields["worker"] for k in [row.pk, *keys]} == {5}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks, as a pre-forking server does")
def test_a_forked_worker_makes_its_own_generator(django_db: None, tmp_path: Path) -> None:
    """After a fork the child makes its own Generator: with a static value
    the parent still holds, the guard refuses it (WorkerUnavailable) instead
    of sharing; with "auto", the child takes another value of the pool."""
    from snowflake_c.django import generator

    def in_child() -> str:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                made = generator()
                answer = f"worker {made.node['worker']} same={made is parent}"
            except sfc.SnowflakeError as e:
                answer = type(e).__name__
            os.write(write, answer.encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            answer = pipe.read()
        os.waitpid(pid, 0)
        return answer

    with override_settings(SNOWFLAKE_C={**own("default"), "node": 6}):
        parent = generator()
        assert in_child() == "WorkerUnavailable"
        assert generator() is parent and parent.next_id() > 0
    with override_settings(SNOWFLAKE_C={**own("default"), "node": {"worker": "auto"}, "state_dir": str(tmp_path)}):
        parent = generator()
        answer = in_child()
        assert answer.startswith("worker ") and answer.endswith("same=False"), answer
        assert int(answer.split()[1]) != parent.node["worker"]


@pytest.mark.filterwarnings("ignore:Overriding setting DATABASES")
def test_lease_names_a_database_of_databases(django_db: None) -> None:
    """ "lease": ALIAS takes the lease's connection from DATABASES[ALIAS]:
    the generator's worker is leased from that PostgreSQL, and given back
    when the setting changes."""
    pytest.importorskip("psycopg")
    from snowflake_c.django import generator

    with postgres_server() as pg:
        pg.sql(sfc.lease_table_sql())
        databases = {
            **settings.DATABASES,
            "ids": {
                "ENGINE": "django.db.backends.postgresql",
                "NAME": "postgres",
                "USER": "postgres",
                "HOST": str(pg.socket_dir),
                "OPTIONS": {"isolation_level": 1, "application_name": "ids"},
            },
        }
        leased = {**own("default"), "node": {"worker": "lease"}, "lease": "ids", "lease_duration": "2s"}
        with override_settings(DATABASES=databases, SNOWFLAKE_C=leased):
            key, _ = _fresh_row()
            lease = generator().stats()["lease"]
            assert sfc.decode(key, **own("default")).fields["worker"] == lease["value"]
            held = pg.sql("SELECT count(*) FROM snowflake_c_leases WHERE expires_at > now()")
            assert held.strip() == "1"
        held = pg.sql("SELECT count(*) FROM snowflake_c_leases WHERE expires_at > now()")
        assert held.strip() == "0"  # the setting changed back: closed, the value given back
        sqlite = {**leased, "lease": "default"}
        with (
            override_settings(DATABASES=databases, SNOWFLAKE_C=sqlite),
            pytest.raises(
                ImproperlyConfigured,
                match="lease names the database 'default', whose ENGINE is .*sqlite3.*PostgreSQL only",
            ),
        ):
            _fresh_row()
