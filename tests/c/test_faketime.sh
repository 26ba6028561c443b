#!/usr/bin/env bash
# A real wall-clock step backwards, made by libfaketime, against the real CLI.
# Exits 77 (skip) when libfaketime is not installed.
#
# The thread-safe libfaketimeMT.so.1: with a state directory the CLI runs a
# keeper thread beside the generating one, and the single-threaded
# libfaketime.so.1 can lose its offset for a moment when two threads read
# the clock at once (a step back nobody asked for).
set -euo pipefail
cli=$1
lib=""
for f in /usr/lib/*/faketime/libfaketimeMT.so.1 /usr/lib/faketime/libfaketimeMT.so.1; do
  if [[ -f $f ]]; then
    lib=$f
    break
  fi
done
if [[ -z $lib ]]; then
  echo "libfaketimeMT not installed (Debian package faketime): skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The presets' layouts at an epoch of this run's own: a run that leaves IDs
# ahead of the clock hands them over, host-wide, to the next holder of the
# same ID space and node bits, and nothing else on the machine should start
# behind this test's steps.
epoch=$((1704067200000 + (RANDOM * 32768 + RANDOM) % 86400000))
default=(--layout time:41@1ms,clock:3,worker:7,seq:12 --epoch "$epoch")
twitter=(--layout time:41@1ms,datacenter:5,worker:5,seq:12 --epoch "$epoch")
passed=0 failed=0
check() { # description, command...
  local what=$1
  shift
  if "$@"; then passed=$((passed + 1)); else
    failed=$((failed + 1))
    echo "FAILED: $what"
  fi
}
fails() { # command...: succeeds when the command fails
  if "$@"; then return 1; else return 0; fi
}
faked() { # offset, command...: run with the clock shifted by offset
  local offset=$1
  shift
  LD_PRELOAD=$lib FAKETIME="$offset" FAKETIME_DONT_RESET=1 "$@"
}

# Restart with the clock 10 s behind the state file's mark.
faked "+10s" "$cli" gen -n 20000 "${default[@]}" --node worker=4 \
  --state-dir "$work/state" >"$work/ahead"
if faked "+0" "$cli" gen -n 10 "${twitter[@]}" --node datacenter=1,worker=4 \
  --state-dir "$work/state2" >/dev/null; then :; fi
faked "+10s" "$cli" gen -n 10 "${twitter[@]}" --node datacenter=1,worker=4 \
  --state-dir "$work/state2" >/dev/null
check "twitter (no clock field) refuses a restart 10 s behind" \
  fails faked "+0" "$cli" gen -n 10 "${twitter[@]}" \
  --node datacenter=1,worker=4 --state-dir "$work/state2" \
  2>"$work/err" >/dev/null
check "the refusal says ClockMovedBackwards" \
  grep -q "ClockMovedBackwards: the clock moved backwards by" "$work/err"
faked "+0" "$cli" gen -n 20000 "${default[@]}" --node worker=4 \
  --state-dir "$work/state" --stats >"$work/behind" 2>"$work/stats"
check "default preset bumps the clock after a restart 10 s behind" \
  grep -q "clock_bumps=1" "$work/stats"
check "no duplicates across the restart" \
  test "$(sort "$work/ahead" "$work/behind" | uniq -d | wc -l)" = 0

# A step backwards while running: libfaketime re-reads the offset from a
# file on every call (FAKETIME_NO_CACHE), and the file changes mid-run. The
# monotonic clock is left alone, as a real step of the wall clock leaves it.
echo "+2s" >"$work/offset"
run_stepping() { # extra CLI arguments...
  echo "+2s" >"$work/offset"
  (sleep 0.3 && echo "+0" >"$work/offset") &
  LD_PRELOAD=$lib FAKETIME_TIMESTAMP_FILE="$work/offset" FAKETIME_NO_CACHE=1 \
    FAKETIME_DONT_FAKE_MONOTONIC=1 \
    FAKETIME_DONT_RESET=1 "$cli" gen --stats "$@" >"$work/ids" 2>"$work/stats"
  local rc=$?
  wait
  return $rc
}
check "clock strategy rides a 2 s step back" \
  run_stepping -n 3000000 "${default[@]}" --node worker=5 --rollback clock
check "... with a clock bump" grep -q "clock_bumps=1" "$work/stats"
check "... and no duplicates" test "$(sort "$work/ids" | uniq -d | wc -l)" = 0
check "error strategy stops at a 2 s step back" \
  fails run_stepping -n 100000000 "${twitter[@]}" \
  --node datacenter=1,worker=5 --rollback error
check "... saying ClockMovedBackwards" \
  grep -q "ClockMovedBackwards" "$work/stats"
check "... with no duplicates before it" \
  test "$(sort "$work/ids" | uniq -d | wc -l)" = 0
check "borrow strategy rides a 2 s step back within max_drift 3000" \
  run_stepping -n 3000000 "${twitter[@]}" --node datacenter=1,worker=5 \
  --rollback borrow --max-drift 3000
check "... strictly increasing" bash -c "sort -c -n '$work/ids' && \
  test \"\$(sort -u '$work/ids' | wc -l)\" = \"\$(wc -l <'$work/ids')\""
echo "$passed passed, $failed failed"
test "$failed" = 0
