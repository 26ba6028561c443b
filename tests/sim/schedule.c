/* Schedules: made from a seed, run on a fresh simulated host, printed as
 * text that replays them, shortened while they still fail. */
#define _GNU_SOURCE
#include "schedule.h"

#include "kernel.h"
#include "leasedb.h"
#include "model_lease.h"
#include "proto.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define PROCS 24

static const char *const kind_names[A_KINDS] = {
    "",           "spawn",  "create",  "next",       "next_now", "batch",
    "next_at",    "close",  "free",    "fork",       "exit",     "kill",
    "exec",       "signal", "thread",  "step_clock", "freeze",   "advance",
    "reboot",     "forge",  "db_down", "db_cut",     "db_clock", "pause",
    "host_clock", "trickle"};

/* --- making one
 * ---------------------------------------------------------------- */

static uint64_t gen_state;
static uint64_t rnd(uint64_t n) {
  uint64_t z = (gen_state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  z ^= z >> 31;
  return n ? z % n : z;
}

/* Whether the i-th action makes again what the process's other slot holds:
 * one in three, from the seed's state without moving it on. */
static bool again(size_t i) {
  uint64_t z = gen_state ^ (i * UINT64_C(0xD1B54A32D192ED03));
  z = (z ^ (z >> 29)) * UINT64_C(0xBF58476D1CE4E5B9);
  return (z ^ (z >> 32)) % 3 == 0;
}

/* Layouts that alias one another: the same worker bits under a clock field
 * or a node field, other epochs, coarse ticks, a small sequence. */
static const struct {
  const char *spec, *node;
} layouts[] = {
    {"time:41@1ms,clock:3,worker:7,seq:6", "worker=5"},
    {"time:41@1ms,dc:3,worker:7,seq:6", "dc=0,worker=5"},
    {"time:41@1ms,worker:10,seq:6", "worker=5"},
    {"time:33@1s,clock:2,worker:7,seq:6", "worker=5"},
    {"time:39@10ms,clock:3,worker:7,seq:6", "worker=5"},
    {"time:41@1ms,clock:3,worker:7,seq:12", "worker=5"},
    {"time:41@1ms,clock:1,worker:7,seq:3", "worker=5"},
};
#define LAYOUTS (sizeof layouts / sizeof layouts[0])

/* Options as a binding sets them; `cap` holds the longest (140 bytes). */
static void options_for(char *buf, size_t cap, bool pool, bool shared) {
  static const char *const rollbacks[] = {"default", "error",  "wait",
                                          "clock",   "borrow", "switch"};
  int r = (int)rnd(pool ? 6 : 5);
  size_t n = (size_t)snprintf(buf, cap, "rollback=%s", rollbacks[r]);
  if (r == 4 || rnd(4) == 0)
    n += (size_t)snprintf(buf + n, cap - n, ",max_drift=%d",
                          (int[]){0, 5, 50, 3000}[rnd(4)]);
  if (rnd(3) == 0)
    n += (size_t)snprintf(buf + n, cap - n, ",max_wait=%d",
                          (int[]){0, 5, 100, 3000}[rnd(4)]);
  if (!shared && rnd(3) == 0)
    n += (size_t)snprintf(buf + n, cap - n, ",time_source=%s",
                          rnd(2) ? "monotonic" : "counter");
  if (pool || rnd(4) == 0)
    n += (size_t)snprintf(buf + n, cap - n, ",state_dir=%s",
                          rnd(3) ? "/var/lib/sfc/a" : "/var/lib/sfc/b");
  if (rnd(8) == 0)
    n += (size_t)snprintf(buf + n, cap - n, ",random_start=true");
  if (rnd(12) == 0) n += (size_t)snprintf(buf + n, cap - n, ",guard=false");
  if (rnd(3) == 0)
    snprintf(buf + n, cap - n, ",state_reserve=%d",
             (int[]){1, 20, 500}[rnd(3)]);
}

static action *add(schedule *out, int kind, int proc, int steps) {
  action *a = &out->actions[out->count++];
  memset(a, 0, sizeof *a);
  a->kind = kind;
  a->proc = proc;
  a->steps = steps;
  return a;
}

static void add_ids(schedule *out, int proc, int steps) {
  action *a = add(out, A_NEXT + (int)rnd(3), proc, steps);
  a->n = 1 + (int64_t)rnd(a->kind == A_BATCH ? 200 : 30);
}

/* A process for the chain: beside the first, mostly; by `place`, sometimes
 * in another mount or network namespace, or of another user. */
static int chain_spawn(schedule *out, int *procs, int place) {
  action *a = add(out, A_SPAWN, *procs, 0);
  const bool apart = *procs > 0 && place >= 3 && rnd(2);
  a->n = apart && place == 3;              /* netns */
  a->slot = apart && place == 4;           /* mntns */
  a->flag = apart && place == 5 && rnd(2); /* another uid */
  return (*procs)++;
}

static void chain_create(schedule *out, int proc, int64_t epoch, int family,
                         bool shared) {
  action *c = add(out, A_CREATE, proc, (int)rnd(3));
  char opts[160];
  options_for(opts, sizeof opts, false, shared);
  const int l = rnd(8) ? family : (int)rnd(LAYOUTS);
  snprintf(c->text, sizeof c->text, "%.40s\n%lld\n%.20s\n%.150s",
           layouts[l].spec, (long long)epoch, layouts[l].node, opts);
  c->flag = shared;
}

/* One draw in two, by a hash of the seed and the action's place rather
 * than rnd: every seed's other actions stay the ones it always made. */
static bool beside_draw(uint64_t seed, size_t at) {
  uint64_t z = (seed + 0xB351DE + at) * UINT64_C(0xBF58476D1CE4E5B9);
  z ^= z >> 31;
  return z % 2 == 0;
}

/* Holder after holder of one value, each ended one of the ways a process
 * ends and followed at once by its successor, with the clock's steps,
 * stops and jumps between, IDs across many ticks (past the record's mark),
 * forked children that outlive the holder, and contenders while it lives:
 * dense where a hand-over can lose what it must carry. */
static void make_chain(schedule *out, size_t cap, int64_t epoch, int family) {
  static const int64_t steps_back[] = {-1000,  -3000,    -20000,
                                       -50000, -2000000, -3000000};
  static const int ends[] = {A_CLOSE, A_FREE, A_KILL,   A_KILL,  A_EXIT,
                             A_EXEC,  A_EXEC, A_SIGNAL, A_REBOOT};
  int procs = 0, holder = -1, lingering = -1;
  const int place = (int)rnd(6);
  while (out->count + 24 < cap && procs < PROCS - 4) {
    if (holder < 0) holder = chain_spawn(out, &procs, place);
    const bool shared = rnd(6) == 0;
    /* A contender of the same user in another network namespace, made at
     * the same moment: only the records can tell them apart. */
    int racer = -1;
    if (rnd(6) == 0) {
      action *a = add(out, A_SPAWN, procs, 0);
      a->n = 1;
      racer = procs++;
    }
    chain_create(out, holder, epoch, family, shared);
    if (racer >= 0) {
      out->actions[out->count - 1].steps = 0;
      chain_create(out, racer, epoch, family, false);
      add_ids(out, racer, 0);
    }
    /* Its first ID at a caller's time, at or before its start: that
     * timeline starts from nothing, the clock's from what was handed. Now
     * and then a thread of its own takes IDs from the clock at once, while
     * that start changes the word. */
    if (rnd(4) == 0) {
      const bool beside = beside_draw(out->seed, out->count);
      if (beside) add(out, A_THREAD, holder, 0);
      add(out, A_NEXT_AT, holder, 0)->n = -(int64_t)rnd(2000);
      if (beside) add(out, A_NEXT, holder, 0)->n = 5;
    }
    /* The last holder's forked child, alive while its successor starts:
     * it must hold nothing of its parent's. */
    if (lingering >= 0) {
      /* Now and then it goes on beside the successor, past the mark the
       * record had when the successor read it: a shared generator's fork
       * must stop once its creator is gone. */
      if (rnd(2)) {
        add_ids(out, holder, 0);
        add(out, A_ADVANCE, holder, 0)->n = 1000 * (20 + rnd(30));
        add_ids(out, lingering, 0);
        add_ids(out, holder, 0);
      }
      add(out, rnd(2) ? A_EXIT : A_KILL, lingering, 0);
      lingering = -1;
    }
    add_ids(out, holder, (int)rnd(4));
    /* IDs across many ticks: the record's mark moves ahead of them. */
    for (int k = (int)rnd(3); k > 0; k--) {
      add(out, A_ADVANCE, holder, 0)->n = 1000 * (5 + rnd(40));
      add_ids(out, holder, (int)rnd(3));
    }
    int child = -1;
    if (rnd(4) == 0) {
      action *f = add(out, A_FORK, holder, (int)rnd(3));
      f->proc2 = child = procs++;
    }
    if (rnd(5) == 0) { /* a contender while the holder lives */
      const int other = chain_spawn(out, &procs, place);
      chain_create(out, other, epoch, family, false);
      add_ids(out, other, 0);
    }
    if (rnd(3)) {
      action *a = add(out, A_STEP_CLOCK, holder, (int)rnd(3));
      a->n = rnd(6) ? steps_back[rnd(6)] : 2000;
      if (rnd(2)) add_ids(out, holder, (int)rnd(4));
    }
    if (rnd(6) == 0) {
      add(out, A_FREEZE, holder, (int)rnd(20))->n = 1;
      add_ids(out, holder, (int)rnd(3));
      add(out, A_FREEZE, holder, 0)->n = 0;
    }
    const int end = ends[rnd(sizeof ends / sizeof ends[0])];
    action *e = add(out, end, holder, (int)rnd(3));
    if (end == A_REBOOT && rnd(2)) e->kind = A_KILL; /* rarer */
    const bool gone =
        e->kind == A_KILL || e->kind == A_EXIT || e->kind == A_REBOOT;
    if (!gone && (e->kind == A_CLOSE || e->kind == A_SIGNAL))
      add(out, A_FREE, holder, 0); /* the slot for the successor */
    /* The forked child after its parent's end: a shared generator's fork
     * must stop, another's refuses; then it ends too. */
    if (child >= 0 && e->kind != A_REBOOT) {
      add_ids(out, child, (int)rnd(3));
      lingering = child;
    }
    if (gone) holder = -1;
    /* A record of another user between them, now and then. */
    if (rnd(10) == 0 && holder >= 0) add(out, A_FORGE, holder, 0)->n = 1;
  }
}

static bool lease_seed(uint64_t seed) {
  uint64_t z = (seed + 0x1EA5E) * UINT64_C(0x9E3779B97F4A7C15);
  z ^= z >> 31;
  return z % 5 == 0;
}

/* One seed in four (by a hash of its own, so that the others make the
 * schedules they always made) runs on a host whose claims are lock files
 * beside the records, as macOS's are. */
static bool file_claims_seed(uint64_t seed) {
  uint64_t z = (seed + 0xF11E) * UINT64_C(0xBF58476D1CE4E5B9);
  z ^= z >> 29;
  return z % 4 == 0;
}

void schedule_make(uint64_t seed, schedule *out) {
  gen_state = seed ^ UINT64_C(0x5EED5EED5EED5EED);
  memset(out, 0, sizeof *out);
  out->seed = seed;
  out->counter_trusted = rnd(2);
  out->claims_by_file = file_claims_seed(seed);
  size_t cap = 40 + rnd(60);
  out->actions = calloc(cap, sizeof *out->actions);
  /* One ID space, mostly: an epoch of the run's own, or aliases of it. */
  const int64_t epoch = 1704067200000LL + (int64_t)rnd(86400000);
  const int family = (int)rnd(LAYOUTS);
  /* One seed in five (by a hash of its own, so that the others make the
   * schedules they always made): leased node values. */
  if (lease_seed(seed)) {
    schedule_make_leases(out, cap, epoch, rnd);
    return;
  }
  /* Every other seed a chain of hand-overs; the others free-form. */
  if (rnd(2) == 0) {
    make_chain(out, cap, epoch, family);
    return;
  }
  /* Most runs keep to one layout; some mix layouts that alias it. */
  const bool aliasing = rnd(10) < 3;
  int procs = 0;
  bool used[PROCS][8] = {{false}};
  bool alive[PROCS] = {false};
  /* What each slot was made from: the same generator made again in the
   * process's other slot (a cell or a reload run twice) takes it over. */
  static char made[PROCS][2][sizeof out->actions[0].text];
  bool made_shared[PROCS][2] = {{false}};
  for (size_t i = 0; i < cap && out->count < cap; i++) {
    action *a = &out->actions[out->count];
    memset(a, 0, sizeof *a);
    a->steps = (int)rnd(rnd(4) == 0 ? 400 : 40);
    int live[PROCS], nlive = 0;
    for (int p = 0; p < procs; p++)
      if (alive[p]) live[nlive++] = p;
    const int what = (int)rnd(100);
    if (nlive == 0 || (what < 8 && procs < PROCS)) {
      if (procs == PROCS) break;
      a->kind = A_SPAWN;
      a->proc = procs;
      a->n = rnd(6) == 0;    /* netns */
      a->slot = rnd(5) == 0; /* mntns */
      a->flag = rnd(8) == 0; /* uid 1001 instead of 1000 */
      alive[procs++] = true;
      out->count++;
      continue;
    }
    a->proc = live[rnd((uint64_t)nlive)];
    a->slot = (int)rnd(2);
    if (what < 24) {
      if (used[a->proc][a->slot]) {
        a->kind = rnd(3) ? A_CLOSE : A_FREE;
        if (a->kind == A_FREE) used[a->proc][a->slot] = false;
        out->count++;
        continue;
      }
      a->kind = A_CREATE;
      int l = !aliasing || rnd(3) ? family : (int)rnd(LAYOUTS);
      const bool pool = rnd(6) == 0;
      const bool shared = !pool && rnd(10) == 0;
      int64_t e = epoch;
      if (aliasing && rnd(3) == 0) e += (int64_t[]){1, 100, 1000, -100}[rnd(4)];
      char node[64], opts[160];
      snprintf(node, sizeof node, "%s", layouts[l].node);
      if (pool) {
        char *w = strstr(node, "worker=");
        snprintf(w + 7, sizeof node - (size_t)(w + 7 - node), "auto");
      }
      options_for(opts, sizeof opts, pool, shared);
      snprintf(a->text, sizeof a->text, "%.40s\n%lld\n%.20s\n%.150s",
               layouts[l].spec, (long long)e, node, opts);
      a->flag = shared;
      /* One create in three beside a live one of the process: made again
       * (not a pool that switches: its caller-timed pattern below stays).
       * Decided off the seed's stream, which goes on as before: every
       * other action of the seed stays as it was. */
      const int other = 1 - a->slot;
      if (used[a->proc][other] && !strstr(opts, "rollback=switch") &&
          again(i)) {
        memcpy(a->text, made[a->proc][other], sizeof a->text);
        a->flag = made_shared[a->proc][other];
      }
      used[a->proc][a->slot] = true;
      memcpy(made[a->proc][a->slot], a->text, sizeof a->text);
      made_shared[a->proc][a->slot] = a->flag;
      /* A pool generator that switches, its first IDs at a caller's
       * times, seconds apart: it leaves a value before the clock's first
       * call. */
      if (strstr(opts, "rollback=switch") && rnd(2) && out->count + 3 < cap) {
        out->count++;
        for (int k = 0; k < 2; k++) {
          action *at = add(out, A_NEXT_AT, a->proc, (int)rnd(3));
          at->slot = a->slot;
          at->n = k ? -1000000 * (1 + (int64_t)rnd(3)) : 0;
        }
        continue;
      }
    } else if (what < 50) {
      a->kind = A_NEXT + (int)rnd(3);
      a->n = 1 + (int64_t)rnd(a->kind == A_BATCH ? 300 : 40);
    } else if (what < 53) {
      a->kind = A_NEXT_AT;
      /* Mostly about now; now and then seconds behind (rollback applies to
       * the caller's times too: a pool generator switches). */
      a->n =
          rnd(8) ? (int64_t)rnd(4000) - 1000 : -1000000 * (1 + (int64_t)rnd(3));
    } else if (what < 57) {
      a->kind = A_FORK;
      if (procs == PROCS) continue;
      a->proc2 = procs;
      alive[procs++] = true;
      memcpy(used[a->proc2], used[a->proc], sizeof used[a->proc]);
    } else if (what < 64) {
      a->kind = (int[]){A_EXIT, A_KILL, A_KILL, A_EXEC}[rnd(4)];
      if (a->kind != A_EXEC) alive[a->proc] = false;
      memset(used[a->proc], 0, sizeof used[a->proc]);
    } else if (what < 67) {
      a->kind = A_SIGNAL;
    } else if (what < 69) {
      a->kind = A_THREAD;
    } else if (what < 80) {
      a->kind = A_STEP_CLOCK;
      static const int64_t steps[] = {-1000,    -3000,   -50000, -2000000,
                                      -3000000, 3000000, 2000,   -3600000000LL};
      a->n = steps[rnd(sizeof steps / sizeof steps[0])];
    } else if (what < 82) {
      a->kind = A_FREEZE;
      a->n = rnd(2);
    } else if (what < 96) {
      a->kind = A_ADVANCE;
      a->n = (int64_t[]){100, 1000, 5000, 100000, 3000000}[rnd(5)];
    } else if (what < 97) {
      a->kind = A_REBOOT;
      for (int p = 0; p < procs; p++)
        alive[p] = false;
      memset(used, 0, sizeof used);
    } else {
      a->kind = A_FORGE;
      a->n = 1 + (int64_t)rnd(3);
    }
    out->count++;
  }
}

void schedule_free(schedule *s) {
  free(s->actions);
  s->actions = NULL;
  s->count = 0;
}

/* --- running it
 * ------------------------------------------------------------------ */

static long pid_of[PROCS];
static uint64_t last_hash;

uint64_t schedule_last_hash(void) {
  return last_hash;
}

/* Runs the scheduler until `pid` has an idle user thread (or gives up). */
static bool wait_idle(long pid) {
  for (int i = 0; i < 4000 && !k_idle(pid); i++) {
    if (!k_alive(pid) || !k_step() || k_failure() || sim_model_failure()) break;
  }
  return k_idle(pid);
}

static void run_steps(int n) {
  for (int i = 0; i < n; i++)
    if (!k_step() || k_failure() || sim_model_failure()) return;
}

/* An attacker of another uid rewrites the newest hand-over record it finds
 * with a mark `ahead` ticks later and clock value 0, checksum made anew. */
static void forge(const action *a, long uid, long mntns) {
  char names[8192];
  size_t len = k_list(mntns, "/dev/shm", names, sizeof names);
  for (size_t at = 0; at < len;) {
    const char *name = names + at;
    at += strlen(name) + 1;
    if (strncmp(name, "snowflake-c-", 12) != 0) continue;
    char text[8192];
    size_t n = k_read(mntns, "/dev/shm", name, text, sizeof text);
    char *mark = strstr(text, "\nmark ");
    char *check = strstr(text, "\ncheck ");
    if (!n || !mark || !check) continue;
    long long m = strtoll(mark + 6, NULL, 10) + a->n;
    char *clock = strstr(mark + 1, "\nclock ");
    char *eol = clock ? strchr(clock + 1, '\n') : NULL;
    if (!clock || !eol) continue;
    char out[8192];
    int k = snprintf(out, sizeof out, "%.*s\nmark %lld\nclock 0%.*s",
                     (int)(mark - text), text, m, (int)(check - eol), eol);
    /* Our own user's name beside the victim's: "….u<uid>", a new file
     * (rewriting one's own record is tampering no generator can tell). */
    char own[160], mine[64];
    const char *tag = strrchr(name, '.');
    snprintf(own, sizeof own, "%.*s.u%ld", (int)(tag - name), name, uid);
    if (k_read(mntns, "/dev/shm", own, mine, sizeof mine)) continue;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i <= k; i++) {
      h ^= (unsigned char)(i < k ? out[i] : '\n');
      h *= UINT64_C(0x100000001b3);
    }
    k += snprintf(out + k, sizeof out - (size_t)k, "\ncheck %016llx\n",
                  (unsigned long long)h);
    k_forge(uid, mntns, "/dev/shm", own, out, (size_t)k);
    return;
  }
}

static void run_action(const action *a) {
  long pid = a->kind == A_SPAWN ? 0 : pid_of[a->proc];
  switch (a->kind) {
  case A_SPAWN: {
    char host[32];
    snprintf(host, sizeof host, "host-%d", a->proc);
    pid_of[a->proc] = k_spawn(a->n, a->slot, a->flag ? 1001 : 1000, host);
    return;
  }
  case A_STEP_CLOCK:
    k_clock_step(a->n);
    if (a->n < 0) lease_model_clock_back(-1);
    return;
  case A_FREEZE:
    k_clock_freeze(a->n != 0);
    if (a->n) lease_model_clock_back(-1);
    return;
  case A_ADVANCE:
    k_advance(a->n);
    return;
  case A_REBOOT:
    k_reboot();
    return;
  case A_KILL:
    k_kill(pid);
    return;
  case A_EXEC:
    k_exec(pid);
    return;
  case A_SIGNAL:
    k_signal(pid, HANDLER_CLOSE, a->slot);
    return;
  case A_FORGE:
    forge(a, 1001, 0);
    return;
  case A_DB_DOWN:
    leasedb_down(a->n);
    return;
  case A_DB_CUT:
    leasedb_cut(pid, a->n);
    return;
  case A_DB_CLOCK:
    leasedb_clock_step(a->n);
    return;
  case A_PAUSE:
    k_pause(pid, a->n);
    leasedb_excuse(pid);
    return;
  case A_HOST_CLOCK:
    k_host_clock_step(a->slot, a->n);
    if (a->n < 0) lease_model_clock_back(a->slot);
    return;
  default:
    break;
  }
  if (!pid || !k_alive(pid) || !wait_idle(pid)) return;
  switch (a->kind) {
  case A_CREATE:
    k_command(pid, CMD_CREATE, a->slot, 0, a->flag, a->text);
    break;
  case A_NEXT:
    k_command(pid, CMD_NEXT, a->slot, a->n, 0, NULL);
    break;
  case A_NEXT_NOW:
    k_command(pid, CMD_NEXT_NOW, a->slot, a->n, 0, NULL);
    break;
  case A_TRICKLE:
    k_command(pid, CMD_TRICKLE, a->slot, a->n, a->flag, NULL);
    break;
  case A_BATCH:
    k_command(pid, CMD_BATCH, a->slot, a->n, 0, NULL);
    break;
  case A_NEXT_AT:
    k_command(pid, CMD_NEXT_AT, a->slot, k_wall_ns() / 1000 + a->n, 0, NULL);
    break;
  case A_CLOSE:
    k_command(pid, CMD_CLOSE, a->slot, 0, 0, NULL);
    break;
  case A_FREE:
    k_command(pid, CMD_FREE, a->slot, 0, 0, NULL);
    break;
  case A_EXIT:
    k_command(pid, CMD_EXIT, 0, 0, 0, NULL);
    break;
  case A_THREAD:
    k_command(pid, CMD_SPAWN, 0, 0, 0, NULL);
    break;
  case A_FORK: {
    k_command(pid, CMD_FORK, 0, 0, 0, NULL);
    /* The child's pid: the newest process once the fork is done. */
    for (int i = 0; i < 400 && !k_failure(); i++) {
      long child = sim_last_child(pid);
      if (child) {
        pid_of[a->proc2] = child;
        break;
      }
      if (!k_step()) break;
    }
    break;
  }
  default:
    break;
  }
}

const char *schedule_run(const schedule *s, bool trace, uint64_t *steps,
                         uint64_t *ids) {
  k_config cfg = {.seed = s->seed,
                  .counter_trusted = s->counter_trusted,
                  .claims_by_file = s->claims_by_file,
                  .trace = trace,
                  .shared_paths = {"/var/lib/sfc/a"}};
  sim_model_reset(s->records_link_live, s->claims_by_file);
  k_init(&cfg);
  memset(pid_of, 0, sizeof pid_of);
  const char *why = NULL;
  for (size_t i = 0; i < s->count && !why; i++) {
    if (trace)
      fprintf(stderr, "action %zu: %s\n", i, kind_names[s->actions[i].kind]);
    run_action(&s->actions[i]);
    run_steps(s->actions[i].steps);
    why = k_failure() ? k_failure() : sim_model_failure();
  }
  /* What is still running runs on, the clock with it. */
  for (int i = 0; i < 20000 && !why; i++) {
    if (!k_step()) break;
    why = k_failure() ? k_failure() : sim_model_failure();
  }
  static char stuck[256];
  if (!why && k_stuck_threads(stuck, sizeof stuck)) why = stuck;
  sim_counts c;
  sim_model_counts(&c);
  if (steps) *steps = k_steps();
  last_hash = k_trace_hash();
  if (ids) *ids = c.ids;
  static char kept[2048];
  if (why) {
    snprintf(kept, sizeof kept, "%s", why);
    why = kept;
  }
  k_shutdown();
  return why;
}

/* --- text
 * -------------------------------------------------------------------------- */

void schedule_print(const schedule *s, FILE *out) {
  fprintf(out, "seed %llu counter_trusted %d records_link_live %d%s\n",
          (unsigned long long)s->seed, s->counter_trusted, s->records_link_live,
          s->claims_by_file ? " claims file" : "");
  for (size_t i = 0; i < s->count; i++) {
    const action *a = &s->actions[i];
    char text[480];
    size_t k = 0;
    for (const char *c = a->text; *c && k + 2 < sizeof text; c++) {
      if (*c == '\n') {
        text[k++] = '|';
      } else {
        text[k++] = *c;
      }
    }
    text[k] = '\0';
    fprintf(out, "%s p%d p%d s%d f%d n%lld steps%d [%s]\n", kind_names[a->kind],
            a->proc, a->proc2, a->slot, a->flag, (long long)a->n, a->steps,
            text);
  }
}

bool schedule_read(FILE *in, schedule *out) {
  memset(out, 0, sizeof *out);
  unsigned long long seed;
  int ct, rl;
  char first[4096];
  do {
    if (!fgets(first, sizeof first, in)) return false;
  } while (first[0] == '#');
  if (sscanf(first, "seed %llu counter_trusted %d records_link_live %d", &seed,
             &ct, &rl) != 3)
    return false;
  out->seed = seed;
  out->counter_trusted = ct;
  out->records_link_live = rl;
  out->claims_by_file = strstr(first, " claims file") != NULL;
  size_t cap = 16;
  out->actions = calloc(cap, sizeof *out->actions);
  char line[1024];
  while (fgets(line, sizeof line, in)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (out->count == cap) {
      cap *= 2;
      out->actions = realloc(out->actions, cap * sizeof *out->actions);
    }
    action *a = &out->actions[out->count];
    memset(a, 0, sizeof *a);
    char kind[32];
    long long n;
    int used = 0;
    if (sscanf(line, "%31s p%d p%d s%d f%d n%lld steps%d [%n", kind, &a->proc,
               &a->proc2, &a->slot, &a->flag, &n, &a->steps, &used) < 7)
      return false;
    a->n = n;
    for (int k = 1; k < A_KINDS; k++)
      if (strcmp(kind, kind_names[k]) == 0) a->kind = k;
    if (!a->kind) return false;
    char *end = strrchr(line, ']');
    if (used && end) {
      size_t k = 0;
      for (char *c = line + used; c < end && k + 1 < sizeof a->text; c++)
        a->text[k++] = *c == '|' ? '\n' : *c;
      a->text[k] = '\0';
    }
    out->count++;
  }
  return true;
}

/* --- shrinking
 * --------------------------------------------------------------------- */

/* The failure's kind: what it says without its numbers (steps, IDs, pids,
 * ticks), so that a shorter schedule keeps the generators as they were —
 * their layouts, options, namespaces, clock values and how each ended. */
static void kind_of(const char *failure, char *out, size_t cap) {
  const char *p = strstr(failure, ": ");
  p = p ? p + 2 : failure;
  size_t k = 0;
  for (; *p && k + 1 < cap; p++)
    if (*p < '0' || *p > '9') out[k++] = *p;
  out[k] = '\0';
}

static bool same_failure(const schedule *s, const char *kind) {
  const char *why = schedule_run(s, false, NULL, NULL);
  if (!why) return false;
  char k[4096];
  kind_of(why, k, sizeof k);
  if (getenv("SIM_SHRINK_DEBUG"))
    fprintf(stderr, "shrink: %zu actions: %s [%s] vs [%s]\n", s->count, why, k,
            kind);
  return strcmp(k, kind) == 0;
}

void schedule_shrink(schedule *s, const char *failure) {
  char kind[4096];
  kind_of(failure, kind, sizeof kind);
  /* Chunks first, then one action at a time, until nothing goes. */
  for (size_t chunk = s->count / 2; chunk >= 1; chunk /= 2) {
    for (size_t at = 0; at + chunk <= s->count;) {
      schedule t = *s;
      t.actions = malloc(s->count * sizeof *s->actions);
      memcpy(t.actions, s->actions, at * sizeof *s->actions);
      memcpy(t.actions + at, s->actions + at + chunk,
             (s->count - at - chunk) * sizeof *s->actions);
      t.count = s->count - chunk;
      if (same_failure(&t, kind)) {
        free(s->actions);
        *s = t;
      } else {
        free(t.actions);
        at += chunk;
      }
    }
    if (chunk == 1) break;
  }
  /* Fewer steps after each action where that still fails. */
  for (size_t i = 0; i < s->count; i++) {
    int was = s->actions[i].steps;
    if (!was) continue;
    s->actions[i].steps = 0;
    if (!same_failure(s, kind)) s->actions[i].steps = was;
  }
}
