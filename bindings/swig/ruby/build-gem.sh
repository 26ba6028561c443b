#!/usr/bin/env bash
# Packs the Ruby gem snowflake_c-<version>.gem: the SWIG wrapper generated
# here, the C core and its binding kit vendored beside it, compiled by mkmf
# when the gem is installed (no SWIG needed there).
# Usage: bindings/swig/ruby/build-gem.sh [OUTPUT_DIR]   (default build/swig/gem)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-$root/build/swig/gem}"
stage="$out/stage"
ext="$stage/ext/snowflake_c"

rm -rf "$stage"
mkdir -p "$ext"
swig -ruby -Werror -initname snowflake_c -I"$root/core/include" \
  -o "$ext/snowflake_c_wrap.c" "$here/../snowflake_c.i"
cp "$root"/core/src/*.c "$root"/core/src/*.h "$root"/core/kit/*.c \
  "$root"/core/kit/*.h "$root/core/include/snowflake_c.h" "$here/extconf.rb" \
  "$ext/"
cp "$here/snowflake_c.gemspec" "$stage/"
cp "$here/../README.md" "$stage/"
(cd "$stage" && gem build --quiet snowflake_c.gemspec >/dev/null)
gem=$(cd "$stage" && ls snowflake_c-*.gem)
mv "$stage/$gem" "$out/$gem"
echo "$out/$gem"
