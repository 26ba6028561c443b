#!/usr/bin/env bash
# A real wall-clock step backwards, made by libfaketime, against the real CLI.
# Exits 77 (skip) when libfaketime is not installed.
#
# The thread-safe libfaketimeMT.so.1: with a state directory the CLI runs a
# keeper thread beside the generating one, and the single-threaded
# libfaketime.so.1 can lose its offset for a moment when two threads read
# the clock at once (a step back nobody asked for).
# shellcheck disable=SC2054 # commas inside layout specs, not array separators
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
stepped=(LD_PRELOAD="$lib" FAKETIME_TIMESTAMP_FILE="$work/offset" FAKETIME_NO_CACHE=1
  FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_DONT_RESET=1)
# The wall clock under the offset file (what the CLI reads), less the
# monotonic clock (which libfaketime leaves alone), in ms: both read by one
# process, so that a step is the change of this value.
clock_offset() {
  env "${stepped[@]}" python3 -c \
    'import time; print((time.time_ns() - time.monotonic_ns()) // 1000000)'
}
# Runs the CLI while the wall clock steps 2 s back under it, 0.3 s after
# its start. The step is measured (clock_offset before and after) into
# $work/step, and $work/during says whether the CLI was still running when
# it was about to be made (a refusal ends the CLI at once: the mark goes
# first): a run without libfaketime, or one that ended before the step,
# proves nothing. With $slow set, the IDs go through a reader that takes
# about 1,500 a millisecond: the CLI then waits on its output, never on a
# tick's sequence (4,096), and a generator that may borrow ticks does not
# run ahead of the clock before the step.
slow=""
run_stepping() { # extra CLI arguments...
  echo "+2s" >"$work/offset"
  rm -f "$work/stepping" "$work/step" "$work/during"
  (
    sleep 0.3
    before=$(clock_offset)
    : >"$work/stepping"
    echo "+0" >"$work/offset"
    after=$(clock_offset)
    echo $((before - after)) >"$work/step"
  ) &
  local rc
  if [[ -n $slow ]]; then
    env "${stepped[@]}" "$cli" gen --stats "$@" 2>"$work/stats" | python3 -c '
import sys, time
while chunk := sys.stdin.buffer.read1(32768):
    sys.stdout.buffer.write(chunk)
    time.sleep(0.001)' >"$work/ids"
    rc=${PIPESTATUS[0]}
  else
    env "${stepped[@]}" "$cli" gen --stats "$@" >"$work/ids" 2>"$work/stats"
    rc=$?
  fi
  [[ -e $work/stepping ]] && : >"$work/during"
  wait
  return "$rc"
}
# The step made while the CLI ran, within 2 % of 2 s.
stepped_while_running() {
  local ms
  ms=$(cat "$work/step" 2>/dev/null)
  echo "the wall clock stepped ${ms:-?} ms back$([[ -e $work/during ]] || echo ", after the CLI ended")"
  [[ -e $work/during && -n $ms ]] && ((ms >= 1960 && ms <= 2040))
}
check "clock strategy rides a 2 s step back" \
  run_stepping -n 3000000 "${default[@]}" --node worker=5 --rollback clock
check "... made while it ran" stepped_while_running
check "... with a clock bump" grep -q "clock_bumps=1" "$work/stats"
check "... and no duplicates" test "$(sort "$work/ids" | uniq -d | wc -l)" = 0
check "error strategy stops at a 2 s step back" \
  fails run_stepping -n 100000000 "${twitter[@]}" \
  --node datacenter=1,worker=5 --rollback error
check "... made while it ran" stepped_while_running
check "... saying ClockMovedBackwards" \
  grep -q "ClockMovedBackwards" "$work/stats"
check "... with no duplicates before it" \
  test "$(sort "$work/ids" | uniq -d | wc -l)" = 0
slow=1
check "borrow strategy rides a 2 s step back within max_drift 3000" \
  run_stepping -n 1500000 "${twitter[@]}" --node datacenter=1,worker=5 \
  --rollback borrow --max-drift 3000
slow=""
check "... made while it ran" stepped_while_running
# Absorbed by borrowing: no rollback past max_drift, ticks borrowed ahead
# of the clock (counted by the generator).
check "... borrowing ticks, no rollback" \
  grep -qE "borrowed_ticks=[1-9][0-9]* rollbacks=0 " "$work/stats"
check "... strictly increasing" bash -c "sort -c -n '$work/ids' && \
  test \"\$(sort -u '$work/ids' | wc -l)\" = \"\$(wc -l <'$work/ids')\""
echo "$passed passed, $failed failed"
test "$failed" = 0
