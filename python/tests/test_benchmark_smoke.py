"""benchmarks/python/bench.py runs (a --quick smoke: no duplicates, JSON written)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_benchmark_quick_smoke(tmp_path: Path) -> None:
    out = tmp_path / "python.json"
    bench = ROOT / "benchmarks" / "python" / "bench.py"
    r = subprocess.run(
        [sys.executable, str(bench), "--quick", "--reps", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    names = {res["name"] for res in doc["results"]}
    assert "snowflake-c next_id() [wide]" in names
    assert all(res["unique"] for res in doc["results"])
    assert "next_ids_1000_rate" in doc["targets"]
