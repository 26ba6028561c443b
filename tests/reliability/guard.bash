# Sourced by tests/reliability/run: the host-wide guard — two processes
# given one static node value (CLI and Python, with no configuration at
# all), `host` in a pod-like namespace, the pod recipe (host + pool field),
# 100 processes with distinct values, a killed holder restarted at once, no
# usable folder for hand-over records, forked children — and the ways real
# hosts split a claim (issue 21): environments, Windows' TMP, options,
# users, squatters, field names, the hand-over across clock steps and time
# sources, a crash loop of refusals, too few file descriptors, long field
# names, a forked helper outliving its parent. Every row counts duplicates
# over everything its processes wrote. Uses the runner's helpers
# (begin/bad/note, r_*, dup_count, complete_lines, count_ids, add_result,
# q, records_of) and $cli, $bin, $py, $work, $here, $build, $row_epoch,
# $faketime_lib.
# shellcheck disable=SC2154,SC2034 # the runner's variables, set and read there
# shellcheck disable=SC2054 # commas inside layout specs, not array separators

# A slow layout (16 IDs per ms): a holder is still running when the next
# process comes, and 100 processes are alive together. Two generators of one
# value issue the same 16 IDs in every tick they share.
guard_layout=time:41@1ms,worker:10,seq:4
# The commands of guard_pair.
holder=() contender=() holder_named=()

# Runs `gen` of the CLI (cli) or of the Python binding (py) with the
# environment the runner was started with (no configuration), replacing the
# calling subshell so that its pid is the generator's: call it as
# `(guard_gen …) &` or `(guard_gen …)`.
guard_gen() { # cli|py, count, layout, epoch, node, CLI options...
  local kind=$1 n=$2 layout=$3 epoch=$4 node=$5
  shift 5
  if [[ $kind = py ]]; then
    exec "$py" "$here/python/gen.py" "$n" "$layout" "$epoch" "$node"
  fi
  exec "$cli" gen -n "$n" --layout "$layout" --epoch "$epoch" --node "$node" "$@"
}

# Runs a command under the host name orders-7, in a UTS namespace of its
# own (as a container of a StatefulSet pod), replacing the calling subshell
# as guard_gen does.
guard_pod() { # command...
  exec unshare -u bash -c 'hostname orders-7 && exec "$@"' guard_pod "$@"
}

# Waits (up to 5 s, or the given seconds) until a process has written its
# first ID; fails if it ends first.
guard_started() { # ids file, pid, [seconds]
  local i
  for ((i = 0; i < ${3:-5} * 100; i++)); do
    [[ -s $1 ]] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}

# The second process must be refused: exit 1 (an error told: not a
# crash), WorkerUnavailable naming the holder's pid (any live process when
# no pid is given) and `what`, no ID.
guard_expect_refused() { # label, rc, ids file, err file, holder pid, what
  local by="live process $5 "
  [[ -n $5 ]] || by="live process"
  r_faults=$((r_faults + 1))
  if [[ $2 = 1 && ! -s $3 ]] && grep -q WorkerUnavailable "$4" &&
    grep -qF "$by" "$4" && grep -qF "$6" "$4"; then
    r_exp=$((r_exp + 1))
  else
    bad "$1: $(ended "$2"), $(count_ids "$3") IDs, $(head -c 300 "$4")"
  fi
}

# A process that started must have started guarded: no warning on
# standard error (a generator that runs unguarded says so), and with
# --stats, guard="held: …".
guard_no_warning() { # label, err file
  if grep -qi warning "$2" || grep -qE 'guard="?(off|unavailable)' "$2"; then
    r_unexp=$((r_unexp + 1))
    bad "$1: started unguarded: $(grep -m1 -iE 'warning|guard=' "$2" | head -c 200)"
  fi
}

# The holder must still be running (the refusal did not disturb it); it is
# then stopped, and must end by that SIGTERM (exit 143), not otherwise.
guard_stop_holder() { # label, pid, err file
  local rc
  if ! kill -0 "$2" 2>/dev/null; then
    r_unexp=$((r_unexp + 1))
    bad "$1: the holder stopped: $(head -c 200 "$3")"
  fi
  kill -TERM "$2" 2>/dev/null
  wait "$2" 2>/dev/null
  rc=$?
  if [[ $rc != 143 ]]; then
    r_unexp=$((r_unexp + 1))
    bad "$1: the holder: $(ended "$rc"), not ended by SIGTERM: $(head -c 200 "$3")"
  fi
}

# A holder (the command in the array `holder`) and, while it generates, a
# contender (`contender`) with the same ID space and node bits: the
# contender is refused naming the holder's pid (the `holder_named` array's
# first word instead, when set: "" for any) and `what`; the holder started
# guarded and is still running. Files DIR/NAME.h.* and DIR/NAME.c.*.
guard_pair() { # label, dir, name, what
  local label=$1 d=$2 n=$3 what=$4 pid rc named
  "${holder[@]}" >"$d/$n.h.ids" 2>"$d/$n.h.err" &
  pid=$!
  if ! guard_started "$d/$n.h.ids" "$pid"; then
    r_unexp=$((r_unexp + 1))
    bad "$label: the holder did not start: $(head -c 200 "$d/$n.h.err")"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 1
  fi
  "${contender[@]}" >"$d/$n.c.ids" 2>"$d/$n.c.err"
  rc=$?
  named=$pid
  ((${#holder_named[@]})) && named=${holder_named[0]}
  guard_expect_refused "$label" "$rc" "$d/$n.c.ids" "$d/$n.c.err" "$named" "$what"
  guard_stop_holder "$label" "$pid" "$d/$n.h.err"
  guard_no_warning "$label: the holder" "$d/$n.h.err"
}

# The IDs and duplicates of every *.ids file of a row's folder.
guard_count() { # dir
  r_ids=$(complete_lines "$1"/*.ids | wc -l)
  r_dups=$(dup_count "$1"/*.ids)
}

# Two processes given the same static value, with no configuration at all:
# the second is refused naming the first's pid. CLI after CLI, and with the
# Python binding on either side.
guard_same_value() {
  local d=$work/guard-same pair i=0 pid rc
  local -a pairs=(cli:cli)
  if [[ -n $py ]]; then
    pairs+=(cli:py py:cli)
  else
    skip_part "the CLI-Python pairs" "binding not built: run python/run-tests.sh first"
  fi
  mkdir -p "$d"
  for pair in "${pairs[@]}"; do
    i=$((i + 1))
    (guard_gen "${pair%:*}" 1000000000 "$guard_layout" "$row_epoch" worker=3) \
      >"$d/ids.$i.1" 2>"$d/err.$i.1" &
    pid=$!
    if ! guard_started "$d/ids.$i.1" "$pid"; then
      bad "$pair: the first did not start: $(head -c 200 "$d/err.$i.1")"
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      continue
    fi
    (guard_gen "${pair#*:}" 1000 "$guard_layout" "$row_epoch" worker=3) \
      >"$d/ids.$i.2" 2>"$d/err.$i.2"
    rc=$?
    guard_expect_refused "$pair" "$rc" "$d/ids.$i.2" "$d/err.$i.2" "$pid" \
      "worker=3"
    guard_stop_holder "$pair" "$pid" "$d/err.$i.1"
  done
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "no configuration; refused naming the holder: ${pairs[*]/:/→}; $(
    grep -o 'host-wide claim [^)]*' "$d/err.1.2" | head -1)"
}

# Two processes with worker=host under the host name orders-7: both read
# worker 7, and the second is refused.
guard_pod_host() {
  local d=$work/guard-pod pid rc first
  local args=(--layout "$guard_layout" --epoch "$row_epoch" --node worker=host)
  mkdir -p "$d"
  (guard_pod "$cli" gen -n 1000000000 "${args[@]}") >"$d/ids.1" 2>"$d/err.1" &
  pid=$!
  if ! guard_started "$d/ids.1" "$pid"; then
    bad "the first did not start: $(head -c 200 "$d/err.1")"
    return
  fi
  (guard_pod "$cli" gen -n 1000 "${args[@]}") >"$d/ids.2" 2>"$d/err.2"
  rc=$?
  guard_expect_refused "second" "$rc" "$d/ids.2" "$d/err.2" "$pid" "worker=7"
  first=$(head -1 "$d/ids.1")
  "$cli" decode --layout "$guard_layout" --epoch "$row_epoch" --json "$first" |
    grep -q '"worker":7,' || bad "the holder's IDs are not worker 7: $first"
  guard_stop_holder "holder" "$pid" "$d/err.1"
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "worker 7 from the host name; the second refused"
}

# The recipe for several processes per pod: a host field and a pool field
# (pod=host,proc=auto with a state_dir), 4 processes together.
guard_pod_recipe() {
  local d=$work/guard-recipe i rc pids=() procs pods n
  local args=(--layout time:41@1ms,pod:8,proc:4,seq:4 --epoch "$row_epoch"
    --node pod=host,proc=auto --state-dir "$d/state" --stats)
  n=$(q 16000 48000)
  mkdir -p "$d"
  for i in 1 2 3 4; do
    (guard_pod "$cli" gen -n "$n" "${args[@]}") >"$d/ids.$i" 2>"$d/err.$i" &
    pids+=($!)
  done
  for i in 1 2 3 4; do
    wait "${pids[$((i - 1))]}"
    rc=$?
    if [[ $rc != 0 || $(count_ids "$d/ids.$i") != "$n" ]] ||
      grep -v '^ids_issued=' "$d/err.$i" | grep -q .; then
      r_unexp=$((r_unexp + 1))
      bad "process $i: $(ended "$rc"), $(count_ids "$d/ids.$i") of $n IDs, $(head -c 200 "$d/err.$i")"
    fi
  done
  procs=$(grep -ho 'proc=[0-9]*(pool)' "$d"/err.* | sort -u | wc -l)
  pods=$(grep -ho 'pod=[0-9]*([a-z]*)' "$d"/err.* | sort -u | tr '\n' ' ')
  ((procs == 4)) || bad "$procs distinct proc values, not 4"
  [[ $pods = "pod=7(host) " ]] || bad "pod values: $pods"
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "pod 7 from the host name, $procs proc values from the pool"
}

# 100 processes with distinct values, started together: every one starts,
# guarded, and leaves no hand-over record behind unless it gave its value
# back ahead of the clock.
guard_distinct() {
  local d=$work/guard-distinct n=100 i rc pids=() held count
  local args=(--layout "$guard_layout" --epoch "$row_epoch" --stats)
  count=$(q 8000 32000)
  mkdir -p "$d"
  for ((i = 0; i < n; i++)); do
    "$cli" gen -n "$count" "${args[@]}" --node "worker=$i" \
      >"$d/ids.$i" 2>"$d/err.$i" &
    pids+=($!)
  done
  sleep 0.3
  # A holder keeps its record file open (written full-size, so that handing
  # over cannot fail for want of space) for as long as it holds.
  held=$(records_of "$row_epoch" | wc -l)
  for ((i = 0; i < n; i++)); do
    wait "${pids[$i]}"
    rc=$?
    if [[ $rc != 0 || $(count_ids "$d/ids.$i") != "$count" ]] ||
      grep -v '^ids_issued=' "$d/err.$i" | grep -q . ||
      ! grep -q 'guard="held: ' "$d/err.$i"; then
      r_unexp=$((r_unexp + 1))
      bad "worker $i: $(ended "$rc"), $(count_ids "$d/ids.$i") of $count IDs, $(head -c 200 "$d/err.$i")"
    fi
  done
  # A holder that leaves while the clock is not yet past its last tick (the
  # wall clock of a loaded machine can lag for a moment) hands that tick
  # over to the next holder of the value in its record; a record file left
  # without one (given back behind the clock) is a leak.
  local kept=0 left=0 f
  while read -r f; do
    if grep -q '^mark [1-9]' "$f"; then kept=$((kept + 1)); else left=$((left + 1)); fi
  done < <(records_of "$row_epoch")
  ((left == 0)) || bad "$left record files left behind by values given back behind the clock"
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "$n processes started, $held record files at once, none left ($kept handed a last tick over)"
}

# A holder killed with SIGKILL: a new process with its value starts (the
# kernel let go of the claim: no retry, no wait for it) and issues all its
# IDs.
guard_killed() {
  local d=$work/guard-killed i rounds pid rc
  local args=(--layout "$guard_layout" --epoch "$row_epoch" --node worker=9)
  rounds=$(q 5 20)
  mkdir -p "$d"
  for ((i = 0; i < rounds; i++)); do
    "$cli" gen -n 1000000000 "${args[@]}" >"$d/ids.$i" 2>"$d/err.$i" &
    pid=$!
    guard_started "$d/ids.$i" "$pid" ||
      bad "round $i: the holder did not start: $(head -c 200 "$d/err.$i")"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    rc=$?
    [[ $rc = 137 ]] || bad "round $i: the holder: $(ended "$rc") before the kill"
    r_faults=$((r_faults + 1))
    "$cli" gen -n 2000 "${args[@]}" >"$d/next.$i" 2>"$d/next-err.$i"
    rc=$?
    if [[ $rc != 0 || $(count_ids "$d/next.$i") != 2000 ]]; then
      r_unexp=$((r_unexp + 1))
      bad "round $i: the next holder: $(ended "$rc"), $(count_ids "$d/next.$i") of 2000 IDs, $(head -c 200 "$d/next-err.$i")"
    fi
  done
  r_ids=$(complete_lines "$d"/ids.* "$d"/next.* | wc -l)
  r_dups=$(dup_count "$d"/ids.* "$d"/next.*)
  note "$rounds holders killed, each value taken again with no refusal"
}

# No folder for hand-over records: /dev/shm and /tmp replaced, in a mount
# namespace of the row's own, by tmpfs mounts anyone may empty (mode 0777,
# no sticky bit). Creation must fail with StateError — never an unguarded
# start. Then /dev/shm owned by another user and /tmp usable: guarded, the
# records in /tmp.
guard_records_unusable() {
  local d=$work/guard-records rc
  mkdir -p "$d"
  local gen=("$cli" gen -n 1000 --layout "$guard_layout" --epoch "$row_epoch"
    --node worker=1 --stats)
  # The CLI is opened before the mounts and run from its descriptor: the
  # checkout itself may live under /tmp.
  # shellcheck disable=SC2016 # for the inner shell
  unshare -m bash -c 'exec 3<"$1" && shift && mount -t tmpfs -o mode=0777 tmpfs /dev/shm &&
    mount -t tmpfs -o mode=0777 tmpfs /tmp && exec /proc/self/fd/3 "$@"' records "${gen[@]}" \
    >"$d/none.ids" 2>"$d/none.err"
  rc=$?
  r_faults=$((r_faults + 1))
  if [[ $rc = 1 && ! -s $d/none.ids ]] && grep -q 'StateError.*hand-over records' "$d/none.err" &&
    ! grep -qi warning "$d/none.err"; then
    r_exp=$((r_exp + 1))
  else
    bad "no usable folder: $(ended "$rc"), $(count_ids "$d/none.ids") IDs, $(head -c 200 "$d/none.err")"
  fi
  # shellcheck disable=SC2016 # for the inner shell
  unshare -m bash -c 'exec 3<"$1" && shift && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
    chown 65534 /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /tmp &&
    exec /proc/self/fd/3 "$@"' records "${gen[@]}" >"$d/tmp.ids" 2>"$d/tmp.err"
  rc=$?
  r_faults=$((r_faults + 1))
  if [[ $rc = 0 && $(count_ids "$d/tmp.ids") = 1000 ]] && grep -q 'guard="held: ' "$d/tmp.err" &&
    ! grep -qi warning "$d/tmp.err"; then
    r_exp=$((r_exp + 1))
  else
    r_unexp=$((r_unexp + 1))
    bad "/dev/shm another user's: $(ended "$rc"), $(head -c 200 "$d/tmp.err")"
  fi
  guard_count "$d"
  note "no usable folder: StateError; /dev/shm another user's: guarded (records in /tmp)"
}

# A forked child of a guarded generator (drivers/guardfork.c).
guard_fork() {
  local out rc
  out=$("$bin/guardfork" children 2>"$work/guard-fork.err")
  rc=$?
  add_result "guard fork" "$out" "$rc"
  [[ $out = *RESULT* ]] || tail -5 "$work/guard-fork.err" >&2
  note "${out#* note=}"
}

# ---------------------------------------------------------------------------
# The ways real hosts split a claim (issue 21). In each, a holder generates
# and a contender with the same ID space and node bits comes while it does:
# the contender must be refused; had it started, every ID it issued in the
# holder's ticks would be one of the holder's, and the row counts them.
# ---------------------------------------------------------------------------

# 1. The environment: XDG_RUNTIME_DIR set for one process and not for the
# other, another TMPDIR and HOME.
guard_environment() {
  local d=$work/guard-env
  mkdir -p "$d/xdg" "$d/tmp" "$d/home"
  chmod 0700 "$d/xdg"
  local gen=("$cli" gen --layout "$guard_layout" --epoch "$row_epoch" --node worker=3)
  holder_named=()
  holder=(env XDG_RUNTIME_DIR="$d/xdg" "${gen[@]}" -n 1000000000)
  contender=(env -u XDG_RUNTIME_DIR "${gen[@]}" -n 4000)
  guard_pair "XDG_RUNTIME_DIR set, then unset" "$d" 1 worker=3
  contender=(env -u XDG_RUNTIME_DIR TMPDIR="$d/tmp" HOME="$d/home" "${gen[@]}" -n 4000)
  guard_pair "then another TMPDIR and HOME" "$d" 2 worker=3
  holder=(env -u XDG_RUNTIME_DIR "${gen[@]}" -n 1000000000)
  contender=(env XDG_RUNTIME_DIR="$d/xdg" TMPDIR="$d/tmp" "${gen[@]}" -n 4000)
  guard_pair "XDG_RUNTIME_DIR unset, then set" "$d" 3 worker=3
  guard_count "$d"
  note "3 contenders in other environments refused"
}

# The x86_64-windows CLI (cross/x86_64-windows.ini, zig cc): tests/cross's
# build when it is newer than every source of the core, else one of the
# runner's own in build/reliability/x86_64-windows. Sets win_cli, or says
# why not in win_why.
win_cli="" win_why=""
wine=/usr/lib/wine/wine64
windows_cli() {
  [[ -n $win_cli || -n $win_why ]] && return
  local cross=$root/build/cross/x86_64-windows/core/cli/snowflake-c.exe
  local own=$build/x86_64-windows
  if [[ ! -x $wine ]]; then
    win_why="no $wine (Debian wine64)"
  elif ! python3 -m ziglang version >/dev/null 2>&1; then
    win_why="no zig (python3 -m ziglang: scripts/setup installs it)"
  elif [[ -f $cross && -z $(find "$root/core" "$root/meson.build" \
    "$root/meson.options" "$root/cross/x86_64-windows.ini" -newer "$cross" \
    -type f 2>/dev/null | head -1) ]]; then
    win_cli=$cross
  else
    if [[ ! -f $own/build.ninja ]]; then
      meson setup "$own" "$root" --cross-file "$root/cross/x86_64-windows.ini" \
        -Dtests=false -Dinstall_core=false >"$build/x86_64-windows.setup.log" 2>&1 ||
        win_why="meson setup failed: $(tail -1 "$build/x86_64-windows.setup.log")"
    fi
    if [[ -z $win_why ]]; then
      if ninja -C "$own" -j2 core/cli/snowflake-c.exe >"$build/x86_64-windows.build.log" 2>&1; then
        win_cli=$own/core/cli/snowflake-c.exe
      else
        win_why="build failed: $(grep -m1 -i error "$build/x86_64-windows.build.log")"
      fi
    fi
  fi
  [[ -n $win_cli ]] || return
  export WINEDEBUG=-all WINEPREFIX=$build/wineprefix
  if [[ ! -f $WINEPREFIX/system.reg ]]; then
    WINEDLLOVERRIDES="mscoree=;mshtml=" "$wine" wineboot -i >"$build/wineprefix.log" 2>&1
  fi
}

# 1. Windows under wine: two CLIs with another TMP and TEMP, each set by
# cmd.exe as a Windows user would (wine takes them from the registry, not
# from the Linux environment). The holder is bounded (3 s of IDs): a
# process under wine outlives the signal sent to its launcher.
guard_windows() {
  local d=$work/guard-windows
  mkdir -p "$d" "$WINEPREFIX/drive_c/sfc-tmp1" "$WINEPREFIX/drive_c/sfc-tmp2"
  local exe="Z:${win_cli//\//\\}"
  local line="$exe gen --layout $guard_layout --epoch $row_epoch --node worker=3"
  holder=("$wine" cmd /c "set TMP=C:\\sfc-tmp1&& set TEMP=C:\\sfc-tmp1&& $line -n 48000")
  contender=("$wine" cmd /c "set TMP=C:\\sfc-tmp2&& set TEMP=C:\\sfc-tmp2&& $line -n 4000")
  # The holder's pid under wine is a Windows one: any live process.
  holder_named=("")
  local pid rc
  "${holder[@]}" >"$d/1.h.ids" 2>"$d/1.h.err" &
  pid=$!
  if guard_started "$d/1.h.ids" "$pid" 20; then
    "${contender[@]}" >"$d/1.c.ids" 2>"$d/1.c.err"
    rc=$?
    guard_expect_refused "another TMP" "$rc" "$d/1.c.ids" "$d/1.c.err" "" worker=3
    kill -0 "$pid" 2>/dev/null || bad "the holder ended before the contender was refused"
  else
    r_unexp=$((r_unexp + 1))
    bad "the holder did not start: $(head -c 200 "$d/1.h.err")"
  fi
  wait "$pid"
  rc=$?
  holder_named=()
  # Under wine the lines end in CRLF.
  sed -i 's/\r$//' "$d"/*.ids
  [[ $rc = 0 && $(count_ids "$d/1.h.ids") = 48000 ]] ||
    bad "the holder: $(ended "$rc"), $(count_ids "$d/1.h.ids") of 48000 IDs, $(head -c 200 "$d/1.h.err")"
  guard_no_warning "the holder" "$d/1.h.err"
  guard_count "$d"
  note "the second refused: $(grep -o 'host-wide claim [^)]*' "$d/1.c.err" | head -1)"
}

# 2. Options: a state_dir generator beside a guard-only one (both ways),
# and two different state_dirs. A value per pair: a killed holder cannot
# hand over, and the next pair starts within its last tick.
guard_options() {
  local d=$work/guard-options
  mkdir -p "$d"
  local gen=("$cli" gen --layout "$guard_layout" --epoch "$row_epoch")
  holder_named=()
  holder=("${gen[@]}" --node worker=3 -n 1000000000)
  contender=("${gen[@]}" --node worker=3 -n 4000 --state-dir "$d/a")
  guard_pair "guard-only, then a state_dir" "$d" 1 worker=3
  holder=("${gen[@]}" --node worker=4 -n 1000000000 --state-dir "$d/a")
  contender=("${gen[@]}" --node worker=4 -n 4000)
  guard_pair "a state_dir, then guard-only" "$d" 2 worker=4
  holder=("${gen[@]}" --node worker=5 -n 1000000000 --state-dir "$d/a")
  contender=("${gen[@]}" --node worker=5 -n 4000 --state-dir "$d/b")
  guard_pair "a state_dir, then another one" "$d" 3 worker=5
  guard_count "$d"
  note "3 contenders with other options refused"
}

# 2. A pool (worker=auto with a state_dir) beside guard-only processes
# holding 3 of its 4 values: it takes the fourth; a second pool process
# finds the pool full.
guard_pool() {
  local d=$work/guard-pool i pids=() pid rc took
  local gen=("$cli" gen --layout time:41@1ms,worker:2,seq:4 --epoch "$row_epoch")
  mkdir -p "$d"
  for i in 0 1 2; do
    "${gen[@]}" -n 1000000000 --node "worker=$i" >"$d/h$i.ids" 2>"$d/h$i.err" &
    pids+=($!)
  done
  for i in 0 1 2; do
    guard_started "$d/h$i.ids" "${pids[$i]}" ||
      bad "holder $i did not start: $(head -c 200 "$d/h$i.err")"
  done
  "${gen[@]}" -n 8000 --node worker=auto --state-dir "$d/state" --stats \
    >"$d/p1.ids" 2>"$d/p1.err" &
  pid=$!
  if guard_started "$d/p1.ids" "$pid"; then
    "${gen[@]}" -n 4000 --node worker=auto --state-dir "$d/state" \
      >"$d/p2.ids" 2>"$d/p2.err"
    rc=$?
    guard_expect_refused "a second pool process" "$rc" "$d/p2.ids" "$d/p2.err" "" "worker"
  else
    bad "the pool process did not start: $(head -c 200 "$d/p1.err")"
  fi
  wait "$pid"
  rc=$?
  took=$(grep -o 'worker=[0-9]*(pool)' "$d/p1.err")
  r_faults=$((r_faults + 1))
  if [[ $rc = 0 && $took = "worker=3(pool)" && $(count_ids "$d/p1.ids") = 8000 ]]; then
    r_exp=$((r_exp + 1))
  else
    bad "the pool process: $(ended "$rc"), $(count_ids "$d/p1.ids") of 8000 IDs, took ${took:-nothing}: $(head -c 200 "$d/p1.err")"
  fi
  guard_no_warning "the pool process" "$d/p1.err"
  for i in 0 1 2; do
    guard_stop_holder "holder $i" "${pids[$i]}" "$d/h$i.err"
    guard_no_warning "holder $i" "$d/h$i.err"
  done
  guard_count "$d"
  note "the pool took ${took:-nothing}, the free value; then full"
}

# Another user's copy of the CLI: one any user can run.
users_cli() {
  if [[ ! -x $work/users/snowflake-c ]]; then
    chmod 0711 "$work"
    mkdir -m 0755 "$work/users"
    cp "$cli" "$work/users/snowflake-c"
    chmod 0755 "$work/users/snowflake-c"
  fi
  ucli=$work/users/snowflake-c
}
# The prefix that runs a command as that user and group, no other groups,
# in as_user (the command's pid is the process's own).
as() { # uid
  as_user=(setpriv --reuid="$1" --regid="$1" --clear-groups env -u XDG_RUNTIME_DIR)
}

# 3. Users: two uids with the same value, both ways; the refusal names the
# holder's uid.
guard_users() {
  local d=$work/guard-users other=$((61000 + RANDOM % 4000)) ucli as_user
  users_cli
  mkdir -p "$d"
  local gen=("$ucli" gen --layout "$guard_layout" --epoch "$row_epoch" --node worker=3)
  holder_named=()
  as 65534
  holder=("${as_user[@]}" "${gen[@]}" -n 1000000000)
  contender=(env -u XDG_RUNTIME_DIR "${gen[@]}" -n 4000)
  guard_pair "uid 65534, then root" "$d" 1 "of uid 65534 "
  as "$other"
  holder=(env -u XDG_RUNTIME_DIR "${gen[@]}" -n 1000000000)
  contender=("${as_user[@]}" "${gen[@]}" -n 4000)
  guard_pair "root, then uid $other" "$d" 2 "of uid 0 "
  guard_count "$d"
  note "refused naming the holder's uid (65534, 0)"
}

# 3. Squatters: another user (65534) creates the victim's old guard
# folders, /dev/shm/snowflake-c-<uid> and /tmp/snowflake-c-<uid>, and then
# a file named as the victim's hand-over record of the value. The victim's
# two processes with one value: the second refused, or (the record's name
# taken) creation fails with StateError — never both running.
guard_squat() {
  local d=$work/guard-squat victim ucli hex f pid i as_user squatter
  users_cli
  for ((i = 0; i < 20; i++)); do
    victim=$((61000 + RANDOM % 4000))
    [[ -e /dev/shm/snowflake-c-$victim || -e /tmp/snowflake-c-$victim ]] || break
  done
  mkdir -p "$d"
  local gen=("$ucli" gen --layout "$guard_layout" --epoch "$row_epoch" --node worker=3)
  as 65534
  squatter=("${as_user[@]}")
  as "$victim"
  "${squatter[@]}" mkdir -m 0700 "/dev/shm/snowflake-c-$victim" "/tmp/snowflake-c-$victim"
  holder_named=()
  holder=("${as_user[@]}" "${gen[@]}" -n 1000000000)
  contender=("${as_user[@]}" "${gen[@]}" -n 4000)
  guard_pair "the old guard folders squatted" "$d" 1 worker=3
  # The claim's name, as the victim's generator reports it.
  hex=$("${as_user[@]}" "${gen[@]}" -n 0 --stats 2>&1 |
    grep -o 'held: @snowflake-c/claim/[0-9a-f]*' | sed 's/.*claim\///')
  if [[ -n $hex ]]; then
    f=/dev/shm/snowflake-c-$hex.u$victim
    # shellcheck disable=SC2016 # the inner shell's $1
    "${squatter[@]}" sh -c 'echo squatted >"$1"' squat "$f"
    r_faults=$((r_faults + 1))
    "${as_user[@]}" "${gen[@]}" -n 1000000000 >"$d/2.a.ids" 2>"$d/2.a.err" &
    pid=$!
    guard_started "$d/2.a.ids" "$pid" 2
    "${as_user[@]}" "${gen[@]}" -n 4000 >"$d/2.b.ids" 2>"$d/2.b.err"
    local -A rcs=([b]=$?)
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rcs[a]=$?
    if [[ -s $d/2.a.ids && -s $d/2.b.ids ]]; then
      bad "the record's name squatted: both ran"
    fi
    # Each ran (a until its SIGTERM, b to its 4000th ID) or was refused.
    local -A ran=([a]=143 [b]=0)
    for i in a b; do
      if [[ -s $d/2.$i.ids ]]; then
        guard_no_warning "the record's name squatted, process $i" "$d/2.$i.err"
        [[ ${rcs[$i]} = "${ran[$i]}" ]] ||
          bad "the record's name squatted, process $i: $(ended "${rcs[$i]}") after $(count_ids "$d/2.$i.ids") IDs"
        [[ $i = a || $(count_ids "$d/2.b.ids") = 4000 ]] ||
          bad "the record's name squatted, process b: $(count_ids "$d/2.b.ids") of 4000 IDs"
      elif [[ ${rcs[$i]} = 1 ]] && grep -qE 'StateError|WorkerUnavailable' "$d/2.$i.err"; then
        r_exp=$((r_exp + 1))
      else
        r_unexp=$((r_unexp + 1))
        bad "the record's name squatted, process $i: $(head -c 200 "$d/2.$i.err")"
      fi
    done
    note "old guard folders squatted: the second refused; the record's name squatted: $(
      grep -ho '^snowflake-c: [A-Za-z]*' "$d"/2.?.err | cut -c14- | sort | uniq -c |
        awk '{ printf "%s%s×%s", sep, $2, $1; sep = ", " }')"
    rm -f "$f"
  else
    note "old guard folders squatted: the second refused; no claim name to squat"
    bad "the victim's generator reports no host-wide claim"
  fi
  rm -rf "/dev/shm/snowflake-c-$victim" "/tmp/snowflake-c-$victim"
  guard_count "$d"
}

# 4. Field names: datacenter=1,worker=3 of datacenter:5,worker:5 and
# worker=35 of worker:10 are the same node bits; same epoch, same time and
# sequence fields: the same IDs.
guard_field_names() {
  local d=$work/guard-names
  mkdir -p "$d"
  holder_named=()
  holder=("$cli" gen -n 1000000000 --layout time:41@1ms,datacenter:5,worker:5,seq:12
    --epoch "$row_epoch" --node datacenter=1,worker=3)
  contender=("$cli" gen -n 400000 --layout time:41@1ms,worker:10,seq:12
    --epoch "$row_epoch" --node worker=35)
  guard_pair "datacenter=1,worker=3, then worker=35" "$d" 1 worker=35
  guard_count "$d"
  note "worker=35 refused beside datacenter=1,worker=3"
}

# 5, 6. The hand-over of a value given back ahead of the wall clock, with
# no state_dir (drivers/handover.c under libfaketime): `table`, the default
# preset's fields stepped back 10 s then 2 s more (two clock bumps); or
# `monotonic`, time_source=monotonic with the wall clock stepped back 2 s.
# The generator closes; a new process takes the value while the wall clock
# is still behind and generates long enough to reach every tick the first
# one used.
# Each run proves its fault happened (the driver measures every step of
# the wall clock it makes; the successor must start more than a second
# behind the first one's last tick), so a run without libfaketime fails.
guard_handover() { # table|monotonic
  local d=$work/handover-$1 out ms rc
  ms=$(q 150 500)
  mkdir -p "$d"
  echo "+0" >"$d/offset"
  local run=(env LD_PRELOAD="$faketime_lib" FAKETIME_TIMESTAMP_FILE="$d/offset"
    FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1)
  out=$("${run[@]}" "$bin/handover" "$1" first "$ms" "$d/first.ids" 2>"$d/first.err")
  rc=$?
  add_result "first" "$out" "$rc"
  [[ $out = *RESULT* ]] || tail -3 "$d/first.err" >&2
  local first=${out#* note=}
  out=$("${run[@]}" "$bin/handover" "$1" next $((2200 + 2 * ms)) "$d/next.ids" \
    "$d/first.ids" 2>"$d/next.err")
  rc=$?
  add_result "next" "$out" "$rc"
  [[ $out = *RESULT* ]] || tail -3 "$d/next.err" >&2
  guard_count "$d"
  note "$first; ${out#* note=}"
}

# 7. The name after many refusals (a crash loop): a holder, then more than
# 64 refused starts of its value (in the full form, more than the kernel's
# listen queue, net.core.somaxconn); then a cleaner empties the holder's
# folders and another start comes. Guard-only (the runtime folder emptied),
# then with a state_dir (its lock file removed).
guard_refusals() {
  local d=$work/guard-refusals n max i rc pid refused
  max=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096)
  n=$(q 70 $((max < 4900 ? max + 100 : 5000)))
  mkdir -p "$d/xdg"
  chmod 0700 "$d/xdg"
  local gen=(env XDG_RUNTIME_DIR="$d/xdg" "$cli" gen --layout "$guard_layout"
    --epoch "$row_epoch")
  local kind extra
  for kind in guard-only state_dir; do
    extra=(--node worker=3)
    [[ $kind = state_dir ]] && extra=(--node worker=4 --state-dir "$d/state")
    "${gen[@]}" "${extra[@]}" -n 1000000000 >"$d/$kind.h.ids" 2>"$d/$kind.h.err" &
    pid=$!
    if ! guard_started "$d/$kind.h.ids" "$pid"; then
      bad "$kind: the holder did not start: $(head -c 200 "$d/$kind.h.err")"
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      continue
    fi
    mkdir -p "$d/$kind"
    # n refused starts, 4 at a time.
    # shellcheck disable=SC2016 # the inner shell's variables
    seq 1 "$n" | D=$d/$kind xargs -P 4 -I{} sh -c \
      '"$@" -n 4000 >"$D/{}.ids" 2>"$D/{}.err"; echo $? >"$D/{}.rc"' refusal \
      "${gen[@]}" "${extra[@]}"
    # Refused: exit 1 (an error told), WorkerUnavailable, no ID.
    refused=0
    for i in $(seq 1 "$n"); do
      [[ $(cat "$d/$kind/$i.rc") = 1 && ! -s $d/$kind/$i.ids ]] &&
        grep -q WorkerUnavailable "$d/$kind/$i.err" && refused=$((refused + 1))
    done
    r_faults=$((r_faults + n))
    r_exp=$((r_exp + refused))
    ((refused == n)) || bad "$kind: $((n - refused)) of $n starts not refused: $(
      grep -L WorkerUnavailable "$d/$kind"/*.err | head -1 | xargs -r head -c 200)"
    # A temp-folder cleaner.
    if [[ $kind = guard-only ]]; then
      rm -rf "${d:?}/xdg/"*
    else
      rm -f "$d/state/worker-4.lock"
    fi
    "${gen[@]}" "${extra[@]}" -n 4000 >"$d/$kind.c.ids" 2>"$d/$kind.c.err"
    rc=$?
    guard_expect_refused "$kind: after $n refusals and the cleaner" "$rc" \
      "$d/$kind.c.ids" "$d/$kind.c.err" "" "${extra[1]}"
    guard_stop_holder "$kind" "$pid" "$d/$kind.h.err"
    guard_no_warning "$kind: the holder" "$d/$kind.h.err"
  done
  r_ids=$(complete_lines "$d"/*.ids "$d"/*/*.ids | wc -l)
  r_dups=$(dup_count "$d"/*.ids "$d"/*/*.ids)
  note "$n refusals each, then refused after the cleaner: guard-only, state_dir; last said: $(
    grep -o 'held by [^(]*' "$d/state_dir.c.err" | head -1 | sed 's/ *$//')"
}

# 8. Too few file descriptors: a Python process with RLIMIT_NOFILE 40
# creating 30 generators (python/nofile.py): each starts guarded or fails
# with StateError; while it generates, another process tries each value it
# holds, and is refused.
guard_nofile() {
  local d=$work/guard-nofile pid held v i rc out
  mkdir -p "$d"
  "$py" "$here/python/nofile.py" 40 30 "$guard_layout" "$row_epoch" \
    "$d/python.ids" "$d/stop" >"$d/python.out" 2>"$d/python.err" &
  pid=$!
  for ((i = 0; i < 1000; i++)); do
    grep -q '^HELD' "$d/python.out" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  held=$(sed -n 's/^HELD //p' "$d/python.out")
  for v in $held; do
    "$cli" gen -n 2000 --layout "$guard_layout" --epoch "$row_epoch" \
      --node "worker=$v" >"$d/c$v.ids" 2>"$d/c$v.err"
    rc=$?
    guard_expect_refused "worker $v" "$rc" "$d/c$v.ids" "$d/c$v.err" "$pid" "worker=$v"
  done
  touch "$d/stop"
  wait "$pid"
  rc=$?
  out=$(cat "$d/python.out")
  add_result "python" "$out" "$rc"
  [[ $out = *RESULT* ]] || tail -3 "$d/python.err" >&2
  [[ -n $held ]] || bad "no generator started"
  guard_count "$d"
  note "${out#* note=}; each held value refused to another process"
}

# 8. A layout of 8 node fields with 31-character names: guarded, without
# and with a state_dir, and a second process refused.
guard_long_names() {
  local d=$work/guard-long i name layout=time:41@1ms node="" rc
  for i in 1 2 3 4 5 6 7 8; do
    name=field${i}_xxxxxxxxxxxxxxxxxxxxxxxx
    layout+=",$name:1"
    node+="${node:+,}$name=1"
  done
  layout+=",seq:4"
  mkdir -p "$d"
  local gen=("$cli" gen --layout "$layout" --epoch "$row_epoch" --node "$node")
  local kind extra
  holder_named=()
  for kind in guard-only state_dir; do
    extra=()
    [[ $kind = state_dir ]] && extra=(--state-dir "$d/state")
    "${gen[@]}" "${extra[@]}" -n 100 --stats >"$d/$kind.s.ids" 2>"$d/$kind.s.err"
    rc=$?
    r_faults=$((r_faults + 1))
    if [[ $rc = 0 && $(count_ids "$d/$kind.s.ids") = 100 ]] &&
      grep -q 'guard="held: ' "$d/$kind.s.err" && ! grep -qi warning "$d/$kind.s.err"; then
      r_exp=$((r_exp + 1))
    else
      bad "$kind: not guarded: $(ended "$rc"), $(count_ids "$d/$kind.s.ids") of 100 IDs, $(head -c 200 "$d/$kind.s.err")"
    fi
    holder=("${gen[@]}" "${extra[@]}" -n 1000000000)
    contender=("${gen[@]}" "${extra[@]}" -n 4000)
    guard_pair "$kind" "$d" "$kind" "field1_"
  done
  guard_count "$d"
  note "8 fields of 31-character names: guarded, the second refused, without and with a state_dir"
}

# 9. A forked helper that never uses the generator (drivers/guardfork.c
# helper): the parent frees its generator and exits while the helper
# lives; the value is taken again at once. Without and with a state_dir.
guard_fork_helper() {
  local d=$work/guard-helper kind out helper rc
  mkdir -p "$d"
  for kind in guard-only state_dir; do
    local extra=()
    [[ $kind = state_dir ]] && extra=(--state-dir "$d/state")
    out=$("$bin/guardfork" helper "$d/$kind.parent.ids" "${extra[@]:1}" 2>"$d/$kind.err")
    rc=$?
    add_result "$kind: parent" "$out" "$rc"
    helper=$(sed -n 's/^HELPER //p' <<<"$out")
    "$cli" gen -n 2000 --layout "$default_fields" --epoch "$row_epoch" \
      --node worker=21 "${extra[@]}" --stats >"$d/$kind.next.ids" 2>"$d/$kind.next.err"
    rc=$?
    r_faults=$((r_faults + 1))
    # Still alive once the restart is over (it sleeps 30 s): the restart
    # did not wait for the helper to end.
    if [[ -z $helper ]] || ! kill -0 "$helper" 2>/dev/null; then
      bad "$kind: the helper was not alive after the restart"
    fi
    if [[ $rc = 0 && $(count_ids "$d/$kind.next.ids") = 2000 ]]; then
      r_exp=$((r_exp + 1))
      guard_no_warning "$kind: the restart" "$d/$kind.next.err"
    else
      r_unexp=$((r_unexp + 1))
      bad "$kind: the restart: $(ended "$rc"), $(count_ids "$d/$kind.next.ids") of 2000 IDs, $(head -c 200 "$d/$kind.next.err")"
    fi
    [[ -n $helper ]] && kill "$helper" 2>/dev/null
  done
  guard_count "$d"
  note "the value taken again beside the live helper, without and with a state_dir"
}

guard_scenarios() {
  scenario "guard, same value, 2 processes" guard_same_value
  if [[ $(id -u) = 0 ]] && unshare -u true 2>/dev/null; then
    scenario "guard, host name in a pod" guard_pod_host
    scenario "guard, pod recipe, 4 processes" guard_pod_recipe
  else
    skip "guard, host name in a pod" "needs root for unshare -u"
    skip "guard, pod recipe, 4 processes" "needs root for unshare -u"
  fi
  scenario "guard, distinct values, 100 procs" guard_distinct
  scenario "guard, killed holder restarted" guard_killed
  if [[ $(id -u) = 0 ]] && unshare -m true 2>/dev/null; then
    scenario "guard, no folder for records" guard_records_unusable
  else
    skip "guard, no folder for records" "needs root for unshare -m"
  fi
  scenario "guard, fork children" guard_fork
  scenario "guard, another environment" guard_environment
  if selected "guard, Windows, another TMP"; then
    echo "== the x86_64-windows CLI, for wine"
    windows_cli
    if [[ -n $win_cli ]]; then
      scenario "guard, Windows, another TMP" guard_windows
    else
      skip "guard, Windows, another TMP" "$win_why"
    fi
  fi
  scenario "guard, state_dir beside guard-only" guard_options
  scenario "guard, pool beside guard-only" guard_pool
  if [[ $(id -u) = 0 ]]; then
    scenario "guard, another user" guard_users
    scenario "guard, another user squats names" guard_squat
  else
    skip "guard, another user" "needs root to run as other users"
    skip "guard, another user squats names" "needs root to run as other users"
  fi
  scenario "guard, other field names" guard_field_names
  if [[ -n $faketime_lib ]]; then
    scenario "guard, hand-over, clock table" guard_handover table
    scenario "guard, hand-over, monotonic" guard_handover monotonic
  else
    skip "guard, hand-over, clock table" "libfaketimeMT not installed"
    skip "guard, hand-over, monotonic" "libfaketimeMT not installed"
  fi
  scenario "guard, refusals, then a cleaner" guard_refusals
  if [[ -n $py ]]; then
    scenario "guard, 40 files, 30 generators" guard_nofile
  else
    skip "guard, 40 files, 30 generators" "binding not built: run python/run-tests.sh first"
  fi
  scenario "guard, 8 fields of 31-char names" guard_long_names
  scenario "guard, forked helper lives on" guard_fork_helper
}
