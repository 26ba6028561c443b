#!/usr/bin/env bash
# Tests the Java binding (from any folder, on a fresh machine after scripts/setup):
#   1. mvn verify: builds the JNI library and the C command line tool (meson + ninja,
#      through scripts/release-java), runs the JUnit suite with -Xcheck:jni, packages
#      the jar with its sources and javadoc, and checks the format,
#   2. checks that the jar works alone: examples/QuickStart.java on a plain java -cp.
# Where a JDK of 22 or later is found (JAVA_HOME, /usr/lib/jvm; SNOWFLAKEC_JDK22 names one),
# Maven runs on it: the jar gains the FFM calls (src/main/java22), the suite runs on JDK 17
# from the classes (JNI) and again on that JDK from the jar (FFM), and the jar check runs on both.
# A check this machine cannot make (no JDK 22: the FFM calls; a JUnit assumption that does not
# hold) is recorded through tests/skip, and fails the run under SNOWFLAKE_C_NO_SKIP=1.
# Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="${SNOWFLAKEC_JAVA_BUILD:-$root/build/java}"
export SNOWFLAKEC_JAVA_BUILD="$build"
# Maven's output folder (the jar lands there); SNOWFLAKEC_JAVA_TARGET overrides it.
target="${SNOWFLAKEC_JAVA_TARGET:-$here/target}"

# tests/skip's settings, kept before the SNOWFLAKE_* variables go.
skips="${SNOWFLAKE_C_SKIPS:-}" no_skip="${SNOWFLAKE_C_NO_SKIP:-}" status=0
skip() { # what, why
  SNOWFLAKE_C_SKIPS="$skips" SNOWFLAKE_C_NO_SKIP="$no_skip" "$root/tests/skip" java "$1" "$2" ||
    status=1
}

# The shared vectors run with no SNOWFLAKE_* variable (node values from the environment).
while IFS='=' read -r name _; do
  if [[ "$name" == SNOWFLAKE_* ]]; then
    unset "$name"
  fi
done < <(env)

# The feature version of the JDK in $1 (from its release file), or nothing.
jdk_feature() {
  if [[ -n $1 && -f $1/release ]]; then
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release"
  fi
}
path_jdk="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
jdk17="" jdk22="${SNOWFLAKEC_JDK22:-}"
for d in "${JAVA_HOME:-}" "$path_jdk" /usr/lib/jvm/*; do
  feature="$(jdk_feature "$d")"
  if [[ -z $jdk17 && $feature == 17 ]]; then
    jdk17="$d"
  elif [[ -z $jdk22 && -n $feature && $feature -ge 22 ]]; then
    jdk22="$d"
  fi
done
maven=(-B -f "$here/pom.xml" "-Dsnowflakec.build=$target")
on22=()
if [[ -z $jdk17 ]]; then
  jdk22="" # Maven as it is: the suite on its JDK
elif [[ -n $jdk22 ]]; then
  # google-java-format (the format check) runs on JDK 17: its plugin does not run on 25.
  on22=("-Djvm=$jdk17/bin/java" -Dfmt.skip)
  echo "java/run-tests.sh: Maven on $jdk22, the suite on $jdk17 (JNI) and $jdk22 (FFM)"
else
  skip "the FFM calls (the suite and the jar on JDK 22+)" \
    "no JDK 22 or later (SNOWFLAKEC_JDK22, JAVA_HOME, /usr/lib/jvm)"
fi

started="$(mktemp)"
JAVA_HOME="${jdk22:-${JAVA_HOME:-$path_jdk}}" mvn "${maven[@]}" verify \
  "-Dsnowflakec.cli=$build/core/cli/snowflake-c" \
  "-Dsnowflakec.vectors=$root/tests/vectors" ${on22[@]+"${on22[@]}"}
if ((${#on22[@]})); then
  JAVA_HOME="$jdk17" mvn "${maven[@]}" -q com.spotify.fmt:fmt-maven-plugin:check
fi
# The tests JUnit skipped (an assumption that does not hold here), from the reports of this run.
while IFS=$'\t' read -r test why; do
  skip "$test" "$why"
done < <(find "$target" -path '*/surefire-reports*/TEST-*.xml' -newer "$started" \
  -exec "$root/tests/junit-skips" {} +)
rm -f "$started"

version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$here/pom.xml" | head -n 1)"
jar="$target/snowflake-c-$version.jar"
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
expected='{"id":"175928847299117063","time_ms":1462015105796,"time":"2016-04-30T11:18:25.796Z","worker":1,"process":0,"seq":7}'
# $1: the java command; the rest: its options. A fresh extraction folder each time: the jar must
# carry and load its own library.
jar_check() {
  local java="$1"
  shift
  rm -rf "$tmp/natives"
  ${isolate[@]+"${isolate[@]}"} "$java" -Xcheck:jni "$@" "-Dio.snowflakec.native.tmpdir=$tmp/natives" \
    -cp "$tmp/app:$jar" QuickStart >"$tmp/out.txt" 2>"$tmp/err.txt"
  cat "$tmp/out.txt" "$tmp/err.txt"
  if ! grep -qxF "$expected" "$tmp/out.txt"; then
    echo "jar check FAILED: QuickStart did not print the canonical JSON of the Discord example" >&2
    exit 1
  fi
  # Native access enabled: the FFM calls raise no warning of the JVM's.
  if grep -q '^WARNING' "$tmp/err.txt"; then
    echo "jar check FAILED: $java $* warned" >&2
    exit 1
  fi
  echo "jar check ok: $jar works on a plain $java -cp $*"
}
jar_check java
if [[ -n $jdk22 ]]; then
  jar_check "$jdk22/bin/java" --enable-native-access=ALL-UNNAMED
fi
exit "$status"
