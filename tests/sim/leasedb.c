/* The simulated lease database. One table, as sql/leases.sql: a row per ID
 * space and node value (holder key, token, expiry by the database's
 * clock, horizon, previous horizon). The statements run one at a time, as
 * PostgreSQL serializes them on the row lock, each by the meaning of its
 * SQL in core/src/lease_sql.c; now() is the database's own clock: the
 * host's true time plus steps of its own, whatever the hosts' clocks do. */
#define _GNU_SOURCE
#include "leasedb.h"

#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 512
#define SPACES 16
#define TAKES 1024
#define PIDS 512

typedef struct row {
  bool used;
  int space;
  int64_t node;
  char holder[128], token[40];
  int64_t expires_us; /* INT64_MIN: '-infinity' */
  int64_t horizon, previous;
} row;

static row rows[ROWS];
static char spaces[SPACES][SIM_STR_MAX];
static int nspaces;
static int64_t offset_us, down_until_ns;
static struct {
  long pid;
  int64_t until_ns;
  uint64_t excused;
} procs[PIDS];
static struct {
  long pid;
  int space;
  int64_t node;
  char token[40];
  int64_t dur_ms;
  int64_t ok_ns; /* true time its last acquire or renewal ran */
} takes[TAKES];
static int ntakes;

void leasedb_reset(void) {
  memset(rows, 0, sizeof rows);
  memset(procs, 0, sizeof procs);
  nspaces = ntakes = 0;
  offset_us = down_until_ns = 0;
}

/* now(): the database's clock, in µs. */
static int64_t db_now(void) {
  return k_real_ns() / 1000 + offset_us;
}

static int proc_index(long pid) {
  for (int i = 0; i < PIDS; i++)
    if (procs[i].pid == pid) return i;
  for (int i = 0; i < PIDS; i++)
    if (!procs[i].pid) {
      procs[i].pid = pid;
      return i;
    }
  return 0;
}

void leasedb_down(int64_t us) {
  down_until_ns = k_real_ns() + us * 1000;
}

void leasedb_cut(long pid, int64_t us) {
  procs[proc_index(pid)].until_ns = k_real_ns() + us * 1000;
}

void leasedb_clock_step(int64_t us) {
  offset_us += us;
}

void leasedb_excuse(long pid) {
  procs[proc_index(pid)].excused = k_steps() + 1;
}

uint64_t leasedb_excused_at(long pid) {
  return procs[proc_index(pid)].excused;
}

bool leasedb_holder(long pid, int64_t value, uint64_t *order, int *space) {
  for (int i = ntakes - 1; i >= 0; i--)
    if (takes[i].pid == pid && takes[i].node == value) {
      *order = (uint64_t)i + 1;
      *space = takes[i].space;
      return true;
    }
  return false;
}

int64_t leasedb_deadline_ns(uint64_t order) {
  if (order < 1 || order > (uint64_t)ntakes) return INT64_MAX;
  const int64_t d = takes[order - 1].dur_ms;
  return takes[order - 1].ok_ns + (d - d / 64) * 1000000;
}

static int space_of(const char *text) {
  for (int i = 0; i < nspaces; i++)
    if (!strcmp(spaces[i], text)) return i;
  if (nspaces == SPACES) return SPACES - 1;
  snprintf(spaces[nspaces], sizeof spaces[nspaces], "%s", text);
  return nspaces++;
}

static row *find(int space, int64_t node) {
  for (int i = 0; i < ROWS; i++)
    if (rows[i].used && rows[i].space == space && rows[i].node == node)
      return &rows[i];
  return NULL;
}

/* expires_at + grace > now(): the value is held ('-infinity' never). */
static bool live(const row *r, int64_t grace_ms, int64_t now) {
  return r->expires_us != INT64_MIN && r->expires_us + grace_ms * 1000 > now;
}

static int64_t max64(int64_t a, int64_t b) {
  return a > b ? a : b;
}

/* The acquire: $1 space, $2 key, $3 token, $4..$5 the range, $6 the lease
 * ms, $7 the grace ms, $8 the horizon proposed. The candidates are the
 * key's own values in the range, then the range in order, the live ones
 * left out, at most 256; the first whose advisory lock is free is taken
 * (now and then a concurrent acquirer holds one: skipped). The upsert
 * finds it expired, as nothing ran between. Returns the value or NULL,
 * the previous horizon, the horizon, how many live in the space. */
static void acquire(long pid, char **p, sim_reply *out) {
  const int space = space_of(p[0]);
  const int64_t lo = atoll(p[3]), hi = atoll(p[4]), dur = atoll(p[5]),
                grace = atoll(p[6]), proposed = atoll(p[7]);
  const int64_t now = db_now();
  int64_t held = 0;
  for (int i = 0; i < ROWS; i++)
    if (rows[i].used && rows[i].space == space && live(&rows[i], grace, now))
      held++;
  int64_t cand[256];
  int n = 0;
  for (int pass = 0; pass < 2; pass++) {
    int64_t mine[ROWS];
    int m = 0;
    if (pass == 0) {
      for (int i = 0; i < ROWS; i++)
        if (rows[i].used && rows[i].space == space &&
            !strcmp(rows[i].holder, p[1]) && rows[i].node >= lo &&
            rows[i].node <= hi)
          mine[m++] = rows[i].node;
      /* ORDER BY o, v: the key's own in order. */
      for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && mine[j - 1] > mine[j]; j--) {
          int64_t t = mine[j];
          mine[j] = mine[j - 1];
          mine[j - 1] = t;
        }
    }
    const int64_t count = pass == 0 ? m : hi - lo + 1;
    for (int64_t k = 0; k < count && n < 256; k++) {
      const int64_t v = pass == 0 ? mine[k] : lo + k;
      const row *r = find(space, v);
      if (!r || !live(r, grace, now)) cand[n++] = v;
    }
  }
  int pick = 0;
  while (pick < n && k_rand(12) == 0)
    pick++; /* its advisory lock held by a concurrent acquirer */
  out->ret = 4;
  out->v[3] = held;
  if (pick >= n) {
    out->v[5] = 1 | 2 | 4; /* no value: NULL, NULL, NULL, count */
    if (n == 0) leasedb_excuse(pid);
    return;
  }
  const int64_t v = cand[pick];
  row *r = find(space, v);
  if (!r) {
    for (int i = 0; i < ROWS && !r; i++)
      if (!rows[i].used) r = &rows[i];
    if (!r) {
      out->ret = -1;
      snprintf(out->str, sizeof out->str, "the lease table is full");
      return;
    }
    memset(r, 0, sizeof *r);
    r->used = true;
    r->space = space;
    r->node = v;
    r->horizon = proposed;
    r->previous = -1;
  } else {
    r->previous = r->horizon;
    r->horizon = max64(r->horizon, proposed);
  }
  snprintf(r->holder, sizeof r->holder, "%s", p[1]);
  snprintf(r->token, sizeof r->token, "%s", p[2]);
  r->expires_us = now + dur * 1000;
  out->v[0] = v;
  out->v[1] = r->previous;
  out->v[2] = r->horizon;
  if (ntakes < TAKES) {
    takes[ntakes] = (typeof(takes[0])){pid, space, v, "", dur, k_real_ns()};
    snprintf(takes[ntakes].token, sizeof takes[ntakes].token, "%s", p[2]);
    ntakes++;
  }
}

/* Renew ($1 space, $2 node, $3 token, $4 ms, $5 horizon) and release ($1,
 * $2, $3, $4 the last tick): the row of that token, or no row. */
static void renew_or_release(int step, char **p, sim_reply *out) {
  row *r = find(space_of(p[0]), atoll(p[1]));
  if (!r || strcmp(r->token, p[2]) != 0) {
    out->ret = 0;
    return;
  }
  out->ret = 1;
  if (step == 2) {
    for (int i = ntakes - 1; i >= 0; i--)
      if (!strcmp(takes[i].token, p[2])) {
        takes[i].ok_ns = k_real_ns();
        break;
      }
    r->expires_us = db_now() + atoll(p[3]) * 1000;
    r->horizon = max64(r->horizon, atoll(p[4]));
    out->v[0] = r->horizon;
  } else {
    r->expires_us = INT64_MIN;
    r->horizon = max64(r->previous, atoll(p[3]));
    out->v[0] = r->node;
  }
}

void leasedb_exec(long pid, const sim_request *r, sim_reply *out) {
  out->ret = -1;
  memset(out->v, 0, sizeof out->v);
  const int i = proc_index(pid);
  const bool down = k_real_ns() < down_until_ns;
  const bool cut = k_real_ns() < procs[i].until_ns;
  if (down || cut) {
    /* Sent and lost, or run and its answer lost: either way the host
     * hears nothing (a statement timeout). */
    leasedb_excuse(pid);
    snprintf(out->str, sizeof out->str, "%s",
             down ? "cannot connect to the lease database: it is down"
                  : "the lease database timed out: no answer");
    if (down || k_rand(2)) return;
  }
  char *p[8] = {NULL};
  char text[SIM_DATA_MAX];
  memcpy(text, r->data, r->len < SIM_DATA_MAX ? r->len : SIM_DATA_MAX);
  text[SIM_DATA_MAX - 1] = '\0';
  size_t at = 0;
  for (int k = 0; k < r->a[1] && k < 8 && at < r->len; k++) {
    p[k] = text + at;
    at += strlen(p[k]) + 1;
  }
  const int need = r->a[0] == 1 ? 8 : r->a[0] == 2 ? 5 : 4;
  for (int k = 0; k < need; k++)
    if (!p[k]) {
      out->ret = -1;
      snprintf(out->str, sizeof out->str,
               "the lease database refused: "
               "too few parameters");
      return;
    }
  sim_reply answer = *out;
  if (r->a[0] == 1)
    acquire(pid, p, &answer);
  else
    renew_or_release((int)r->a[0], p, &answer);
  if (!cut) {
    out->ret = answer.ret;
    memcpy(out->v, answer.v, sizeof out->v);
    memcpy(out->str, answer.str, sizeof out->str);
  }
}
