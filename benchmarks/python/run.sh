#!/usr/bin/env bash
# Runs the Python benchmark in its own venv (build/bench-venv): snowflake-c
# built from this checkout, the peers from PyPI.
# Usage: benchmarks/python/run.sh [--quick] [--json PATH] [--reps N]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/build/bench-venv"

[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
# meson-python without build isolation runs the meson and ninja it finds on PATH.
export PATH="$venv/bin:$PATH"
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" 'meson-python>=0.18' 'meson>=1.3' ninja -r "$here/requirements.txt"
"${pip[@]}" --no-build-isolation --force-reinstall --no-deps \
  --config-settings=build-dir="$root/build/bench-wheel" "$root"
# The floor of the design: a minimal extension doing next_id()'s work (a row of its own).
"${pip[@]}" --no-build-isolation --force-reinstall --no-deps \
  --config-settings=build-dir="$root/build/bench-floor" "$here/floor" ||
  echo "benchmarks/python/run.sh: the floor extension did not build; no floor row" >&2
exec "$venv/bin/python" "$here/bench.py" "$@"
