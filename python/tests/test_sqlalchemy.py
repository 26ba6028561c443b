"""snowflake_c.sqlalchemy on real databases: SQLite (stdlib) always,
PostgreSQL (Debian's server, tests/postgres/pgserver.py) where installed."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from barrier import meet  # noqa: E402
from postgres_server import postgres_server  # noqa: E402
from sqlalchemy import BigInteger, Column, Integer, String, Table, create_engine, insert, select  # noqa: E402
from sqlalchemy.exc import StatementError  # noqa: E402
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column  # noqa: E402

import snowflake_c as sfc  # noqa: E402
from conftest import OWN_EPOCH, own  # noqa: E402
from doc_examples import scripts  # noqa: E402
from snowflake_c.sqlalchemy import IdString, snowflake_column, snowflake_default  # noqa: E402

HERE = Path(__file__).resolve().parent
SPEC = sfc.Layout.preset("default").spec
ENCODINGS = ("dec", "hex", "base32", "base36", "base58", "base62")


class Base(DeclarativeBase):
    pass


class Written(Base):
    """sql_writer.py's table."""

    __tablename__ = "written"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    pid: Mapped[int] = mapped_column(Integer)
    thread: Mapped[int] = mapped_column(Integer)


def _postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL server's SQLAlchemy URL (psycopg), or a skip."""
    with postgres_server() as pg:
        yield f"postgresql+psycopg://postgres@/postgres?host={pg.socket_dir}"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database's URL: a SQLite file, or a PostgreSQL server of its own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ids.db'}"
    else:
        yield from _postgres_url()


def test_processes_and_threads_insert_unique_ids_of_their_own_worker(database: str, tmp_path: Path) -> None:
    """Four processes of four threads each insert rows; every ID is unique and
    decodes to the worker value of the process that inserted it, each process
    with its own value from the pool."""
    processes, threads, rows = 4, 4, 150
    engine = create_engine(database)
    Base.metadata.create_all(engine)
    state = tmp_path / "state"
    state.mkdir()
    argv = [sys.executable, str(HERE / "sql_writer.py"), database, SPEC, str(OWN_EPOCH), str(state)]
    argv += [str(threads), str(rows), str(tmp_path / "barrier"), str(processes)]
    writers = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(processes)
    ]
    reports = []
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
        reports.append(json.loads(out))
    node_of = {r["pid"]: r["node"] for r in reports}
    assert all(r["factory_calls"] == 1 for r in reports)
    assert len(set(node_of.values())) == processes  # a pool value each (all live at once)

    with Session(engine) as session:
        written = session.execute(select(Written.id, Written.pid, Written.thread)).all()
    engine.dispose()
    assert len(written) == processes * (1 + threads * rows)
    assert len({w.id for w in written}) == len(written)  # zero duplicates
    layout = sfc.Layout(SPEC, OWN_EPOCH)
    for w in written:
        assert sfc.decode(w.id, layout).fields["worker"] == node_of[w.pid]
    assert {(w.pid, w.thread) for w in written} == {(p, t) for p in node_of for t in range(-1, threads)}


def _insert_in_child(url: str, barrier: str, queue: multiprocessing.Queue[tuple[int, int, list[int], int]]) -> None:
    """A forked child inserts through the models its parent defined: a row,
    then (once every child holds its node value) 99 more."""
    engine = create_engine(url, connect_args={"timeout": 60})
    with Session(engine) as session:
        rows = [Forked()]
        session.add_all(rows)
        session.commit()
        meet(barrier, 3)
        rows += [Forked() for _ in range(99)]
        session.add_all(rows[1:])
        session.commit()
        queue.put((os.getpid(), _forked_made[-1].node["worker"], [r.id for r in rows], len(_forked_made)))
    engine.dispose()


_forked_made: list[sfc.Generator] = []
_forked_state: list[str] = []


def _forked_generator() -> sfc.Generator:
    g = sfc.Generator(**own("default"), node={"worker": "auto"}, state_dir=_forked_state[0])
    _forked_made.append(g)
    return g


class Forked(Base):
    __tablename__ = "forked"
    id: Mapped[int] = snowflake_column(_forked_generator)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks, as a pre-forking server does")
def test_forked_children_make_their_own_generator(tmp_path: Path) -> None:
    """Models defined (and used) before a fork: each child draws from a
    generator of its own, made by the factory in the child."""
    _forked_state.append(str(tmp_path))
    url = f"sqlite:///{tmp_path / 'forked.db'}"
    engine = create_engine(url)
    Base.metadata.create_all(engine)
    with Session(engine) as session:
        parent_row = Forked()
        session.add(parent_row)
        session.commit()
        parent = (os.getpid(), _forked_made[-1].node["worker"], [parent_row.id], len(_forked_made))
    ctx = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[tuple[int, int, list[int], int]] = ctx.Queue()
    barrier = str(tmp_path / "barrier")
    children = [ctx.Process(target=_insert_in_child, args=(url, barrier, queue)) for _ in range(3)]
    for c in children:
        c.start()
    results = [queue.get(timeout=60) for _ in children]
    for c in children:
        c.join(timeout=60)
        assert c.exitcode == 0
    assert all(r[3] == 2 for r in results)  # each child: the parent's generator, inherited, and its own
    results.append(parent)
    assert len({r[1] for r in results}) == 4  # parent and children: four workers
    layout = sfc.Layout.preset("default").spec
    for _, worker, ids, _made in results:
        assert {sfc.decode(i, layout=layout, epoch=OWN_EPOCH).fields["worker"] for i in ids} == {worker}
    with Session(engine) as session:
        stored = list(session.scalars(select(Forked.id)))
    assert sorted(stored) == sorted(i for r in results for i in r[2])
    assert len(set(stored)) == 301
    for g in _forked_made:
        g.close()


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_id_string_stores_bigint_and_reads_the_string_form(encoding: str, tmp_path: Path) -> None:
    metadata = Base.metadata.__class__()
    table = Table(
        "strings",
        metadata,
        Column("id", IdString(encoding), primary_key=True),  # type: ignore[arg-type]
        Column("raw", BigInteger),
    )
    engine = create_engine(f"sqlite:///{tmp_path / 's.db'}")
    metadata.create_all(engine)
    values = [0, 1, 175928847299117063, 2**63 - 1]
    with engine.begin() as c:
        c.execute(insert(table), [{"id": sfc.format_id(v, encoding), "raw": v} for v in values])  # type: ignore[arg-type]
        got = c.execute(select(table.c.id, table.c.raw).order_by(table.c.raw)).all()
        # Stored as the integer itself: read back through a plain BIGINT.
        stored = c.exec_driver_sql("SELECT id, raw FROM strings ORDER BY raw").all()
        found = c.execute(select(table.c.raw).where(table.c.id == sfc.format_id(values[2], encoding))).scalar()  # type: ignore[arg-type]
        by_int = c.execute(select(table.c.id).where(table.c.id == values[2])).scalar()
    assert [tuple(r) for r in stored] == [(v, v) for v in values]
    assert [r.id for r in got] == [sfc.format_id(v, encoding) for v in values]  # type: ignore[arg-type]
    assert found == values[2]
    assert by_int == sfc.format_id(values[2], encoding)  # type: ignore[arg-type]
    with pytest.raises(Exception, match="not in the"):
        with engine.begin() as c:
            c.execute(select(table.c.id).where(table.c.id == "!!"))


@pytest.mark.parametrize(
    ("column", "texts"),
    [
        (IdString(), ["5", "175928847299117063"]),
        (IdString("dec", pad=True), ["00000000000000000005", "00175928847299117063"]),
        (IdString("dec", pad=False), ["5", "175928847299117063"]),
        (IdString("base62"), ["00000000005", "0Czks0tP37X"]),
        (IdString("base62", pad=False), ["5", "Czks0tP37X"]),
    ],
)
def test_id_string_dec_is_the_plain_number_unless_padded(column: IdString, texts: list[str], tmp_path: Path) -> None:
    """IdString() reads the decimal text JSON prints; pad=True the 20 digits
    that sort as the IDs do; any form of the column's encoding binds."""
    metadata = Base.metadata.__class__()
    table = Table("forms", metadata, Column("id", column, primary_key=True))
    engine = create_engine(f"sqlite:///{tmp_path / 'f.db'}")
    metadata.create_all(engine)
    with engine.begin() as c:
        c.execute(insert(table), [{"id": 5}, {"id": 175928847299117063}])
        got = c.execute(select(table.c.id).order_by(table.c.id)).scalars().all()
        for text in (sfc.format_id(5, column.encoding, pad=True), sfc.format_id(5, column.encoding, pad=False)):
            assert c.execute(select(table.c.id).where(table.c.id == text)).scalar() == texts[0]
        stored = c.exec_driver_sql("SELECT id FROM forms ORDER BY id").scalars().all()
    assert got == texts
    assert stored == [5, 175928847299117063]


def test_string_primary_key_with_its_default(tmp_path: Path) -> None:
    class StringBase(DeclarativeBase):
        pass

    class Ticket(StringBase):
        __tablename__ = "tickets"
        id: Mapped[str] = snowflake_column(lambda: gen, encoding="base32")
        title: Mapped[str] = mapped_column(String(20))

    engine = create_engine(f"sqlite:///{tmp_path / 't.db'}")
    StringBase.metadata.create_all(engine)
    with sfc.Generator(**own("twitter"), node={"datacenter": 3, "worker": 4}) as gen, Session(engine) as session:
        tickets = [Ticket(title=str(n)) for n in range(20)]
        session.add_all(tickets)
        session.commit()
        ids = [t.id for t in tickets]
        raw = [r[0] for r in session.execute(select(Ticket.id).execution_options()).all()]
        stored = session.connection().exec_driver_sql("SELECT id FROM tickets").scalars().all()
    assert all(len(i) == 13 for i in ids) and sorted(raw) == sorted(ids)
    decoded = [sfc.decode(i, **own("twitter")) for i in stored]
    assert sorted(sfc.format_id(p.id, "base32") for p in decoded) == sorted(ids)
    assert {(p.fields["datacenter"], p.fields["worker"]) for p in decoded} == {(3, 4)}


def test_explicit_id_is_kept(tmp_path: Path) -> None:
    class OtherBase(DeclarativeBase):
        pass

    narrow = sfc.Generator(**own("twitter"), node={"datacenter": 1, "worker": 2})

    class Narrow(OtherBase):
        __tablename__ = "narrow"
        id: Mapped[int] = snowflake_column(narrow)

    engine = create_engine(f"sqlite:///{tmp_path / 'w.db'}")
    OtherBase.metadata.create_all(engine)
    with Session(engine) as session:
        session.add(Narrow(id=42))
        session.commit()
        assert session.scalars(select(Narrow.id)).all() == [42]
        assert narrow.stats()["ids_issued"] == 0
        session.add(Narrow())
        session.commit()
        assert narrow.stats()["ids_issued"] == 1
    narrow.close()


def test_columns_of_one_factory_share_its_generator(tmp_path: Path) -> None:
    """Two tables keyed from one factory of a static node value: one
    Generator (a second of that value would be refused by the guard)."""
    made: list[sfc.Generator] = []

    def make() -> sfc.Generator:
        made.append(sfc.Generator(**own("twitter"), node={"datacenter": 4, "worker": 4}))
        return made[-1]

    class SharedBase(DeclarativeBase):
        pass

    class First(SharedBase):
        __tablename__ = "first"
        id: Mapped[int] = snowflake_column(make)

    class Second(SharedBase):
        __tablename__ = "second"
        id: Mapped[str] = snowflake_column(make, encoding="hex")

    engine = create_engine(f"sqlite:///{tmp_path / 'shared.db'}")
    SharedBase.metadata.create_all(engine)
    with Session(engine) as session:
        session.add_all([First(), Second(), First(), Second()])
        session.commit()
        firsts = list(session.scalars(select(First.id)))
        seconds = [sfc.parse_id(i, "hex") for i in session.scalars(select(Second.id))]
    assert len(made) == 1 and made[0].stats()["ids_issued"] == 4
    assert len(set(firsts + seconds)) == 4
    made[0].close()


def test_a_64_bit_layout_is_refused(tmp_path: Path) -> None:
    """Its IDs do not fit BIGINT: a given Generator at once, a factory's at the first insert."""
    with sfc.Generator(**own("discord"), node={"worker": 1, "process": 2}) as wide:
        with pytest.raises(ValueError, match="do not fit a signed BIGINT"):
            snowflake_column(wide)

        class WideBase(DeclarativeBase):
            pass

        class Wide(WideBase):
            __tablename__ = "wide"
            id: Mapped[int] = snowflake_column(lambda: wide)

        engine = create_engine(f"sqlite:///{tmp_path / 'w.db'}")
        WideBase.metadata.create_all(engine)
        with Session(engine) as session:
            session.add(Wide())
            with pytest.raises(StatementError, match="do not fit a signed BIGINT"):
                session.commit()
        assert wide.stats()["ids_issued"] == 0


def test_arguments_are_checked_early() -> None:
    with pytest.raises(TypeError, match="Generator or a callable"):
        snowflake_default(42)  # type: ignore[call-overload]
    with pytest.raises(sfc.InvalidArgument):
        IdString("base64")  # type: ignore[arg-type]
    with pytest.raises(sfc.InvalidArgument):
        snowflake_default(lambda: None, encoding="base64")  # type: ignore[call-overload]


@pytest.mark.parametrize("code", scripts("python-sqlalchemy.md"))
def test_doc_example_runs(code: str, database: str, tmp_path: Path) -> None:
    """The page's script as written, on SQLite and (its DATABASE_URL) on PostgreSQL."""
    script = tmp_path / "example.py"
    script.write_text(code)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWFLAKE_")}
    if database.startswith("postgresql"):
        env["DATABASE_URL"] = database
    r = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert r.returncode == 0, r.stderr
    assert "{'clock': 0, 'worker': " in r.stdout
    if database.startswith("postgresql"):
        engine = create_engine(database)
        with engine.connect() as c:
            keys = c.exec_driver_sql("SELECT id FROM orders ORDER BY id").scalars().all()
            events = c.exec_driver_sql("SELECT id FROM events").scalars().all()
        engine.dispose()
        assert len(keys) == 2 and len(events) == 2
        assert all(str(k) in r.stdout for k in keys)  # the rows the script printed, stored there
