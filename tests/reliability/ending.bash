# Sourced by tests/reliability/run: a holder of a node value ended every way
# a process ends — a clean close, SIGTERM (systemctl and docker stop),
# SIGINT, SIGPIPE (`gen | head`), SIGKILL, abort, exit without a close,
# execve — each followed at once by its successor, with no state_dir unless
# the variant has one. Between the two, a fault puts the holder's last IDs
# where a successor starting from the wall clock would meet them
# (drivers/ending.c): the wall clock stepped back under each strategy and
# time source, ticks borrowed ahead, coarse ticks, a state_dir, a pool. The
# successor proves the fault (it starts while the wall clock is not past
# the holder's last tick); the row counts duplicates over both.
# Uses the runner's helpers (begin/bad/note, add_result, ended, r_*,
# dup_count, complete_lines, q) and $cli, $bin, $work, $row_epoch,
# $faketime_lib, $row_fields.
# shellcheck disable=SC2154 # the runner's variables, set and read there

# The endings, and the variants each meets in the quick run (every variant
# at least once); the full run meets every variant with every ending.
ending_quick=(
  "close clock" "close coarse"
  "SIGTERM wait" "SIGTERM state_dir"
  "SIGINT monotonic" "SIGINT switch"
  "SIGPIPE borrow" "SIGPIPE coarse"
  "SIGKILL counter" "SIGKILL clock"
  "abort error" "abort borrow"
  "exit state_dir" "exit monotonic"
  "execve coarse" "execve wait"
)
ending_variants=(clock wait borrow monotonic counter coarse state_dir error switch)
ending_ends=(close SIGTERM SIGINT SIGPIPE SIGKILL abort exit execve)

# How long the successor runs: past every tick the holder may have used
# (its step back, its borrowed ticks, its coarse tick).
ending_next_ms() { # variant
  case $1 in
  clock | monotonic | counter | state_dir | switch) echo 2400 ;;
  borrow) echo 2300 ;;
  wait | error | coarse) echo 1300 ;;
  esac
}

# The CLI's options for a variant (the SIGPIPE rows run `gen | head`).
ending_cli_options() { # variant
  case $1 in
  borrow) echo "--layout time:42@1ms,clock:3,worker:7,seq:11 --rollback borrow --max-drift 2s" ;;
  coarse) echo "--layout time:33@1s,clock:2,worker:7,seq:16 --rollback default" ;;
  esac
}

# Waits until the wall clock has just begun a second since the row's epoch
# (a tick of the coarse layout, which begins at the epoch's millisecond):
# the tick then has time for the holder's end and the successor's start.
ending_tick_start() {
  local us
  while :; do
    us=${EPOCHREALTIME/[.,]/}
    (((us / 1000 - row_epoch) % 1000 < 30)) && return
    sleep 0.005
  done
}

ending_row() { # end, variant
  local end=$1 v=$2 d=$work/ending-$1-$2 ms next_ms rc status=0
  ms=$(q 200 400)
  next_ms=$(ending_next_ms "$v")
  rm -rf "$d" && mkdir -p "$d/state"
  echo "+0" >"$d/offset"
  local run=(env LD_PRELOAD="$faketime_lib" FAKETIME_TIMESTAMP_FILE="$d/offset"
    FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1
    RELIABILITY_STATE_DIR="$d/state")
  local first=("${run[@]}" "$bin/ending" first "$v" "$ms" "$d/first.ids")
  case $end in
  close | exit | abort)
    "${first[@]}" "$end" >"$d/first.out" 2>"$d/first.err"
    rc=$?
    [[ $end = abort ]] && status=134
    ;;
  execve)
    # The successor is the holder's own process after execve: the claim,
    # the record's lock and every descriptor of the first program gone.
    "${first[@]}" exec "$next_ms" "$d/next.ids" >"$d/both.out" 2>"$d/first.err"
    rc=$?
    grep -m1 '^RESULT' "$d/both.out" >"$d/first.out"
    add_result "first" "$(cat "$d/first.out")" 0
    add_result "next (after execve)" "$(cat "$d/both.out")" "$rc"
    ending_finish "$d" "$(cat "$d/both.out")"
    return
    ;;
  SIGTERM | SIGINT | SIGKILL)
    "${first[@]}" wait >"$d/first.out" 2>"$d/first.err" &
    local pid=$! i=0
    while [[ ! -e $d/first.ids.ready ]] && ((i++ < 10000)); do sleep 0.001; done
    kill -s "${end#SIG}" "$pid"
    # Ended by the signal, or by SIGKILL 10 s later (then a failure).
    i=0
    while kill -0 "$pid" 2>/dev/null && ((i++ < 1000)); do sleep 0.01; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    status=$((128 + $(kill -l "${end#SIG}")))
    ;;
  SIGPIPE)
    # The CLI, its output cut by head: the pipe closed under it. Its IDs
    # are those head passed on: enough to borrow ticks ahead (2,048 a
    # tick: about a second ahead of the wall clock, of max_drift's 2 s),
    # or some of a coarse tick's.
    local opts lines=3000000
    read -ra opts <<<"$(ending_cli_options "$v")"
    if [[ $v = coarse ]]; then
      # Fewer than a batch of the CLI (4,096), more than its output buffer:
      # head has them, and closes the pipe, within the tick.
      lines=1000
      ending_tick_start
    fi
    "${run[@]}" "$cli" gen -n 100000000 --epoch "$row_epoch" --node worker=7 \
      "${opts[@]}" 2>"$d/first.err" | head -n "$lines" >"$d/first.ids"
    rc=${PIPESTATUS[0]}
    echo "RESULT ids=0 faults=0 dups=0 expected=0 unexpected=0 ok=1 note=$v: the CLI, cut by head after $lines" >"$d/first.out"
    status=141
    ;;
  esac
  if [[ $rc != "$status" ]]; then
    bad "the holder ended with $(ended "$rc"), not $(ended "$status")"
    tail -3 "$d/first.err" >&2
  fi
  # Its RESULT line counts (its exit status was checked above).
  add_result "first" "$(cat "$d/first.out")" 0
  local out
  out=$("${run[@]}" "$bin/ending" next "$v" "$next_ms" "$d/next.ids" \
    "$d/first.ids" 2>"$d/next.err")
  rc=$?
  add_result "next" "$out" "$rc"
  [[ $out = *RESULT* ]] || tail -3 "$d/next.err" >&2
  ending_finish "$d" "$out"
}

ending_finish() { # dir, the successor's output
  local first
  first=$(grep -m1 '^RESULT' "$1/first.out" 2>/dev/null || true)
  local f
  for f in "$1/first.ids" "$1/next.ids"; do
    [[ -s $f ]] || bad "no IDs in ${f##*/}"
  done
  r_ids=$(complete_lines "$1"/*.ids | wc -l)
  r_dups=$(dup_count "$1"/*.ids)
  ((r_dups == 0)) || bad "$r_dups IDs of the holder issued again"
  [[ -n $first ]] && note "${first#* note=}"
  note "$(grep '^RESULT' <<<"$2" | tail -1 | sed 's/.* note=//')"
}

# Containers that share the host's network and not its /dev/shm (`docker
# run --network host`): a holder gives its value back within a 1 s tick,
# and a process in another mount namespace, which cannot read its record,
# takes the value at once. It starts after the tick the clock is in (before:
# 2,000 of 2,000 IDs again). The successor must start within the holder's
# last tick, else the row proves nothing.
ending_other_mount_namespace() {
  local d=$work/ending-mntns start_ms last_tick
  mkdir -p "$d"
  local opts=(--layout time:33@1s,clock:2,worker:7,seq:12 --epoch "$row_epoch"
    --node worker=7)
  local ns=(unshare -m bash -c
    'mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec "$@"' _)
  ending_tick_start
  "${ns[@]}" "$cli" gen -n 2000 "${opts[@]}" >"$d/first.ids" 2>"$d/first.err" ||
    bad "the holder: $(tail -1 "$d/first.err")"
  start_ms=$((${EPOCHREALTIME/[.,]/} / 1000))
  "${ns[@]}" "$cli" gen -n 2000 "${opts[@]}" >"$d/next.ids" 2>"$d/next.err" ||
    bad "the successor: $(tail -1 "$d/next.err")"
  last_tick=$(sort -n "$d/first.ids" | tail -1)
  last_tick=$((last_tick >> 21))
  if ((start_ms >= (row_epoch + (last_tick + 1) * 1000))); then
    bad "the successor started after the holder's last tick: nothing to hand over"
  fi
  ending_finish "$d" "RESULT note=next: another mount namespace, started $((row_epoch + (last_tick + 1) * 1000 - start_ms)) ms before the end of the holder's last tick"
}

ending_scenarios() {
  if [[ $(id -u) = 0 ]] && unshare -m true 2>/dev/null; then
    scenario "ending: close, then another mount namespace" ending_other_mount_namespace
  else
    skip "ending: close, then another mount namespace" "needs root for unshare -m"
  fi
  local pair end v
  if [[ -z $faketime_lib ]]; then
    for pair in "${ending_quick[@]}"; do
      read -r end v <<<"$pair"
      skip "ending: $end, then $v" "libfaketimeMT not installed"
    done
    return
  fi
  local -a pairs=("${ending_quick[@]}")
  if ((!quick)); then
    pairs=()
    for end in "${ending_ends[@]}"; do
      for v in "${ending_variants[@]}"; do
        # The CLI's rows: the variants it runs without a driver.
        [[ $end = SIGPIPE && -z $(ending_cli_options "$v") ]] && continue
        pairs+=("$end $v")
      done
    done
  fi
  for pair in "${pairs[@]}"; do
    read -r end v <<<"$pair"
    scenario "ending: $end, then $v" ending_row "$end" "$v"
  done
}
