"""Inserts rows with snowflake primary keys through SQLAlchemy, from threads:
one process of the multi-process tests of test_sqlalchemy.py.

    python sql_writer.py URL SPEC EPOCH STATE_DIR THREADS ROWS BARRIER PROCESSES

The process inserts a first row (its generator made then), waits at the
barrier folder BARRIER until PROCESSES writers have, then each of its
threads inserts ROWS rows into ``written`` (created by the test), each row
noting its process and thread (-1: the first row); prints the process's
{"pid", "node" (the worker value of its generator), "factory_calls"} as JSON.
"""

from __future__ import annotations

import json
import os
import sys
import threading

from barrier import meet
from sqlalchemy import Integer, create_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

import snowflake_c
from snowflake_c.sqlalchemy import snowflake_column

made: list[snowflake_c.Generator] = []
config: dict[str, str] = {}


def make_generator() -> snowflake_c.Generator:
    """The factory: a pool value of its own in each process."""
    g = snowflake_c.Generator(
        layout=config["spec"], epoch=int(config["epoch"]), node={"worker": "auto"}, state_dir=config["state_dir"]
    )
    made.append(g)
    return g


class Base(DeclarativeBase):
    pass


class Written(Base):
    __tablename__ = "written"
    id: Mapped[int] = snowflake_column(make_generator)
    pid: Mapped[int] = mapped_column(Integer)
    thread: Mapped[int] = mapped_column(Integer)


def write(url: str, threads: int, rows: int, barrier: str, processes: int) -> None:
    engine = create_engine(url, connect_args={"timeout": 60} if url.startswith("sqlite") else {})
    with Session(engine) as session:
        session.add(Written(pid=os.getpid(), thread=-1))
        session.commit()
    meet(barrier, processes)
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            with Session(engine) as session:
                for start in range(0, rows, 50):
                    session.add_all(Written(pid=os.getpid(), thread=n) for _ in range(min(50, rows - start)))
                    session.commit()  # the IDs are drawn here, from the process's generator
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    workers = [threading.Thread(target=run, args=(n,)) for n in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    engine.dispose()
    if errors:
        raise errors[0]


if __name__ == "__main__":
    url, spec, epoch, state_dir, threads, rows, barrier, processes = sys.argv[1:]
    config.update(spec=spec, epoch=epoch, state_dir=state_dir)
    write(url, int(threads), int(rows), barrier, int(processes))
    print(json.dumps({"pid": os.getpid(), "node": made[0].node["worker"], "factory_calls": len(made)}))
