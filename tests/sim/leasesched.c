/* Schedules of leased node values: processes on hosts of their own (a
 * network and a mount namespace each, so that neither the claim nor the
 * records link them: only the lease row does), each acquiring a value of a
 * small field from the simulated database, issuing, renewing — under the
 * faults a lease is for: the database down for less and more than a lease,
 * a process's requests cut off, a process paused past its lease, the
 * database's clock and each host's stepping apart, holders killed, exited,
 * exec'd, closed, and new holders taking the values they left. */
#define _GNU_SOURCE
#include "schedule.h"

#include <stdio.h>
#include <string.h>

#define PROCS 24
#define HOSTS 6

static const struct {
  const char *spec, *node;
} layouts[] = {
    {"time:41@1ms,worker:2,seq:10", "worker=lease"},
    {"time:41@1ms,dc:3,worker:3,seq:9", "dc=1,worker=lease"},
    {"time:39@10ms,worker:2,seq:8", "worker=lease"},
    {"time:41@1ms,clock:2,worker:2,seq:8", "worker=lease"},
};
#define LAYOUTS (sizeof layouts / sizeof layouts[0])

static uint64_t (*rnd)(uint64_t);
static schedule *out;
static int64_t dur_ms, epoch;
static int family;
static int on_host[HOSTS]; /* the host's live process, -1 none */
static int procs;

static action *add(int kind, int proc, int steps) {
  action *a = &out->actions[out->count++];
  memset(a, 0, sizeof *a);
  a->kind = kind;
  a->proc = proc;
  a->steps = steps;
  return a;
}

static int some_steps(void) {
  return (int)rnd(rnd(3) == 0 ? 600 : 60);
}

static void create(int proc, int host) {
  static const char *const rollbacks[] = {"default", "error", "wait", "borrow"};
  action *c = add(A_CREATE, proc, some_steps());
  char opts[160];
  int n = snprintf(opts, sizeof opts, "lease_duration=%lld,rollback=%s",
                   (long long)dur_ms, rollbacks[rnd(4)]);
  if (rnd(2))
    n += snprintf(opts + n, sizeof opts - (size_t)n, ",max_wait=%d",
                  (int[]){5, 100, 3000}[rnd(3)]);
  if (rnd(2)) /* a stable key: a restart takes its value back */
    n +=
        snprintf(opts + n, sizeof opts - (size_t)n, ",lease_key=host-%d", host);
  if (rnd(4) == 0)
    n += snprintf(opts + n, sizeof opts - (size_t)n, ",time_source=%s",
                  rnd(2) ? "monotonic" : "counter");
  if (rnd(6) == 0)
    snprintf(opts + n, sizeof opts - (size_t)n, ",state_dir=/var/lib/sfc/b");
  snprintf(c->text, sizeof c->text, "%.40s\n%lld\n%.20s\n%.150s",
           layouts[family].spec, (long long)epoch, layouts[family].node, opts);
}

/* The host's process, spawned (and its generator created) if it has
 * none. */
static int proc_on(int host) {
  if (on_host[host] >= 0) return on_host[host];
  action *a = add(A_SPAWN, procs, 0);
  a->n = 2 + host;    /* netns: the host's own */
  a->slot = 2 + host; /* mntns */
  on_host[host] = procs++;
  create(on_host[host], host);
  return on_host[host];
}

static void ids(int proc) {
  action *a = add(A_NEXT + (int)rnd(3), proc, some_steps());
  a->n = 1 + (int64_t)rnd(a->kind == A_BATCH ? 200 : 30);
}

/* A span of µs against the lease: shorter, about as long, longer. */
static int64_t span_us(void) {
  static const int per8[] = {1, 2, 4, 6, 8, 10, 12, 16, 24};
  return dur_ms * 1000 * per8[rnd(9)] / 8;
}

/* Another host's process takes a value now, while `p` may still issue. */
static void newcomer(int p, int host) {
  const int other = (host + 1 + (int)rnd(HOSTS - 1)) % HOSTS;
  const int q = proc_on(other);
  ids(q);
  if (p >= 0) ids(p);
  ids(q);
}

void schedule_make_leases(schedule *s, size_t cap, int64_t ep,
                          uint64_t (*random)(uint64_t)) {
  out = s;
  rnd = random;
  epoch = ep;
  family = (int)rnd(LAYOUTS);
  dur_ms = (int64_t[]){1000, 1000, 2000, 5000}[rnd(4)];
  procs = 0;
  for (int h = 0; h < HOSTS; h++)
    on_host[h] = -1;
  while (out->count + 12 < cap && procs < PROCS - 2) {
    const int host = (int)rnd(HOSTS);
    const int what = (int)rnd(100);
    const bool fresh = on_host[host] < 0;
    const int p = proc_on(host);
    if (fresh || what < 30) {
      ids(p);
    } else if (what < 38) {
      add(A_ADVANCE, p, some_steps())->n = span_us();
    } else if (what < 44) {
      add(A_DB_DOWN, p, 0)->n = span_us();
      if (rnd(2)) {
        /* A paced client across the deadline: IDs a fiftieth of a lease
         * apart, from half a lease into the outage on. */
        add(A_ADVANCE, p, 0)->n = dur_ms * 500;
        action *t = add(A_TRICKLE, p, some_steps());
        t->n = 20 + (int64_t)rnd(20);
        t->flag = (int)(dur_ms * 20);
      } else {
        ids(p);
      }
      if (rnd(2)) newcomer(-1, host);
    } else if (what < 49) {
      add(A_DB_CUT, p, 0)->n = span_us();
      ids(p);
    } else if (what < 57) {
      /* Paused past its lease, mostly: another takes the value. */
      add(A_PAUSE, p, 0)->n = span_us() + dur_ms * 500;
      ids(p);
      newcomer(p, host);
    } else if (what < 63) {
      /* The database's clock jumps: a lease ends early by it, and the
       * value goes to another while its holder's deadline is ahead. */
      static const int per4[] = {-4, -2, 2, 4, 6, 8};
      add(A_DB_CLOCK, p, 0)->n = dur_ms * 1000 * per4[rnd(6)] / 4;
      newcomer(p, host);
    } else if (what < 70) {
      action *a = add(A_HOST_CLOCK, p, 0);
      a->slot = 2 + host;
      a->n = (int64_t[]){-1000, -50000, -2000000, 3000000, -20000000}[rnd(5)];
      ids(p);
    } else if (what < 73) {
      add(A_STEP_CLOCK, p, 0)->n = (int64_t[]){-1000, -50000, -2000000}[rnd(3)];
      ids(p);
    } else if (what < 84) {
      /* The holder dies without a word: its value comes free by expiry. */
      add(rnd(3) ? A_KILL : A_EXIT, p, some_steps());
      on_host[host] = -1;
      if (rnd(2)) newcomer(-1, host);
    } else if (what < 91) {
      /* A clean end: the value goes back with its last tick. */
      add(rnd(2) ? A_CLOSE : A_SIGNAL, p, some_steps());
      add(A_FREE, p, 0);
      if (rnd(2)) newcomer(-1, host);
      create(p, host);
    } else if (what < 94) {
      add(A_EXEC, p, some_steps());
      create(p, host);
    } else if (what < 95) {
      add(A_REBOOT, p, some_steps());
      for (int h = 0; h < HOSTS; h++)
        on_host[h] = -1;
    } else {
      add(A_THREAD, p, 0);
      ids(p);
    }
  }
  /* The live holders end cleanly: their values go back, their renewers
   * stop (and the run with them). */
  for (int h = 0; h < HOSTS; h++)
    if (on_host[h] >= 0) add(A_FREE, on_host[h], some_steps());
}
