/* Schedules: what happens on the simulated host, as a list of actions that a
 * seed makes, that a file replays, and that shrinking shortens. */
#ifndef SIM_SCHEDULE_H
#define SIM_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
  A_SPAWN = 1, /* proc; n: netns, slot: mntns, layout: uid */
  A_CREATE,    /* proc, slot, text: spec\nepoch\nnode\noptions, flag: shared */
  A_NEXT,      /* proc, slot, n */
  A_NEXT_NOW,
  A_BATCH,
  A_NEXT_AT, /* proc, slot, n: µs from the wall clock */
  A_CLOSE,
  A_FREE,
  A_FORK, /* proc -> proc2 */
  A_EXIT,
  A_KILL,
  A_EXEC,
  A_SIGNAL, /* proc, slot: close it from a handler */
  A_THREAD,
  A_STEP_CLOCK, /* n µs */
  A_FREEZE,     /* n: 1 on, 0 off */
  A_ADVANCE,    /* n µs */
  A_REBOOT,
  A_FORGE, /* proc (its uid, mntns): rewrite a record; n: mark offset */
  /* Leases (leasesched.c). */
  A_DB_DOWN,    /* the lease database unreachable for n µs */
  A_DB_CUT,     /* proc's requests to it lost for n µs */
  A_DB_CLOCK,   /* its clock stepped by n µs */
  A_PAUSE,      /* proc not scheduled for n µs */
  A_HOST_CLOCK, /* the wall clock of netns slot (a host) stepped by n µs */
  A_TRICKLE,    /* proc, slot: n IDs, flag µs apart */
  A_KINDS
};

typedef struct action {
  int kind;
  int proc, proc2, slot, flag;
  int64_t n;
  int steps; /* scheduler steps after it */
  char text[256];
} action;

typedef struct schedule {
  uint64_t seed; /* the kernel's: interleavings, time, faults */
  bool counter_trusted;
  bool records_link_live;
  bool claims_by_file; /* a host whose claims are lock files (macOS) */
  size_t count;
  action *actions;
} schedule;

/* A schedule from a seed. */
void schedule_make(uint64_t seed, schedule *out);
/* A schedule of leased values (leasesched.c) into `out`'s `cap` actions,
 * from the seed's random numbers. */
void schedule_make_leases(schedule *out, size_t cap, int64_t epoch,
                          uint64_t (*rnd)(uint64_t));
void schedule_free(schedule *s);
/* Runs it on a fresh host: NULL, or the failure (static text). *steps and
 * *ids: how far it went. */
const char *schedule_run(const schedule *s, bool trace, uint64_t *steps,
                         uint64_t *ids);
/* The trace hash of the last run (kernel.h's k_trace_hash). */
uint64_t schedule_last_hash(void);
/* Drops actions while it still fails the same way. */
void schedule_shrink(schedule *s, const char *failure);
void schedule_print(const schedule *s, FILE *out);
/* Reads what schedule_print wrote; false on a malformed file. */
bool schedule_read(FILE *in, schedule *out);

#endif
