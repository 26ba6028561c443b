#!/usr/bin/env bash
# Builds and installs the Python package into a venv under build/, builds the
# C CLI (for the JSON-equality tests), lints and checks the formatting of the
# Python sources (ruff, configured in pyproject.toml), then runs pytest on
# python/tests (mypy --strict runs inside it, in test_stubs.py), with
# UnguardedWarning as an error: a test that turns the guard off says so.
# Usage: python/run-tests.sh [pytest arguments]
# Environment: PYTHON (the interpreter, default python3), SNOWFLAKE_C_PY_VENV
# (the venv, default build/py-venv).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$root/build"
venv="${SNOWFLAKE_C_PY_VENV:-$build/py-venv}"
python="${PYTHON:-python3}"

mkdir -p "$build"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
py="$venv/bin/python"

# The framework integrations' tests and Hypothesis (test_state_machine.py):
# pinned as pyproject.toml's `test` extra pins them (python/tests/test_extras.py
# checks that the two agree).
integration_pins=(
  'sqlalchemy==2.1.9' 'django==5.2.19' 'django-stubs==5.2.9' 'pydantic==2.14.4'
  'gunicorn==27.0.1' 'uvicorn==0.54.0' 'psycopg[binary]==3.3.9' 'hypothesis==6.168.5'
)

echo "== python: installing build and test dependencies"
"$py" -m pip install --quiet --disable-pip-version-check \
  'meson-python>=0.18' 'meson>=1.3' ninja pytest mypy numpy 'ruff==0.17.6' \
  "${integration_pins[@]}"

echo "== python: building and installing snowflake-c (pip install .)"
"$py" -m pip install --quiet --disable-pip-version-check --no-build-isolation \
  --force-reinstall --no-deps --config-settings=build-dir="$venv/meson-build" \
  --config-settings=setup-args=-Dwerror=true "$root"

echo "== python: building the C CLI"
cli_build="$build/py-cli"
if [ ! -f "$cli_build/build.ninja" ]; then
  "$venv/bin/meson" setup "$cli_build" "$root" -Dtests=false -Dpython=disabled \
    -Dinstall_core=false >/dev/null
fi
"$venv/bin/ninja" -C "$cli_build" -j2 core/cli/snowflake-c >/dev/null
export SNOWFLAKE_C_CLI="$cli_build/core/cli/snowflake-c"

cd "$root"
echo "== python: ruff"
"$venv/bin/ruff" check --quiet
"$venv/bin/ruff" format --check --quiet

echo "== python: pytest"
exec "$py" -m pytest python/tests -p no:cacheprovider -W error::snowflake_c.UnguardedWarning "$@"
