#!/usr/bin/env bash
# Builds and tests the Node binding: installs the npm dependencies, builds
# the addon (warnings as errors), builds the C CLI for the canonical-JSON
# comparison, checks formatting and types, then runs `node --test`.
# Every skip (a test node:test skips, a check this machine cannot make) is
# recorded through tests/skip, and fails the run under SNOWFLAKE_C_NO_SKIP=1.
# Works from any directory; exits non-zero on any failure.
set -euo pipefail

NODE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$NODE_DIR/.." && pwd)"
CLI_BUILD="$REPO/build/node-cli"
export JOBS="${JOBS:-2}"
status=0
skip() { "$REPO/tests/skip" node "$1" "$2" || status=1; }

# node-gyp needs the Node.js headers; use the installed ones rather than a
# download when the machine has them.
if [[ -z "${npm_config_nodedir:-}" ]] && ! npm config get nodedir 2>/dev/null | grep -q / &&
  [[ -f /usr/include/node/node_api.h ]]; then
  export npm_config_nodedir=/usr
fi

cd "$NODE_DIR"
echo "== npm ci"
npm ci --no-audit --no-fund --ignore-scripts

echo "== build the addon"
# A copy of the core vendored by an interrupted `npm pack` would shadow ../core.
node scripts/vendor.js --clean
SNOWFLAKE_C_WERROR=1 npm run build --silent -- --jobs "$JOBS"

echo "== build the WebAssembly core (node/wasm/snowflake_c.wasm)"
"$REPO/bindings/wasm/build"

if [[ -x "$CLI_BUILD/core/cli/snowflake-c" ]]; then
  ninja -C "$CLI_BUILD" -j "$JOBS" core/cli/snowflake-c >/dev/null
elif command -v meson >/dev/null && command -v ninja >/dev/null; then
  echo "== build the C CLI ($CLI_BUILD)"
  rm -rf "$CLI_BUILD"
  meson setup "$CLI_BUILD" "$REPO" -Dtests=false >/dev/null
  ninja -C "$CLI_BUILD" -j "$JOBS" core/cli/snowflake-c >/dev/null
fi
export SNOWFLAKE_C_CLI="$CLI_BUILD/core/cli/snowflake-c"

# The PostgreSQL recipes (test/*-postgres.test.js, test/prisma.test.js) use
# the SQL extension where a server is installed: built and installed first.
if compgen -G '/usr/lib/postgresql/*/bin/pg_config' >/dev/null; then
  echo "== the PostgreSQL extension, for the PostgreSQL recipes"
  "$REPO/tests/postgres/run" --install-only
fi

echo "== format and types"
if command -v clang-format >/dev/null; then
  clang-format --dry-run -Werror "$REPO/bindings/node/addon.cc"
else
  skip "the C++ glue's formatting" "clang-format not found"
fi
npm run --silent format:check
npm run --silent typecheck

echo "== node --test"
# npm test's command, with a second reporter that lists the skipped tests.
skipped="$(mktemp)"
trap 'rm -f "$skipped"' EXIT
timeout 1200 node --test --test-reporter=tap --test-reporter-destination=stdout \
  --test-reporter=./test/skips-reporter.mjs --test-reporter-destination="$skipped" \
  test/*.test.js
while IFS=$'\t' read -r test why; do
  skip "$test" "$why"
done <"$skipped"

echo "== deno test (the WebAssembly build through its entry for browsers and Deno)"
DENO="$REPO/build/tools/deno/node_modules/.bin/deno"
if [[ ! -x "$DENO" ]]; then
  echo "deno is not installed in build/tools/deno: run scripts/setup" >&2
  exit 1
fi
# Its summary counts the tests it ignored (node:test's skips).
DENO_NO_UPDATE_CHECK=1 timeout 600 "$DENO" test --allow-read --allow-env --no-prompt test/deno/ |
  tee "$skipped"
summary="$(sed 's/\x1b\[[0-9;]*m//g' "$skipped" | grep -E '^(ok|FAILED) \| ' | tail -n 1 || true)"
ignored="$(grep -oE '[0-9]+ ignored( \([0-9]+ steps\))?' <<<"$summary" || true)"
if [[ -n $ignored && ! $ignored =~ ^0\ ignored(\ \(0\ steps\))?$ ]]; then
  skip "deno test test/deno/" "$ignored"
fi
exit "$status"
