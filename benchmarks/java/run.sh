#!/usr/bin/env bash
# JMH: snowflake-c's Java binding beside hutool, yitter, CosId and tsid-creator, in one run.
# Builds and installs the binding's jar (java/build.sh install), then the benchmark jar, then
# runs every benchmark on 1 thread and 2 threads. Short by default (2-core machines);
# extra arguments go to JMH (e.g. -i 5 -r 2s, or a benchmark name pattern).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

"$root/java/build.sh" install >/dev/null
mvn -B -q -f "$here/pom.xml" package

for threads in 1 2; do
  echo "== $threads thread(s)"
  java -jar "$here/target/benchmarks.jar" -f 1 -wi 1 -w 1s -i 3 -r 1s -t "$threads" "$@"
done
