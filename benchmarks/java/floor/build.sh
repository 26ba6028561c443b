#!/usr/bin/env bash
# Builds the floor of the design for the Java benchmark: floor_jni.c (over
# benchmarks/floor/floor.h) against the JDK's headers, into DIR (default
# build/bench-java-floor), and prints the library's path. The benchmarks load
# it from the system property snowflakec.bench.floor (io.snowflakec.bench.Floor).
#
# Usage: benchmarks/java/floor/build.sh [DIR]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-$root/build/bench-java-floor}"

java_home="${JAVA_HOME:-$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.home = //p')}"
platform="$(uname -s | tr '[:upper:]' '[:lower:]')"
mkdir -p "$out"
"${CC:-cc}" -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC \
  -I"$java_home/include" -I"$java_home/include/$platform" -I"$here/../../floor" \
  "$here/floor_jni.c" -o "$out/libsfc_floor.so"
echo "$out/libsfc_floor.so"
