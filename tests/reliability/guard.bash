# Sourced by tests/reliability/run: the host-wide guard — two processes
# given one static node value (CLI and Python, with no configuration at
# all), `host` in a pod-like namespace, the pod recipe (host + pool field),
# 100 processes with distinct values, a killed holder restarted at once, an
# unusable guard folder, and a forked child of a guarded generator. Uses the
# runner's helpers (begin/bad/note, r_*, dup_count, complete_lines,
# count_ids) and $cli, $bin, $py, $work, $here.
# shellcheck disable=SC2154,SC2034 # the runner's variables, set and read there
# shellcheck disable=SC2054 # commas inside layout specs, not array separators

# A slow layout (16 IDs per ms): a holder is still running when the next
# process comes, and 100 processes are alive together.
guard_layout=time:41@1ms,worker:10,seq:4

# Runs `gen` of the CLI (cli) or of the Python binding (py) in the
# environment the runner was started with (the guard's default folder, no
# configuration), replacing the calling subshell so that its pid is the
# generator's: call it as `(guard_gen …) &` or `(guard_gen …)`.
guard_gen() { # cli|py, count, layout, epoch, node, CLI options...
  local kind=$1 n=$2 layout=$3 epoch=$4 node=$5
  shift 5
  if [[ $kind = py ]]; then
    exec "${caller_env[@]}" "$py" "$here/python/gen.py" "$n" "$layout" "$epoch" "$node"
  fi
  exec "${caller_env[@]}" "$cli" gen -n "$n" --layout "$layout" --epoch "$epoch" \
    --node "$node" "$@"
}

# Runs a command under the host name orders-7, in a UTS namespace of its
# own (as a container of a StatefulSet pod), replacing the calling subshell
# as guard_gen does.
guard_pod() { # command...
  exec unshare -u bash -c 'hostname orders-7 && exec "$@"' guard_pod "$@"
}

# Waits (up to 5 s) until a process has written its first ID; fails if it
# ends first.
guard_started() { # ids file, pid
  local i
  for ((i = 0; i < 500; i++)); do
    [[ -s $1 ]] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}

# The second process must be refused: exit non-zero, WorkerUnavailable
# naming the holder's pid (and `what`), no ID.
guard_expect_refused() { # label, rc, ids file, err file, holder pid, what
  r_faults=$((r_faults + 1))
  if [[ $2 != 0 && ! -s $3 ]] && grep -q WorkerUnavailable "$4" &&
    grep -q "live process $5 " "$4" && grep -qF "$6" "$4"; then
    r_exp=$((r_exp + 1))
  else
    bad "$1: exit $2, $(head -c 300 "$4")"
  fi
}

# The holder must still be running (the refusal did not disturb it); it is
# then stopped.
guard_stop_holder() { # label, pid, err file
  if ! kill -0 "$2" 2>/dev/null; then
    r_unexp=$((r_unexp + 1))
    bad "$1: the holder stopped: $(head -c 200 "$3")"
  fi
  kill -TERM "$2" 2>/dev/null
  wait "$2" 2>/dev/null
}

# Two processes given the same static value, with no configuration at all
# (the guard's default folder): the second is refused naming the first's
# pid. CLI after CLI, and with the Python binding on either side. The
# layout's epoch is this run's own, so that no other generator on the
# machine has these values.
guard_same_value() {
  local d=$work/guard-same pair i=0 pid rc epoch
  local -a pairs=(cli:cli)
  [[ -n $py ]] && pairs+=(cli:py py:cli)
  epoch=$((1704067200000 + ($$ % 100000) * 1000 + RANDOM % 1000))
  mkdir -p "$d"
  for pair in "${pairs[@]}"; do
    i=$((i + 1))
    (guard_gen "${pair%:*}" 1000000000 "$guard_layout" "$epoch" worker=3) \
      >"$d/ids.$i.1" 2>"$d/err.$i.1" &
    pid=$!
    if ! guard_started "$d/ids.$i.1" "$pid"; then
      bad "$pair: the first did not start: $(head -c 200 "$d/err.$i.1")"
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      continue
    fi
    (guard_gen "${pair#*:}" 1000 "$guard_layout" "$epoch" worker=3) \
      >"$d/ids.$i.2" 2>"$d/err.$i.2"
    rc=$?
    guard_expect_refused "$pair" "$rc" "$d/ids.$i.2" "$d/err.$i.2" "$pid" \
      "worker=3"
    guard_stop_holder "$pair" "$pid" "$d/err.$i.1"
  done
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "no configuration; refused naming the holder: ${pairs[*]/:/→}; $(
    grep -o 'guard folder [^)]*' "$d/err.1.2" | head -1)"
}

# Two processes with worker=host under the host name orders-7: both read
# worker 7, and the second is refused.
guard_pod_host() {
  local d=$work/guard-pod pid rc first
  local args=(--layout "$guard_layout" --epoch 2024-01-01 --node worker=host
    --guard-dir "$d/guard")
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
  "$cli" decode --layout "$guard_layout" --epoch 2024-01-01 --json "$first" |
    grep -q '"worker":7,' || bad "the holder's IDs are not worker 7: $first"
  guard_stop_holder "holder" "$pid" "$d/err.1"
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "worker 7 from the host name; the second refused"
}

# The recipe for several processes per pod: a host field and a pool field
# (pod=host,proc=auto with a state_dir), 4 processes together.
guard_pod_recipe() {
  local d=$work/guard-recipe i rc pids=() procs pods
  local args=(--layout time:41@1ms,pod:8,proc:4,seq:4 --epoch 2024-01-01
    --node pod=host,proc=auto --state-dir "$d/state" --stats)
  mkdir -p "$d"
  for i in 1 2 3 4; do
    (guard_pod "$cli" gen -n "$(q 16000 48000)" "${args[@]}") >"$d/ids.$i" \
      2>"$d/err.$i" &
    pids+=($!)
  done
  for i in 1 2 3 4; do
    wait "${pids[$((i - 1))]}"
    rc=$?
    if [[ $rc != 0 ]] || grep -v '^ids_issued=' "$d/err.$i" | grep -q .; then
      r_unexp=$((r_unexp + 1))
      bad "process $i: exit $rc, $(head -c 200 "$d/err.$i")"
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

# 100 processes with distinct values, started together in one guard
# folder: every one starts, guarded, and removes its lock file at exit.
guard_distinct() {
  local d=$work/guard-distinct n=100 i rc pids=() held left
  local args=(--layout "$guard_layout" --epoch 2024-01-01 --guard-dir "$d/guard"
    --stats)
  mkdir -p "$d"
  for ((i = 0; i < n; i++)); do
    "$cli" gen -n "$(q 8000 32000)" "${args[@]}" --node "worker=$i" \
      >"$d/ids.$i" 2>"$d/err.$i" &
    pids+=($!)
  done
  sleep 0.3
  held=$(find "$d/guard" -name '*.lock' 2>/dev/null | wc -l)
  for ((i = 0; i < n; i++)); do
    wait "${pids[$i]}"
    rc=$?
    if [[ $rc != 0 ]] || grep -v '^ids_issued=' "$d/err.$i" | grep -q . ||
      ! grep -q 'guard="held: ' "$d/err.$i"; then
      r_unexp=$((r_unexp + 1))
      bad "worker $i: exit $rc, $(head -c 200 "$d/err.$i")"
    fi
  done
  # A holder that leaves while the clock is not yet past its last tick (the
  # wall clock of a loaded machine can lag for a moment) keeps that tick in
  # its lock file for the next holder of the value; any other file left is
  # a leak.
  local kept
  kept=$(find "$d/guard" -name '*.lock' -exec grep -l '^last [0-9]' {} + 2>/dev/null | wc -l)
  left=$(($(find "$d/guard" -name '*.lock' | wc -l) - kept))
  ((left == 0)) || bad "$left lock files left in the guard folder"
  r_ids=$(complete_lines "$d"/ids.* | wc -l)
  r_dups=$(dup_count "$d"/ids.*)
  note "$n processes started, $held lock files at once, none left ($kept kept a last tick)"
}

# A holder killed with SIGKILL: a new process with its value starts at once
# (the kernel released the lock file and the host-wide name).
guard_killed() {
  local d=$work/guard-killed i rounds pid rc t0 ms worst=0
  local args=(--layout "$guard_layout" --epoch 2024-01-01 --node worker=9
    --guard-dir "$d/guard")
  rounds=$(q 5 20)
  mkdir -p "$d"
  for ((i = 0; i < rounds; i++)); do
    "$cli" gen -n 1000000000 "${args[@]}" >"$d/ids.$i" 2>"$d/err.$i" &
    pid=$!
    guard_started "$d/ids.$i" "$pid" ||
      bad "round $i: the holder did not start: $(head -c 200 "$d/err.$i")"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    r_faults=$((r_faults + 1))
    t0=$(date +%s%N)
    timeout 10 "$cli" gen -n 2000 "${args[@]}" >"$d/next.$i" 2>"$d/next-err.$i"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    ((ms > worst)) && worst=$ms
    if [[ $rc != 0 ]]; then
      r_unexp=$((r_unexp + 1))
      bad "round $i: the next holder: exit $rc, $(head -c 200 "$d/next-err.$i")"
    fi
  done
  # 2000 IDs at 16 per ms take 125 ms: anything near a second waited.
  ((worst < 1000)) || bad "a restart took $worst ms"
  r_ids=$(complete_lines "$d"/ids.* "$d"/next.* | wc -l)
  r_dups=$(dup_count "$d"/ids.* "$d"/next.*)
  note "$rounds holders killed, each value taken again at once (slowest run $worst ms)"
}

# A guard folder that cannot be used: the generator starts, warns, and its
# counters say why; and issues its IDs.
guard_unguarded() { # label, guard dir, node
  local d=$work/guard-unusable rc
  "$cli" gen -n 1000 --layout "$guard_layout" --epoch 2024-01-01 --node "$3" \
    --guard-dir "$2" --stats >"$d/out" 2>"$d/err"
  rc=$?
  r_faults=$((r_faults + 1))
  if [[ $rc = 0 && $(count_ids "$d/out") = 1000 ]] &&
    grep -q 'warning: no host-wide guard' "$d/err" &&
    grep -q 'guard="unavailable: ' "$d/err"; then
    r_exp=$((r_exp + 1))
  else
    bad "$1: exit $rc, $(head -c 200 "$d/err")"
  fi
  cat "$d/out" >>"$d/all.ids"
}

guard_unusable() {
  local d=$work/guard-unusable rc epoch
  mkdir -p "$d"
  : >"$d/file"
  guard_unguarded "a regular file" "$d/file" worker=1
  mkdir -m 0770 "$d/group"
  guard_unguarded "a group-writable folder" "$d/group" worker=2
  if [[ $(id -u) = 0 ]]; then
    mkdir -m 0700 "$d/foreign"
    chown nobody "$d/foreign"
    guard_unguarded "a folder owned by nobody" "$d/foreign" worker=3
    # The default folder of $XDG_RUNTIME_DIR owned by someone else: the
    # next default folder guards instead (this run's own epoch).
    mkdir -p "$d/xdg"
    mkdir -m 0700 "$d/xdg/snowflake-c"
    chown nobody "$d/xdg/snowflake-c"
    epoch=$((1704067200000 + ($$ % 100000) * 1000 + RANDOM % 1000))
    XDG_RUNTIME_DIR=$d/xdg "$cli" gen -n 1000 --layout "$guard_layout" \
      --epoch "$epoch" --node worker=4 --stats >>"$d/all.ids" 2>"$d/err"
    rc=$?
    r_faults=$((r_faults + 1))
    if [[ $rc = 0 ]] && grep -q 'guard="held: /' "$d/err" &&
      ! grep -q "guard=\"held: $d/xdg" "$d/err" && ! grep -q warning "$d/err"; then
      r_exp=$((r_exp + 1))
    else
      bad "\$XDG_RUNTIME_DIR/snowflake-c owned by nobody: exit $rc, $(head -c 200 "$d/err")"
    fi
  fi
  r_ids=$(count_ids "$d/all.ids")
  r_dups=$(dup_count "$d/all.ids")
  note "every generator started; each unusable folder said why"
}

# A forked child of a guarded generator (drivers/guardfork.c).
guard_fork() {
  local out
  out=$("$bin/guardfork" "$work/guard-fork" 2>"$work/guard-fork.err")
  add_result "guard fork" "$out"
  [[ $out = *RESULT* ]] || tail -5 "$work/guard-fork.err" >&2
  note "${out#* note=}"
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
  scenario "guard, folder unusable" guard_unusable
  scenario "guard, fork children" guard_fork
}
