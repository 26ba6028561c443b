"""A barrier of processes through a folder: each process that arrives adds a
file, then waits until the folder holds as many as expected. The writers of
test_sqlalchemy.py and test_django.py meet there after taking their node
values, so that they all live at once (a process that ended early would give
its value back to the pool, and a later one take it)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def arrive(folder: str | os.PathLike[str]) -> Path:
    """Arrives at the barrier in folder, without waiting."""
    path = Path(folder)
    path.mkdir(exist_ok=True)
    (path / str(os.getpid())).touch()
    return path


def meet(folder: str | os.PathLike[str], expected: int, timeout: float = 60) -> None:
    """Arrives at the barrier in folder, and waits until `expected` processes have."""
    path = arrive(folder)
    deadline = time.monotonic() + timeout
    while sum(1 for _ in path.iterdir()) < expected:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{sum(1 for _ in path.iterdir())} of {expected} processes reached {path}")
        time.sleep(0.01)
