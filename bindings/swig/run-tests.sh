#!/usr/bin/env bash
# Builds the SWIG modules (Ruby, PHP) and the CLI in build/swig, then runs
# each language's vector runner. Installs the Debian toolchains when missing.
# Usage: bindings/swig/run-tests.sh [VECTORS_DIR]   (from any directory)
# Environment: SNOWFLAKE_C_SWIG_BUILD (the build dir, default build/swig).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${SNOWFLAKE_C_SWIG_BUILD:-$root/build/swig}"
vectors="${1:-$root/tests/vectors}"

packages=(swig ruby-dev php-dev php-cli)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== swig: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) = 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "== swig: configuring $build"
options=(-Dswig=enabled -Dtests=false -Dpython=disabled -Djava=disabled)
if [[ -f $build/build.ninja ]]; then
  meson setup "$build" "$root" --reconfigure "${options[@]}" >/dev/null
else
  meson setup "$build" "$root" "${options[@]}" >/dev/null
fi

echo "== swig: building the Ruby and PHP modules and the CLI"
ninja -C "$build" -j2 >/dev/null || ninja -C "$build" -j2

export SNOWFLAKE_C_CLI="$build/core/cli/snowflake-c"
# The PHP runner starts PHP processes of its own (the guard's tests).
export SNOWFLAKE_C_PHP_EXTENSION="$build/bindings/swig/php/snowflake_c.so"
status=0

# Every interpreter run is bounded: a hung wait fails the suite, never CI.
limit=(timeout -k 5 180)
ruby=("${limit[@]}" ruby -I "$build/bindings/swig/ruby")
php=("${limit[@]}" php -d "extension=$SNOWFLAKE_C_PHP_EXTENSION")

echo "== swig: Ruby"
"${ruby[@]}" "$here/ruby/example.rb" >/dev/null || status=1
"${ruby[@]}" "$here/ruby/test_vectors.rb" "$vectors" || status=1

# The gem as a user gets it: packed, installed (compiled by mkmf), required.
ruby_gem() {
  local gem_file gem_home="$build/gem/home"
  gem_file=$("$here/ruby/build-gem.sh" "$build/gem" 2>/dev/null) || return 1
  rm -rf "$gem_home"
  gem install --local --no-document --install-dir "$gem_home" "$gem_file" \
    >/dev/null || return 1
  GEM_HOME="$gem_home" GEM_PATH="$gem_home" \
    "${limit[@]}" ruby "$here/ruby/test_vectors.rb" "$vectors"
}

echo "== swig: Ruby, from the packed gem"
ruby_gem || status=1

echo "== swig: PHP"
"${php[@]}" "$here/php/example.php" >/dev/null || status=1
"${php[@]}" "$here/php/test_vectors.php" "$vectors" || status=1

exit "$status"
