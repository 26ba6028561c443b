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
# Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="${SNOWFLAKEC_INTEGRATIONS_BUILD:-$root/build/java-integrations}"

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
done

python3 "$here/check_docs.py"
