#!/usr/bin/env bash
# Builds the Java binding's jar: a shortcut for `mvn package`, which builds the
# JNI library itself (meson + ninja, through scripts/release-java).
#
# Usage: java/build.sh [--native | --release] [extra Maven arguments]   (from any folder)
#   (nothing)  this machine's JNI library and the C command line tool (build/java),
#              then the jar, its -sources.jar and -javadoc.jar
#   --native   stop after the JNI library and the C tool
#   --release  the jar of the release, carrying the library of every target (cross/*.ini)
#              (zig cc, cross/*.ini: mvn -Prelease)
# Tests are skipped here (java/run-tests.sh runs them). The jar lands in java/target/;
# its path is the last line printed. SNOWFLAKEC_JAVA_BUILD overrides the build folder
# of this machine's library.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

profile=()
case "${1:-}" in
  --native)
    exec "$root/scripts/release-java" --target host --stage "$here/target/natives"
    ;;
  --release)
    profile=(-Prelease)
    shift
    ;;
esac

mvn -B -q -Dstyle.color=never -f "$here/pom.xml" package -DskipTests "${profile[@]}" "$@"

version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$here/pom.xml" | head -n 1)"
echo "$here/target/snowflake-c-$version.jar"
