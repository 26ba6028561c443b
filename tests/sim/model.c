/* The model: which integers each simulated generator may issue. It knows
 * layouts only as the user wrote them (its own reading of the spec, not the
 * core's), every ID every generator reported, and what linked each pair of
 * generators — and it fails the run at the first ID or creation that the
 * promise forbids:
 *
 *   - one integer from two generators (or twice from one), unless nothing
 *     could link them: neither a host-wide claim (one network namespace,
 *     the guard on in both), nor a hand-over record (one /dev/shm, no
 *     reboot between), nor one state folder — and even then a fresh
 *     generator never repeats an integer whose tick is not ahead of its
 *     own start under the clock value it starts on (a bump of its own
 *     back across its start meets what no record could tell it: the
 *     README's bound); a successor of another layout (epoch, unit, shape) is
 *     judged on the wall clock: it never issues an integer whose time in
 *     its own layout is not after its predecessor's last ID's;
 *   - IDs that do not increase per thread of a generator (but across a
 *     change of the clock field or the node bits);
 *   - an ID whose node bits are not its generator's;
 *   - a generator started while a live one that can issue one of its
 *     integers is linked to it by a claim or a state folder;
 *   - a refusal (WorkerUnavailable) when no live generator that can meet it
 *     is linked to it, or a refusal by a record or state file the core
 *     wrote that it cannot read back (StateError).
 *
 * IDs issued at a caller's own times (sfc_next_at) are the caller's to
 * keep apart, as the README says: they count for nothing here (a
 * generator whose first ID was one starts that timeline from nothing; its
 * IDs from the clock count as any other's). Two generators "can meet" when
 * their fixed bits agree and their integers from a day ago on overlap. */
#define _GNU_SOURCE
#include "sim.h"

#include "kernel.h"
#include "leasedb.h"
#include "model_lease.h"
#include "proto.h"

#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GENS 256
#define MAX_PIDS 512
#define MAX_MARKS 1024
#define FIELDS 16

enum { F_TIME, F_SEQ, F_CLOCK, F_NODE };

typedef struct mlayout {
  int n;
  struct {
    char name[32];
    int bits, shift, kind;
  } f[FIELDS];
  int total;
  int64_t epoch_ms, unit_us;
} mlayout;

typedef struct mgen {
  bool used;
  int id;
  long pid; /* the creator */
  bool shared, guard, pool;
  bool leased; /* a node field "lease": lease_holder its place (model_lease) */
  int lease_holder;
  int64_t create_real_ns; /* true time its create began */
  mlayout L;
  uint64_t mask, value; /* the fixed bits: node fields and above the top */
  /* A pool's values it switched away from (rollback=switch), which the
   * core parks until the clock has passed their marks. */
  uint64_t parked[8];
  int parked_n;
  uint64_t state_ino; /* the state folder's identity, 0 none */
  long netns, mntns, boot;
  int life; /* 0 creating, 1 live, 2 ended */
  int64_t start_wall_ns;
  uint64_t created, ended; /* the steps its create began at, and its end */
  uint64_t live;           /* the step its create returned at */
  long ended_boot;
  int copy_of;
  int end_how;           /* 0 closed; else SIM_END_* */
  bool caller_timed;     /* issued IDs at a caller's times */
  bool closing;          /* a close has begun: what it holds may be let go */
  int closers;           /* closes and frees of it under way: a second one
                            returns while the first still lets go */
  bool issued;           /* issued any ID */
  int64_t max_end_ns;    /* the wall end of the latest tick it issued in */
  uint64_t clocks;       /* the clock values its IDs carried, as bits */
  uint64_t start_clock;  /* the clock value it started on */
  int64_t taken_over_ns; /* true time a newer one of its process took it
                            over (closed it), 0 none */
  int taking_by;         /* the create of its process that may take it over
                            (closing meanwhile), + 1; 0 none */
  char spec[SIM_STR_MAX], options[SIM_STR_MAX], node[SIM_STR_MAX];
} mgen;

typedef struct mproc {
  bool used, alive, forking;
  long pid, netns, mntns, uid;
  int slot[8]; /* model generator index + 1 */
} mproc;

typedef struct mcmd {
  long pid;
  int64_t tid, kind, slot, flag;
  char text[SIM_DATA_MAX];
  int64_t wall_ns;
  int gen;          /* CMD_CREATE: the generator being made, + 1 */
  uint64_t started; /* the step it began at */
  int slot_gen;     /* the slot's generator when the command began, + 1 */
  int64_t call_ns;  /* true time its latest call began: the command, or
                       its last report */
  bool used;
} mcmd;

typedef struct idrec {
  uint64_t id;
  int gen;
  bool caller_timed;
  uint64_t step;
} idrec;

typedef struct mark {
  int gen;
  long pid;
  int64_t tid;
  uint64_t last;
} mark;

static mgen gens[MAX_GENS];
static int gen_count;
static mproc procs[MAX_PIDS];
static mcmd cmds[64];
static idrec *table;
static size_t table_cap, table_used;
static mark marks[MAX_MARKS];
static char failure[4096];
static sim_counts counts;
static bool records_link_live;
/* The host's claims are lock files in /dev/shm (macOS's, beside the
 * records): one mount namespace since a boot sees them, not one network
 * namespace. */
static bool claims_by_file;
static long last_child_of[2][64];
static int last_child_count;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
  if (failure[0]) return;
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(failure, sizeof failure,
                   "step %llu: ", (unsigned long long)k_steps());
  vsnprintf(failure + n, sizeof failure - (size_t)n, fmt, ap);
  va_end(ap);
}

const char *sim_model_failure(void) {
  return failure[0] ? failure : NULL;
}

void sim_model_counts(sim_counts *out) {
  *out = counts;
}

void sim_model_reset(bool link_live, bool by_file) {
  memset(gens, 0, sizeof gens);
  memset(procs, 0, sizeof procs);
  memset(cmds, 0, sizeof cmds);
  memset(marks, 0, sizeof marks);
  memset(&counts, 0, sizeof counts);
  gen_count = 0;
  last_child_count = 0;
  free(table);
  table_cap = 1 << 14;
  table_used = 0;
  table = calloc(table_cap, sizeof *table);
  failure[0] = '\0';
  records_link_live = link_live;
  claims_by_file = by_file;
  lease_model_reset();
}

/* --- layouts, read as the user wrote them ----------------------------------
 */

static bool parse_layout(const char *spec, int64_t epoch_ms, mlayout *L) {
  memset(L, 0, sizeof *L);
  L->epoch_ms = epoch_ms;
  L->unit_us = 1000;
  char buf[SIM_STR_MAX];
  snprintf(buf, sizeof buf, "%s", spec);
  char *save = NULL;
  for (char *f = strtok_r(buf, ",", &save); f && L->n < FIELDS;
       f = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(f, ':');
    if (!colon) return false;
    *colon = '\0';
    snprintf(L->f[L->n].name, sizeof L->f[L->n].name, "%s", f);
    L->f[L->n].bits = atoi(colon + 1);
    char *at = strchr(colon + 1, '@');
    if (at) {
      long k = strtol(at + 1, &at, 10);
      L->unit_us = k * (strcmp(at, "s") == 0    ? 1000000
                        : strcmp(at, "ms") == 0 ? 1000
                                                : 1);
    }
    const char *name = L->f[L->n].name;
    L->f[L->n].kind = L->n == 0                    ? F_TIME
                      : strcmp(name, "seq") == 0   ? F_SEQ
                      : strcmp(name, "clock") == 0 ? F_CLOCK
                                                   : F_NODE;
    L->total += L->f[L->n].bits;
    L->n++;
  }
  int shift = L->total;
  for (int i = 0; i < L->n; i++) {
    shift -= L->f[i].bits;
    L->f[i].shift = shift;
  }
  return L->n > 1;
}

static uint64_t field_mask(const mlayout *L, int i) {
  uint64_t ones =
      L->f[i].bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << L->f[i].bits) - 1;
  return ones << L->f[i].shift;
}

static uint64_t field_of(const mlayout *L, int kind, uint64_t id) {
  for (int i = 0; i < L->n; i++)
    if (L->f[i].kind == kind) return (id & field_mask(L, i)) >> L->f[i].shift;
  return 0;
}

/* The bits a generator fixes: its node fields, and zeros above its top. */
static uint64_t fixed_mask(const mlayout *L) {
  uint64_t m = L->total >= 64 ? 0 : ~UINT64_C(0) << L->total;
  for (int i = 0; i < L->n; i++)
    if (L->f[i].kind == F_NODE) m |= field_mask(L, i);
  return m;
}

/* The integers g can issue from now on: from its tick of a day ago. */
static uint64_t lowest_now(const mgen *g) {
  int64_t us = k_wall_ns() / 1000 - 86400000000LL - g->L.epoch_ms * 1000;
  if (us <= 0 || g->L.unit_us <= 0) return 0; /* (a layout the core refuses) */
  uint64_t tick = (uint64_t)(us / g->L.unit_us);
  uint64_t max =
      g->L.f[0].bits >= 64 ? UINT64_MAX : (UINT64_C(1) << g->L.f[0].bits) - 1;
  if (tick > max) tick = max;
  return tick << g->L.f[0].shift;
}

static uint64_t highest(const mgen *g) {
  return g->L.total >= 64 ? UINT64_MAX : (UINT64_C(1) << g->L.total) - 1;
}

static bool can_meet(const mgen *a, const mgen *b) {
  const uint64_t both = a->mask & b->mask;
  return ((a->value ^ b->value) & both) == 0 && lowest_now(a) <= highest(b) &&
         lowest_now(b) <= highest(a);
}

static void park(mgen *g, uint64_t value) {
  for (int i = 0; i < g->parked_n; i++)
    if (g->parked[i] == value) return;
  if (g->parked_n < (int)(sizeof g->parked / sizeof g->parked[0]))
    g->parked[g->parked_n++] = value;
}

/* As can_meet, with a's parked values too: the core keeps their claims
 * until the clock has passed their marks, which the model does not know,
 * so a refusal by one of them is not held avoidable while a lives. */
static bool can_meet_parked(const mgen *a, const mgen *b) {
  if (can_meet(a, b)) return true;
  const uint64_t both = a->mask & b->mask;
  for (int i = 0; i < a->parked_n; i++)
    if (((a->parked[i] ^ b->value) & both) == 0 &&
        lowest_now(a) <= highest(b) && lowest_now(b) <= highest(a))
      return true;
  return false;
}

static bool same_layout(const mgen *a, const mgen *b) {
  return strcmp(a->spec, b->spec) == 0 && a->L.epoch_ms == b->L.epoch_ms;
}

/* The wall time (ns) at which `id`'s tick in g's layout starts. */
static int64_t wall_of(const mgen *g, uint64_t id) {
  return (g->L.epoch_ms * 1000 +
          (int64_t)(id >> g->L.f[0].shift) * g->L.unit_us) *
         1000;
}

/* The tick of `id` read in g's layout, and g's tick at wall time ns. */
static int64_t tick_of_id(const mgen *g, uint64_t id) {
  return (int64_t)(id >> g->L.f[0].shift);
}

static int64_t tick_at(const mgen *g, int64_t wall_ns) {
  return (wall_ns / 1000 - g->L.epoch_ms * 1000) / g->L.unit_us;
}

/* --- processes and commands
 * ---------------------------------------------------- */

static mproc *proc_of(long pid) {
  for (int i = 0; i < MAX_PIDS; i++)
    if (procs[i].used && procs[i].pid == pid) return &procs[i];
  return NULL;
}

void sim_model_spawned(long pid, long netns, long mntns, long uid) {
  for (int i = 0; i < MAX_PIDS; i++)
    if (!procs[i].used) {
      memset(&procs[i], 0, sizeof procs[i]);
      procs[i].used = procs[i].alive = true;
      procs[i].pid = pid;
      procs[i].netns = netns;
      procs[i].mntns = mntns;
      procs[i].uid = uid;
      return;
    }
}

static void end_gen(mgen *g, int how) {
  if (g->life == 2) return;
  g->end_how = how;
  g->life = 2;
  g->ended = k_steps();
  g->ended_boot = k_boots();
}

/* Whether any process still has g in a slot (a shared generator lives on
 * in its other processes). */
static bool still_used(int gi, long except) {
  for (int i = 0; i < MAX_PIDS; i++) {
    if (!procs[i].used || !procs[i].alive || procs[i].pid == except) continue;
    for (int s = 0; s < 8; s++)
      if (procs[i].slot[s] == gi + 1) return true;
  }
  return false;
}

void sim_model_ended(long pid, int how) {
  mproc *p = proc_of(pid);
  if (!p) return;
  /* execve: the process goes on, with a program that holds nothing. */
  p->alive = how == SIM_END_EXEC;
  for (int s = 0; s < 8; s++) {
    int gi = p->slot[s] - 1;
    p->slot[s] = 0;
    if (gi < 0) continue;
    /* A shared generator's creator ends it; its forks do not. */
    if (gens[gi].shared && gens[gi].pid != pid && still_used(gi, pid)) continue;
    end_gen(&gens[gi], how);
  }
  /* Whatever else its program made goes with it. */
  for (int i = 0; i < gen_count; i++)
    if (gens[i].pid == pid && !gens[i].copy_of && gens[i].life == 1)
      end_gen(&gens[i], how);
  for (int i = 0; i < 64; i++)
    if (cmds[i].used && cmds[i].pid == pid) {
      if (cmds[i].gen)
        end_gen(&gens[cmds[i].gen - 1], how); /* died making it */
      cmds[i].used = false;
    }
}

static int new_gen(void) {
  if (gen_count == MAX_GENS) return -1;
  int gi = gen_count++;
  memset(&gens[gi], 0, sizeof gens[gi]);
  gens[gi].used = true;
  gens[gi].id = gi + 1;
  return gi;
}

long sim_last_child(long parent) {
  for (int i = 0; i < last_child_count; i++)
    if (last_child_of[0][i] == parent && last_child_of[1][i]) {
      long c = last_child_of[1][i];
      last_child_of[1][i] = 0;
      return c;
    }
  return 0;
}

void sim_model_forked(long parent, long child) {
  if (last_child_count < 64) {
    last_child_of[0][last_child_count] = parent;
    last_child_of[1][last_child_count++] = child;
  }
  mproc *p = proc_of(parent);
  sim_model_spawned(child, p ? p->netns : 0, p ? p->mntns : 0, p ? p->uid : 0);
  mproc *c = proc_of(child);
  if (!p || !c) return;
  c->forking = true;
  for (int s = 0; s < 8; s++) {
    int gi = p->slot[s] - 1;
    if (gi < 0) continue;
    if (gens[gi].shared) {
      c->slot[s] = gi + 1;
      continue;
    }
    /* A copy: the same state word in another process. */
    int ci = new_gen();
    if (ci < 0) continue;
    gens[ci] = gens[gi];
    gens[ci].id = ci + 1;
    gens[ci].pid = child;
    gens[ci].copy_of = gi + 1;
    c->slot[s] = ci + 1;
  }
}

static int gen_from(const mcmd *c, const mproc *p);
static void about_to_take_over(mgen *g);

static mcmd *cmd_of(long pid, int64_t tid) {
  for (int i = 0; i < 64; i++)
    if (cmds[i].used && cmds[i].pid == pid && cmds[i].tid == tid)
      return &cmds[i];
  return NULL;
}

void sim_model_command(long pid, int64_t tid, int64_t kind, int64_t slot,
                       int64_t n, int64_t flag, const char *text) {
  (void)n;
  mcmd *c = cmd_of(pid, tid);
  for (int i = 0; !c && i < 64; i++)
    if (!cmds[i].used) c = &cmds[i];
  if (!c) return;
  c->used = true;
  c->pid = pid;
  c->tid = tid;
  c->kind = kind;
  c->slot = slot;
  c->flag = flag;
  c->wall_ns = k_wall_ns();
  snprintf(c->text, sizeof c->text, "%s", text ? text : "");
  c->gen = 0;
  c->started = k_steps();
  c->call_ns = k_real_ns();
  mproc *p = proc_of(pid);
  c->slot_gen = p && slot >= 0 && slot < 8 ? p->slot[slot] : 0;
  if ((kind == CMD_CLOSE || kind == CMD_FREE) && c->slot_gen) {
    gens[c->slot_gen - 1].closing = true;
    gens[c->slot_gen - 1].closers++;
  }
  if (kind == CMD_CREATE && p) {
    c->gen = gen_from(c, p) + 1;
    /* The same generator made again: the live one of its process may be
     * closed by the take-over at any moment of this create. */
    if (c->gen > 0) about_to_take_over(&gens[c->gen - 1]);
  }
}

/* --- what links two generators
 * --------------------------------------------------- */

/* A value's files in a state folder are named by its node fields' names
 * and values ("worker-5"; a pool's value is its current one). */
static void state_name(const mgen *g, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < g->L.n && k < cap; i++)
    if (g->L.f[i].kind == F_NODE)
      k += (size_t)snprintf(
          buf + k, cap - k, "%s=%llu,", g->L.f[i].name,
          (unsigned long long)((g->value & field_mask(&g->L, i)) >>
                               g->L.f[i].shift));
}

/* One state folder links two generators through one value's files. */
static bool same_state(const mgen *a, const mgen *b) {
  if (!a->state_ino || a->state_ino != b->state_ino) return false;
  char na[SIM_STR_MAX], nb[SIM_STR_MAX];
  state_name(a, na, sizeof na);
  state_name(b, nb, sizeof nb);
  return strcmp(na, nb) == 0;
}

/* Both live: a claim sees both (one network namespace, both guarded; for
 * lock files one /dev/shm), a state folder locks one value for both, or
 * (records_link_live) a record file locked by a live holder in one
 * /dev/shm. */
static bool linked_live(const mgen *a, const mgen *b) {
  if (same_state(a, b)) return true;
  if (!a->guard || !b->guard) return false;
  if (claims_by_file ? a->mntns == b->mntns && a->boot == b->boot
                     : a->netns == b->netns)
    return true;
  return records_link_live && a->mntns == b->mntns && a->boot == b->boot;
}

/* One after the other: b finds what a left, in one /dev/shm since no
 * reboot, or in one state folder. */
static bool linked_after(const mgen *a, const mgen *b) {
  if (same_state(a, b)) return true;
  if (!a->guard || !b->guard) return false;
  return a->mntns == b->mntns && a->ended_boot == b->boot;
}

static const char *describe(const mgen *g, char *buf, size_t cap) {
  static const char *const hows[] = {"closed", "killed", "exited", "exec'd",
                                     "rebooted"};
  char clocks[64] = "";
  for (int c = 0, k = 0; c < 64; c++)
    if (g->clocks >> c & 1)
      k += snprintf(clocks + k, sizeof clocks - (size_t)k, "%s%d", k ? "," : "",
                    c);
  snprintf(
      buf, cap,
      "generator %d (pid %ld%s, %s, epoch %lld, pattern %016llx/%016llx, "
      "options %s, netns %ld, mntns %ld, clock values %s%s, %s%s)",
      g->id, g->pid, g->copy_of ? ", a fork's copy" : "", g->spec,
      (long long)g->L.epoch_ms, (unsigned long long)g->mask,
      (unsigned long long)g->value, g->options, g->netns, g->mntns,
      clocks[0] ? clocks : "-", g->caller_timed ? ", caller-timed IDs too" : "",
      g->life == 2 ? "ended: " : "live", g->life == 2 ? hows[g->end_how] : "");
  return buf;
}

/* An integer reported by two generators, or twice by one. */
static void duplicate(const idrec *first, int gi, bool caller_timed) {
  mgen *a = &gens[first->gen], *b = &gens[gi];
  char da[1024], db[1024];
  if (first->gen == gi && !a->shared) {
    fail("%llu issued twice by %s", (unsigned long long)first->id,
         describe(a, da, sizeof da));
    return;
  }
  if (!first->caller_timed && !caller_timed && (a->leased || b->leased)) {
    fail("%llu issued twice by holders of a leased value: %s and %s",
         (unsigned long long)first->id, describe(a, da, sizeof da),
         describe(b, db, sizeof db));
    return;
  }
  if (first->gen == gi) {
    fail("%llu issued twice by the shared %s", (unsigned long long)first->id,
         describe(a, da, sizeof da));
    return;
  }
  /* IDs at a caller's times are the caller's to keep apart; the clock's
   * are not, whatever came first. */
  if (first->caller_timed || caller_timed) {
    counts.duplicates_excluded++;
    return;
  }
  /* Both issuing at once: a lived on after b's create returned. One that
   * ended while b was being made handed over to it (or failed to). */
  const bool concurrent = a->life != 2 || a->ended > b->live;
  if (concurrent) {
    if (!linked_live(a, b)) {
      counts.duplicates_excluded++;
      return;
    }
    fail("%llu issued by two live generators that a claim links: %s and %s",
         (unsigned long long)first->id, describe(a, da, sizeof da),
         describe(b, db, sizeof db));
    return;
  }
  /* Another layout's record counts where the two meet at the same
   * moments (one epoch, unit and place of the time field), judged on the
   * wall clock; layouts that alias each other at other moments, one after
   * the other, are the operator's to keep apart (the README). */
  const bool same_moments = a->L.epoch_ms == b->L.epoch_ms &&
                            a->L.unit_us == b->L.unit_us &&
                            a->L.f[0].shift == b->L.f[0].shift;
  if (linked_after(a, b) && !same_layout(a, b) &&
      (!same_moments || wall_of(b, first->id) >= a->max_end_ns)) {
    counts.duplicates_excluded++;
    return;
  }
  if (linked_after(a, b)) {
    fail("%llu issued again after a hand-over: first by %s, then by %s",
         (unsigned long long)first->id, describe(a, da, sizeof da),
         describe(b, db, sizeof db));
    return;
  }
  /* Unlinked: only an integer ahead of b's start could not be known; and
   * b meets one at or before its start only under a clock value it moved
   * to, back across time no record it could read covers (the README: a
   * bump after a restart nothing links can meet the predecessor's own). */
  if (tick_of_id(b, first->id) > tick_at(b, b->start_wall_ns) ||
      field_of(&b->L, F_CLOCK, first->id) != b->start_clock) {
    counts.duplicates_excluded++;
    return;
  }
  fail("%llu issued again by a fresh generator although its tick %lld is "
       "not ahead of the successor's start (tick %lld): first by %s, then by "
       "%s",
       (unsigned long long)first->id, (long long)tick_of_id(b, first->id),
       (long long)tick_at(b, b->start_wall_ns), describe(a, da, sizeof da),
       describe(b, db, sizeof db));
}

static void table_grow(void) {
  size_t cap = table_cap * 2;
  idrec *t = calloc(cap, sizeof *t);
  for (size_t i = 0; i < table_cap; i++) {
    if (!table[i].step) continue;
    size_t h = (size_t)((table[i].id * UINT64_C(0x9E3779B97F4A7C15)) >> 20) &
               (cap - 1);
    while (t[h].step)
      h = (h + 1) & (cap - 1);
    t[h] = table[i];
  }
  free(table);
  table = t;
  table_cap = cap;
}

static void record_id(uint64_t id, int gi, bool caller_timed) {
  if (table_used * 2 >= table_cap) table_grow();
  size_t h =
      (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (table_cap - 1);
  while (table[h].step) {
    if (table[h].id == id) {
      duplicate(&table[h], gi, caller_timed);
      return;
    }
    h = (h + 1) & (table_cap - 1);
  }
  table[h] = (idrec){id, gi, caller_timed, k_steps() + 1};
  table_used++;
}

static void check_order(int gi, long pid, int64_t tid, uint64_t id) {
  const mgen *g = &gens[gi];
  for (int i = 0; i < MAX_MARKS; i++) {
    mark *m = &marks[i];
    if (m->gen != gi + 1 || m->pid != pid || m->tid != tid) continue;
    const bool moved =
        field_of(&g->L, F_CLOCK, id) != field_of(&g->L, F_CLOCK, m->last) ||
        (id & g->mask) != (m->last & g->mask);
    if (id <= m->last && !moved) {
      char d[1024];
      fail("%llu after %llu from one thread of %s: not increasing",
           (unsigned long long)id, (unsigned long long)m->last,
           describe(g, d, sizeof d));
    }
    m->last = id;
    return;
  }
  for (int i = 0; i < MAX_MARKS; i++)
    if (!marks[i].gen) {
      marks[i] = (mark){gi + 1, pid, tid, id};
      return;
    }
}

/* --- creations and refusals
 * ----------------------------------------------------- */

static void option(const char *options, const char *name, char *out,
                   size_t cap) {
  out[0] = '\0';
  size_t k = strlen(name);
  for (const char *p = options; p && *p;) {
    if (strncmp(p, name, k) == 0 && p[k] == '=') {
      const char *end = strchr(p, ',');
      size_t n = end ? (size_t)(end - p - (long)k - 1) : strlen(p + k + 1);
      if (n >= cap) n = cap - 1;
      memcpy(out, p + k + 1, n);
      out[n] = '\0';
      return;
    }
    p = strchr(p, ',');
    if (p) p++;
  }
}

/* The generator a create command describes, its node values not known yet
 * (pool values come with the report). */
static int gen_from(const mcmd *c, const mproc *p) {
  char buf[SIM_DATA_MAX];
  snprintf(buf, sizeof buf, "%s", c->text);
  char *save = NULL;
  char *spec = strtok_r(buf, "\n", &save), *epoch = strtok_r(NULL, "\n", &save);
  char *node = strtok_r(NULL, "\n", &save),
       *options = strtok_r(NULL, "\n", &save);
  if (!spec || !epoch || !node || !options) return -1;
  int gi = new_gen();
  if (gi < 0) return -1;
  mgen *g = &gens[gi];
  parse_layout(spec, strtoll(epoch, NULL, 10), &g->L);
  snprintf(g->spec, sizeof g->spec, "%s", spec);
  snprintf(g->options, sizeof g->options, "%s", options);
  snprintf(g->node, sizeof g->node, "%s", node);
  g->pid = p->pid;
  g->shared = c->flag != 0;
  g->netns = p->netns;
  g->mntns = p->mntns;
  g->boot = k_boots();
  g->start_wall_ns = c->wall_ns;
  g->created = k_steps();
  char v[SIM_STR_MAX];
  option(options, "guard", v, sizeof v);
  g->guard = strcmp(v, "false") != 0;
  option(options, "state_dir", v, sizeof v);
  g->state_ino = v[0] ? k_folder_identity(p->mntns, v) : 0;
  g->pool = strstr(node, "=auto") != NULL;
  g->leased = strstr(node, "=lease") != NULL;
  g->lease_holder = -1;
  g->create_real_ns = k_real_ns();
  g->mask = fixed_mask(&g->L);
  /* The values asked for; a pool's arrive with the report. */
  for (int i = 0; i < g->L.n; i++) {
    if (g->L.f[i].kind != F_NODE) continue;
    char *at = strstr(node, g->L.f[i].name);
    uint64_t v = at ? strtoull(strchr(at, '=') + 1, NULL, 10) : 0;
    g->value |= (v << g->L.f[i].shift) & field_mask(&g->L, i);
  }
  return gi;
}

static void set_node(mgen *g, const uint64_t *values, size_t n) {
  size_t k = 0;
  g->value = 0;
  for (int i = 0; i < g->L.n && k < n; i++)
    if (g->L.f[i].kind == F_NODE)
      g->value |= (values[k++] << g->L.f[i].shift) & field_mask(&g->L, i);
}

/* Whether g, made in o's process while o lives, takes o's value over (the
 * core's sfc_fork_take_over): the same generator made again — one layout,
 * one node value, a fixed one — where o holds what refuses g (both guarded,
 * or one state folder), and neither shared nor inherited through fork. */
static bool takes_over(const mgen *o, const mgen *g) {
  if (o->pid != g->pid || o->copy_of || o->shared || g->shared || o->pool ||
      g->pool || o->leased || g->leased || o->value != g->value ||
      strcmp(o->spec, g->spec) != 0 || o->L.epoch_ms != g->L.epoch_ms)
    return false;
  return (o->guard && g->guard) || same_state(o, g);
}

/* The create of g has begun: what it may take over is closing. */
static void about_to_take_over(mgen *g) {
  for (int i = 0; i < gen_count; i++)
    if (gens[i].life == 1 && !gens[i].closing && &gens[i] != g &&
        takes_over(&gens[i], g)) {
      gens[i].closing = true;
      gens[i].taking_by = (int)(g - gens) + 1;
    }
}

/* The create of g, which could take over a live generator of its process,
 * was refused: that one was not what refused it, so it stays live — unless
 * another process was making a generator that can meet g meanwhile, which
 * may have taken what a take-over let go. */
static void take_over_refused(const mgen *g, uint64_t since) {
  bool race = false;
  for (int j = 0; j < gen_count && !race; j++) {
    const mgen *o = &gens[j];
    race = o->pid != g->pid && !o->copy_of && can_meet(o, g) &&
           (o->life == 0 || (o->life == 1 && o->live >= since) ||
            (o->life == 2 && o->ended >= since));
  }
  for (int i = 0; i < gen_count; i++) {
    mgen *o = &gens[i];
    if (o->taking_by != (int)(g - gens) + 1) continue;
    o->taking_by = 0;
    if (o->life == 1 && !race) o->closing = false;
  }
}

static void created(mgen *g) {
  char da[1024], db[1024];
  g->life = 1;
  g->live = k_steps();
  /* A create of the same generator begun meanwhile may take it over now. */
  for (int i = 0; i < gen_count && !g->closing; i++)
    if (gens[i].life == 0 && takes_over(g, &gens[i])) {
      g->closing = true;
      g->taking_by = i + 1;
    }
  /* Its start is after the tick of a clock reading made while it was being
   * made: the earliest the model knows of, should the clock have stepped
   * back meanwhile. */
  if (k_wall_ns() < g->start_wall_ns) g->start_wall_ns = k_wall_ns();
  counts.generators++;
  for (int i = 0; i < gen_count; i++) {
    mgen *o = &gens[i];
    /* Closed by the take-over, its hand-over written: from now on an
     * ended generator, whose integers g must not repeat. */
    if (o != g && o->life == 1 && takes_over(o, g)) {
      end_gen(o, 0);
      o->taken_over_ns = k_real_ns();
      continue;
    }
    if (o == g || o->life != 1 || o->closing || o->copy_of || !can_meet(o, g))
      continue;
    if (o->shared && g->shared && o->id == g->id) continue;
    if (linked_live(o, g))
      fail("%s started while %s, which can issue the same integers, is live "
           "and linked to it",
           describe(g, da, sizeof da), describe(o, db, sizeof db));
  }
}

/* A refusal is avoidable when no live generator that can meet g is linked
 * to it (a fork's child between fork and its handlers may still hold what
 * it inherited). */
static void refused(mgen *g, const char *message, uint64_t since) {
  counts.refusals++;
  if (g->pool) return; /* the pool's other values: the model keeps no count */
  /* A lease: refused when every value was held, the database was not
   * reached, or the process was paused past its lease while acquiring. */
  if (g->leased && leasedb_excused_at(g->pid) > since) return;
  /* Or when the acquire took a lease or more: the core's limit. */
  if (g->leased) {
    char v[32];
    option(g->options, "lease_duration", v, sizeof v);
    const int64_t ms = v[0] ? atoll(v) : 15000;
    if (k_real_ns() - g->create_real_ns >= (ms - ms / 64) * 1000000) return;
    /* Or by the claim of a holder on its host still live, whose lease ran
     * out while a call of it went on (the database gave the value again):
     * the claim keeps the two apart. */
    for (int i = 0; i < gen_count; i++) {
      const mgen *o = &gens[i];
      if (o != g && !(o->life == 2 && o->ended < since) && !o->copy_of &&
          can_meet_parked(o, g) && linked_live(o, g))
        return;
    }
    char d[1024];
    fail("%s refused although the lease database was reached each time, "
         "answered with a free value each time, and the acquire took less "
         "than a lease: %s",
         describe(g, d, sizeof d), message);
    return;
  }
  for (int i = 0; i < MAX_PIDS; i++)
    if (procs[i].used && procs[i].alive && procs[i].forking) return;
  for (int i = 0; i < gen_count; i++) {
    mgen *o = &gens[i];
    /* Live at some moment while it was being made. */
    if (o == g || (o->life == 2 && o->ended < since) || o->copy_of) continue;
    /* One state folder names a value's files by the node text alone: its
     * lock keeps other layouts of that text out too (the README: a layout
     * a state_dir of its own). */
    if (same_state(o, g)) return;
    if (can_meet_parked(o, g) && linked_live(o, g)) return;
  }
  char d[1024];
  fail("%s refused although no live generator that can meet it is linked to "
       "it: %s",
       describe(g, d, sizeof d), message);
}

/* A generator made on a leased value: its place among the value's holders,
 * by the database's acquire of it. */
static void leased(mgen *g, const uint64_t *values, size_t n) {
  size_t k = 0;
  for (int i = 0; i < g->L.n && k < n; i++) {
    if (g->L.f[i].kind != F_NODE) continue;
    char want[48];
    snprintf(want, sizeof want, "%s=lease", g->L.f[i].name);
    if (strstr(g->node, want)) {
      g->lease_holder = lease_model_holder(g->pid, (int64_t)values[k], g->id,
                                           g->netns, g->create_real_ns);
      if (g->lease_holder < 0)
        fail("generator %d (pid %ld) started on value %llu, which the lease "
             "database never gave it",
             g->id, g->pid, (unsigned long long)values[k]);
      return;
    }
    k++;
  }
}

void sim_model_closing(long pid, int64_t slot) {
  mproc *p = proc_of(pid);
  if (p && slot >= 0 && slot < 8 && p->slot[slot])
    gens[p->slot[slot] - 1].closing = true;
}

void sim_model_closed(long pid, int64_t slot) {
  mproc *p = proc_of(pid);
  if (!p || slot < 0 || slot >= 8 || !p->slot[slot]) return;
  mgen *g = &gens[p->slot[slot] - 1];
  if (!g->shared || g->pid == pid) end_gen(g, 0);
}

void sim_model_report(long pid, int64_t tid, int64_t status, int64_t kind,
                      const uint64_t *ids, size_t n, bool final,
                      const char *message, int64_t wall_ns) {
  (void)wall_ns;
  mproc *p = proc_of(pid);
  mcmd *c = cmd_of(pid, tid);
  if (!p || !c) return;
  /* The thread's call that reported began at began; its next begins now
   * (a paced client marks it with a report of no IDs). */
  const int64_t began = c->call_ns;
  c->call_ns = k_real_ns();
  if (c->kind == CMD_CREATE && final) {
    int gi = c->gen - 1;
    if (gi < 0) return;
    mgen *g = &gens[gi];
    c->gen = 0;
    if (status == 0) {
      /* The node values, then the clock value it starts on. */
      set_node(g, ids, n - 1);
      g->start_clock = ids[n - 1];
      if (g->leased) leased(g, ids, n - 1);
      p->slot[c->slot] = gi + 1;
      created(g);
    } else {
      g->life = 2;
      take_over_refused(g, c->started);
      if (status == 6 /* SFC_WORKER_UNAVAILABLE */)
        refused(g, message, c->started);
      /* The core reads back what it wrote, whatever ended its writer: a
       * file it cannot read is a defect, not a refusal. */
      if (status == 7 /* SFC_STATE_ERROR */ && strstr(message, "unreadable"))
        fail("generator %d refused by a file the core wrote: %s", gi + 1,
             message);
    }
    return;
  }
  if (c->kind == CMD_FORK && final && strcmp(message, "child") == 0)
    p->forking = false;
  if ((c->kind == CMD_CLOSE || c->kind == CMD_FREE) && final) {
    /* The generator the command began on: a free takes it out of the slot
     * before it returns, and a create on another thread may have filled
     * the slot again before this report (seed 30365). A slot empty then
     * was being filled: its generator is the one the command met. */
    const int at = c->slot_gen ? c->slot_gen : p->slot[c->slot];
    /* Ended when the last of them returns: the one that closed it lets
     * go of its value before it does. */
    const bool last = !c->slot_gen || --gens[at - 1].closers == 0;
    if (at && last && (!gens[at - 1].shared || gens[at - 1].pid == pid))
      end_gen(&gens[at - 1], 0);
    if (c->kind == CMD_FREE && p->slot[c->slot] == at) p->slot[c->slot] = 0;
    return;
  }
  /* A call that says a newer generator of its process took its value: one
   * did, or a create that may is under way. */
  if (status != 0 && c->kind != CMD_CREATE && c->slot_gen &&
      strstr(message, "a newer generator of this process took")) {
    const mgen *g = &gens[c->slot_gen - 1];
    char d[1024];
    if (!g->taken_over_ns && !g->closing)
      fail("%s says that a newer generator of its process took its value "
           "over, but none did: %s",
           describe(g, d, sizeof d), message);
  }
  if (kind == REPORT_NODE || n == 0) return;
  /* A create on another thread may have filled the slot meanwhile. */
  if (!c->slot_gen) c->slot_gen = p->slot[c->slot];
  int gi = c->slot_gen - 1;
  if (gi < 0) {
    fail("process %ld reported IDs from an empty slot", pid);
    return;
  }
  mgen *g = &gens[gi];
  /* Closed by the take-over before the newer one's create returned: no
   * call begun since issues. */
  if (g->taken_over_ns && began > g->taken_over_ns) {
    char d[1024];
    fail("%s issued from a call begun after a newer generator of its process "
         "took it over",
         describe(g, d, sizeof d));
  }
  for (size_t i = 0; i < n; i++) {
    counts.ids++;
    /* A pool's generator may switch values (rollback=switch): its pattern
     * is its latest ID's. */
    if (g->pool && g->issued && (ids[i] & g->mask) != g->value)
      park(g, g->value);
    if (g->pool) g->value = ids[i] & g->mask;
    if (!g->pool && (ids[i] & g->mask) != g->value) {
      char d[1024];
      fail("%llu does not carry the node bits of %s",
           (unsigned long long)ids[i], describe(g, d, sizeof d));
    }
    g->issued = true;
    const int64_t end = wall_of(g, ids[i]) + g->L.unit_us * 1000;
    if (end > g->max_end_ns) g->max_end_ns = end;
    char why[1024];
    if (g->lease_holder >= 0 && kind != REPORT_CALLER_TIMED &&
        lease_model_id(g->lease_holder, ids[i], began, why, sizeof why))
      fail("%s", why);
    record_id(ids[i], gi, kind == REPORT_CALLER_TIMED);
    if (kind == REPORT_CALLER_TIMED) g->caller_timed = true;
    g->clocks |= UINT64_C(1) << (field_of(&g->L, F_CLOCK, ids[i]) & 63);
    if (kind != REPORT_CALLER_TIMED) check_order(gi, pid, tid, ids[i]);
  }
}
