#!/usr/bin/env bash
# Tests the Java binding (from any folder, on a fresh machine after scripts/setup):
#   1. mvn verify: builds the JNI library and the C command line tool (meson + ninja,
#      through scripts/release-java), runs the JUnit suite with -Xcheck:jni, packages
#      the jar with its sources and javadoc, and checks the format,
#   2. checks that the jar works alone: examples/QuickStart.java on a plain java -cp.
# Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="${SNOWFLAKEC_JAVA_BUILD:-$root/build/java}"
export SNOWFLAKEC_JAVA_BUILD="$build"

# The shared vectors run with no SNOWFLAKE_* variable (node values from the environment).
while IFS='=' read -r name _; do
  if [[ "$name" == SNOWFLAKE_* ]]; then
    unset "$name"
  fi
done < <(env)

mvn -B -f "$here/pom.xml" verify \
  "-Dsnowflakec.cli=$build/core/cli/snowflake-c" \
  "-Dsnowflakec.vectors=$root/tests/vectors"

version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$here/pom.xml" | head -n 1)"
jar="$here/target/snowflake-c-$version.jar"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
javac -d "$tmp/app" -cp "$jar" "$here/examples/QuickStart.java"
# The README's node values may be held by another program of this machine at the same time,
# and the guard's claims are host-wide: where Linux lets it, the check runs in a network
# namespace of its own, whose claims are its own.
isolate=()
for try in "unshare -n" "unshare -rn"; do
  if command -v unshare >/dev/null && $try true 2>/dev/null; then
    read -r -a isolate <<<"$try"
    break
  fi
done
# A fresh extraction folder: the jar must carry and load its own library.
${isolate[@]+"${isolate[@]}"} java -Xcheck:jni "-Dio.snowflakec.native.tmpdir=$tmp/natives" \
  -cp "$tmp/app:$jar" QuickStart \
  | tee "$tmp/out.txt"
expected='{"id":"175928847299117063","time_ms":1462015105796,"time":"2016-04-30T11:18:25.796Z","worker":1,"process":0,"seq":7}'
if ! grep -qxF "$expected" "$tmp/out.txt"; then
  echo "jar check FAILED: QuickStart did not print the canonical JSON of the Discord example" >&2
  exit 1
fi
echo "jar check ok: $jar works on a plain java -cp"
