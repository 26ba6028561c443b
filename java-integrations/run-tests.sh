#!/usr/bin/env bash
# Tests the Java framework integrations (from any folder, after scripts/setup):
#   1. builds the core jar of this tree (java/build.sh, in build/java-integrations/) and
#      installs it into the local Maven repository as io.snowflakec:snowflake-c,
#   2. mvn clean verify once per framework generation: boot4 (Spring Boot 4.0.7, Hibernate 7,
#      Jackson 3) and boot3 (Spring Boot 3.5.7, Hibernate 6.6, Jackson 2), each beside a
#      throwaway PostgreSQL 15 server (with_postgres.py; its tests are skipped where none is
#      installed): the JUnit suites on embedded H2 databases and on PostgreSQL from three
#      processes at once, the test of the starter's jar (its configuration metadata), and
#      the format check,
#   3. checks that the examples of docs/integrations/java-*.md are the tested sources.
# The tests JUnit skips (no PostgreSQL here) are recorded through tests/skip, and fail the run
# under SNOWFLAKE_C_NO_SKIP=1.
# Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="${SNOWFLAKEC_INTEGRATIONS_BUILD:-$root/build/java-integrations}"

# tests/skip's settings, kept before the SNOWFLAKE_* variables go.
skips="${SNOWFLAKE_C_SKIPS:-}" no_skip="${SNOWFLAKE_C_NO_SKIP:-}" status=0

# The generators of the tests take their node values from their properties only.
while IFS='=' read -r name _; do
  if [[ "$name" == SNOWFLAKE_* ]]; then
    unset "$name"
  fi
done < <(env)

# The core jar in a folder of its own: java/target stays java/'s.
SNOWFLAKEC_JAVA_BUILD="$build/native" "$root/java/build.sh" "-Dsnowflakec.build=$build/core" >/dev/null
version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$root/java/pom.xml" | head -n 1)"
mvn -B -q install:install-file "-Dfile=$build/core/snowflake-c-$version.jar" \
  -DpomFile="$root/java/pom.xml"

for profile in boot4 boot3; do
  echo "--- $profile"
  python3 "$here/with_postgres.py" \
    mvn -B -f "$here/pom.xml" -P"$profile" "-Dsnowflakec.version=$version" clean verify
  # The tests JUnit skipped: the reports of this profile's clean build.
  while IFS=$'\t' read -r test why; do
    SNOWFLAKE_C_SKIPS="$skips" SNOWFLAKE_C_NO_SKIP="$no_skip" \
      "$root/tests/skip" java-integrations "$profile: $test" "$why" || status=1
  done < <(find "$here" -path '*/target/surefire-reports/TEST-*.xml' -exec "$root/tests/junit-skips" {} +)
done

python3 "$here/check_docs.py"
exit "$status"
