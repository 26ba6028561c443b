#!/usr/bin/env bash
# JMH: snowflake-c's Java binding beside hutool, yitter, CosId and tsid-creator, in one run
# (IDs, and the base32/base62 string forms).
# Builds the binding's jar (java/build.sh) into the local Maven repository, then the benchmark
# jar, then runs every benchmark on 1 thread and 2 threads. Short by default (2-core machines);
# extra arguments go to JMH (e.g. -i 5 -r 2s, or a benchmark name pattern).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

# The jar's path comes last (after Maven's colour codes).
binding="$("$root/java/build.sh" | grep -o '/[^[:cntrl:]]*\.jar$' | tail -n 1)"
mvn -B -q install:install-file -Dfile="$binding" -DpomFile="$root/java/pom.xml"
mvn -B -q -f "$here/pom.xml" package
# The floor of the design (FloorBenchmarks): a minimal JNI library doing nextId()'s work.
floor="-Dsnowflakec.bench.floor=$("$here/floor/build.sh")"

for threads in 1 2; do
  echo "== $threads thread(s)"
  only=()
  ((threads == 1)) || only=(-e EncodingBenchmarks) # string forms: 1 thread only
  java "$floor" -jar "$here/target/benchmarks.jar" -f 1 -wi 1 -w 1s -i 3 -r 1s -t "$threads" "${only[@]}" "$@"
done
