#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang, ASan and UBSan. The core and the
# CLI are compiled from source here, instrumented, so that the fuzzer sees
# their coverage.
# Usage: tests/fuzz/build.sh [OUT_DIR]   (default build/fuzz)
# Needs clang and its runtime (Debian: clang, libclang-rt-14-dev).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/build/fuzz}
cc=${CLANG:-clang}
mkdir -p "$out/obj"

# shellcheck disable=SC2054 # the commas are inside the flags
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror
  -fsanitize=address,undefined -fno-sanitize-recover=undefined
  -I"$root/core/include" -I"$root/core/src" -I"$root/core/kit")

objs=()
for src in "$root"/core/src/*.c "$root"/core/kit/*.c; do
  obj="$out/obj/$(basename "$(dirname "$src")")_$(basename "${src%.c}").o"
  if [[ ! -f $obj || $src -nt $obj || $root/core/src/internal.h -nt $obj ||
    $root/core/include/snowflake_c.h -nt $obj ||
    $root/core/kit/snowflake_c_kit.h -nt $obj ]]; then
    "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  fi
  objs+=("$obj")
done
# Every file of the CLI but http.c, the libmicrohttpd glue: fuzz_routes
# drives routes.c in its place (serve.c and lease.c are built as without
# their libraries).
cli_obj=()
for src in "$root"/core/cli/*.c; do
  [[ $src = */http.c ]] && continue
  cli_obj+=("$out/obj/cli_$(basename "${src%.c}").o")
  "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link -Dmain=sfc_cli_main \
    -c "$src" -o "${cli_obj[-1]}"
done

for target in layout decode cli state routes uuid7; do
  extra=()
  [[ $target = cli || $target = routes ]] && extra=(-I"$root/core/cli" "${cli_obj[@]}")
  "$cc" "${flags[@]}" -fsanitize=fuzzer "$root/tests/fuzz/fuzz_$target.c" \
    "${extra[@]}" "${objs[@]}" -lpthread -o "$out/fuzz_$target"
done
echo "fuzz harnesses built in $out: fuzz_layout fuzz_decode fuzz_cli fuzz_state fuzz_routes fuzz_uuid7"
