"""The integrations' extras: declared in pyproject.toml, each framework
imported only by its own submodule, and the pins of the `test` extra the
same as python/run-tests.sh installs."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later

EXTRAS = {"sqlalchemy": "sqlalchemy", "django": "django", "pydantic": "pydantic"}


def _project() -> dict[str, object]:
    data: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return data


def test_each_integration_has_its_extra() -> None:
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    for extra, package in EXTRAS.items():
        assert any(re.match(rf"{package}\b", spec) for spec in extras[extra]), extras[extra]


def test_run_tests_installs_the_test_extra_pins() -> None:
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    pinned = {spec for spec in extras["test"] if "==" in spec}
    script = (ROOT / "python" / "run-tests.sh").read_text()
    block = re.search(r"integration_pins=\((.*?)\)", script, flags=re.S)
    assert block is not None
    assert set(re.findall(r"'([^']+)'", block[1])) == pinned
    assert {spec.split("==")[0].split("[")[0] for spec in pinned} >= set(EXTRAS.values())


def test_import_of_snowflake_c_imports_no_framework() -> None:
    code = (
        "import sys, snowflake_c\n"
        "loaded = [m for m in ('pydantic', 'sqlalchemy', 'django', 'gunicorn', 'uvicorn') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("module", [f"snowflake_c.{m}" for m in EXTRAS])
def test_a_submodule_imports_its_framework_only(module: str) -> None:
    pytest.importorskip(module.split(".")[1])
    code = (
        "import sys, importlib\n"
        f"importlib.import_module({module!r})\n"
        f"others = [m for m in {list(EXTRAS.values())!r} if m in sys.modules and m != {module.split('.')[1]!r}]\n"
        "assert not others, others\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_wheel_tests_install_the_same_pins() -> None:
    """cibuildwheel's test-requires: the test extra's pins, but for psycopg
    (no manylinux2014 aarch64 wheel; its test skips without it)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pinned = {spec for spec in data["project"]["optional-dependencies"]["test"] if "==" in spec}
    wheel = {spec for spec in data["tool"]["cibuildwheel"]["test-requires"] if "==" in spec}
    assert wheel == {spec for spec in pinned if not spec.startswith("psycopg")}
