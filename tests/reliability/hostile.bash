# Sourced by tests/reliability/run: the state folder under attack — its lock
# file or the whole folder removed under a live holder, a second holder the
# host-wide name cannot see, a crash while a clock bump is half done,
# symbolic links and FIFOs planted in it, a folder open to other users — and
# NUL bytes inside IDs. Uses the runner's helpers (begin/bad/note, r_*,
# expect_state_error, gen_ok, skip, skip_part, ended, dup_count,
# complete_lines, count_ids) and $cli, $bin, $py, $work, $row_epoch,
# $row_fields.
# shellcheck disable=SC2154,SC2034 # the runner's variables, set and read there

# A slow layout (256 IDs per ms) so that the holder is still running when
# the second process comes.
hostile_args() { # state dir
  echo --layout time:41@1ms,worker:10,seq:8 --epoch "$row_epoch" \
    --node worker=5 --state-dir "$1"
}

# Starts the first holder generating into $d/ids.1 (its pid in the
# caller's `pid`, the CLI arguments in its `args`), and lets it get going.
start_holder() { # dir
  read -ra args <<<"$(hostile_args "$1/state")"
  mkdir -p "$1"
  "$cli" gen -n 600000 "${args[@]}" >"$1/ids.1" 2>"$1/err.1" &
  pid=$!
  sleep 0.3
}

# The lock file (lock) or the whole folder (dir) removed while a holder
# generates; a second process with the same node value must be refused, and
# the holder must put its lock file back and finish.
hostile_removed() { # lock|dir
  local d=$work/removed-$1 rc pid
  local -a args
  start_holder "$d"
  if [[ $1 = lock ]]; then rm -f "$d/state/worker-5.lock"; else rm -rf "$d/state"; fi
  r_faults=$((r_faults + 1))
  "$cli" gen -n 100000 "${args[@]}" >"$d/ids.2" 2>"$d/err.2"
  rc=$?
  if [[ $rc = 1 ]] && grep -q WorkerUnavailable "$d/err.2" && [[ ! -s $d/ids.2 ]]; then
    r_exp=$((r_exp + 1))
  else
    bad "second holder: $(ended "$rc"), $(head -c 200 "$d/err.2")"
  fi
  sleep 0.3 # more than a keeper cycle
  if ! kill -0 "$pid" 2>/dev/null; then
    bad "the holder ended too early to check its lock file"
  elif flock -n "$d/state/worker-5.lock" true 2>/dev/null; then
    bad "the holder did not put its lock file back"
  fi
  wait "$pid"
  rc=$?
  if [[ $rc != 0 || $(count_ids "$d/ids.1") != 600000 ]]; then
    r_unexp=$((r_unexp + 1))
    bad "holder: $(ended "$rc"), $(count_ids "$d/ids.1") of 600000 IDs, $(head -c 200 "$d/err.1")"
  fi
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "second holder refused, lock file put back"
}

# The lock file removed, and the second process in another network namespace
# (as in another container sharing the folder), where the host-wide name of
# the value cannot be seen: it takes the lock file. The state file still
# holds the first holder's mark, so the second starts behind it (and refuses,
# its layout having no clock field), and the first, finding its value taken,
# stops: never two holders issuing the same IDs.
hostile_other_netns() {
  local d=$work/netns rc1 rc2 pid
  local -a args
  start_holder "$d"
  rm -f "$d/state/worker-5.lock"
  r_faults=$((r_faults + 1))
  unshare -n "$cli" gen -n 100000 "${args[@]}" >"$d/ids.2" 2>"$d/err.2"
  rc2=$?
  wait "$pid"
  rc1=$?
  local i rc n
  for i in 1 2; do
    rc=$rc1 n=600000
    [[ $i = 2 ]] && rc=$rc2 n=100000
    if [[ $rc = 0 ]]; then
      [[ $(count_ids "$d/ids.$i") = "$n" ]] ||
        bad "process $i: exit 0 with $(count_ids "$d/ids.$i") of $n IDs"
    elif [[ $rc = 1 ]] && grep -qE 'WorkerUnavailable|ClockMovedBackwards|StateError' "$d/err.$i"; then
      r_exp=$((r_exp + 1))
    else
      r_unexp=$((r_unexp + 1))
      bad "process $i: $(ended "$rc"), $(head -c 200 "$d/err.$i")"
    fi
  done
  # The holder was generating before the second came.
  [[ -s $d/ids.1 ]] || bad "the holder wrote no ID"
  if [[ $rc1 = 0 && $rc2 = 0 ]]; then bad "both processes ran to the end"; fi
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "holder exit $rc1 ($(grep -o '^snowflake-c: [A-Za-z]*' "$d/err.1" | head -1 | cut -c14-)), other exit $rc2 ($(grep -o '^snowflake-c: [A-Za-z]*' "$d/err.2" | head -1 | cut -c14-))"
}

# A clock bump stalled after the state file names the new clock value and
# before the state word switches to it, a crash right after, a restart
# behind the mark (drivers/bumpcrash.c).
hostile_bump_crash() {
  local out rc
  out=$("$bin/bumpcrash" "$work/bumpcrash" 2>"$work/bumpcrash.err")
  rc=$?
  add_result "bump crash" "$out" "$rc"
  [[ $out = *RESULT* ]] || tail -5 "$work/bumpcrash.err" >&2
  note "${out#* note=}"
}

# Symbolic links where the lock, state and temporary files go, pointing at
# a file outside the folder; a dangling one; the folder itself a link.
hostile_symlinks() {
  local d=$work/planted/state victim=$work/planted/victim f
  mkdir -p "$d"
  echo precious >"$victim"
  for f in worker-1.lock worker-1.state worker-1.state.tmp; do
    rm -f "$d"/worker-1.*
    ln -s "$victim" "$d/$f"
    expect_state_error "a link as $f" "$victim" --node worker=1 --state-dir "$d"
  done
  rm -f "$d"/worker-1.*
  ln -s "$work/planted/created" "$d/worker-1.state.tmp"
  expect_state_error "a dangling link as the temporary file" "" --node worker=1 --state-dir "$d"
  [[ -e $work/planted/created ]] && bad "a dangling link's target was created"
  ln -s "$d" "$work/planted/link"
  expect_state_error "state_dir a link" "" --node worker=1 --state-dir "$work/planted/link"
  [[ $(cat "$victim") = precious ]] || bad "the file outside was changed"
  note "links refused, nothing outside written"
}

# FIFOs where the files go: creation must fail at once, not hang.
hostile_fifos() {
  local d=$work/fifos f rc
  mkdir -p "$d"
  for f in worker-1.lock worker-1.state worker-1.state.tmp; do
    rm -f "$d"/worker-1.*
    mkfifo "$d/$f"
    timeout 10 "$cli" gen -n 10 "${row_fields[@]}" --node worker=1 --state-dir "$d" \
      >"$work/fifo.out" 2>"$work/fifo.err"
    rc=$?
    r_faults=$((r_faults + 1))
    if [[ $rc = 124 ]]; then
      bad "a FIFO as $f: hung"
    elif [[ $rc = 1 ]] && grep -q 'StateError.*FIFO' "$work/fifo.err" && [[ ! -s $work/fifo.out ]]; then
      r_exp=$((r_exp + 1))
    else
      bad "a FIFO as $f: $(ended "$rc"), $(head -c 200 "$work/fifo.err")"
    fi
  done
  note "3 FIFOs refused without blocking"
}

# A folder every user can write to (without the sticky bit), and, as root,
# another user's folder and lock file.
hostile_open_folder() {
  local d=$work/open
  mkdir -p "$d"
  chmod 0777 "$d"
  expect_state_error "mode 0777" "" --node worker=1 --state-dir "$d"
  chmod 1777 "$d"
  gen_ok "$work/open.ids" -n 10 --node worker=1 --state-dir "$d"
  if [[ $(id -u) = 0 ]]; then
    chown nobody "$d/worker-1.lock"
    expect_state_error "another user's lock file in a sticky folder" "" --node worker=1 --state-dir "$d"
    chmod 0755 "$d"
    chown nobody "$d"
    expect_state_error "another user's folder" "" --node worker=1 --state-dir "$d"
    chown root "$d"
  else
    skip_part "another user's lock file and folder" "needs root"
  fi
  r_ids=$((r_ids + $(count_ids "$work/open.ids")))
}

# NUL bytes inside an ID: refused with the position, never cut short.
hostile_nul() {
  local input rc
  for input in '5\000garbage\n' '\000175928847299117063\n'; do
    # shellcheck disable=SC2059
    printf "$input" | "$cli" decode --preset discord >"$work/nul.out" 2>"$work/nul.err"
    rc=$?
    r_faults=$((r_faults + 1))
    if [[ $rc = 1 ]] && grep -q InvalidArgument "$work/nul.err" &&
      grep -qiE 'NUL|position' "$work/nul.err" && [[ ! -s $work/nul.out ]]; then
      r_exp=$((r_exp + 1))
    else
      bad "decode of '$input': $(ended "$rc"), out '$(head -c 80 "$work/nul.out")', $(head -c 200 "$work/nul.err")"
    fi
  done
  if [[ -n $py ]]; then
    r_faults=$((r_faults + 1))
    if "$py" -c 'import snowflake_c as s
try:
    s.decode("5\0x")
except s.SnowflakeError as e:
    raise SystemExit(0)
raise SystemExit(1)' 2>"$work/nul.err"; then
      r_exp=$((r_exp + 1))
    else
      bad "python decode('5\\0x') was accepted: $(head -c 200 "$work/nul.err")"
    fi
  else
    skip_part "the Python binding's decode" "binding not built: run python/run-tests.sh first"
  fi
}

hostile_scenarios() {
  scenario "lock file removed under a holder" hostile_removed lock
  scenario "state folder removed under a holder" hostile_removed dir
  if [[ $(id -u) = 0 ]] && unshare -n true 2>/dev/null; then
    scenario "lock file removed, holder unseen" hostile_other_netns
  else
    skip "lock file removed, holder unseen" "needs root for unshare -n"
  fi
  scenario "clock bump half done, crash" hostile_bump_crash
  scenario "symlinks planted in the state dir" hostile_symlinks
  scenario "FIFOs planted in the state dir" hostile_fifos
  scenario "state dir open to other users" hostile_open_folder
  scenario "NUL inside an ID" hostile_nul
}
