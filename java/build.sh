#!/usr/bin/env bash
# Builds the Java binding's jar on a fresh machine:
#   1. the JNI library and the C command line tool with meson + ninja (build/java),
#   2. the jar with Maven, the library packed under io/snowflakec/native/<os>-<arch>/.
#
# Usage: java/build.sh [--native] [extra Maven arguments]      (from any folder)
#   --native   stop after step 1 (java/run-tests.sh uses it)
# Tests are skipped here (java/run-tests.sh runs them). The jar lands in java/target/;
# its path is the last line printed. SNOWFLAKEC_JAVA_BUILD overrides the build folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="${SNOWFLAKEC_JAVA_BUILD:-$root/build/java}"

# meson finds the JDK (jni.h) through JAVA_HOME or the javac on PATH.
if [[ -z "${JAVA_HOME:-}" ]]; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
  export JAVA_HOME
fi

if [[ -f "$build/build.ninja" ]]; then
  meson configure "$build" -Djava=enabled -Dcli=true
else
  meson setup "$build" "$root" -Djava=enabled -Dcli=true -Dtests=false \
    -Dinstall_core=false --buildtype=release
fi
ninja -C "$build" -j 2

if [[ "${1:-}" == "--native" ]]; then
  exit 0
fi

mvn -B -q -f "$here/pom.xml" package -DskipTests \
  "-Dsnowflakec.native.dir=$build/bindings/java" \
  "-Dsnowflakec.cli=$build/core/cli/snowflake-c" "$@"

version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$here/pom.xml" | head -n 1)"
echo "$here/target/snowflake-c-$version.jar"
