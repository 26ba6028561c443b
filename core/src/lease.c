/* Leases of node values from a PostgreSQL table: the state machine, the
 * timings and the parameters of each statement (lease_sql.c holds their
 * text); the host runs them. The generator it creates is fenced
 * (fence.c): no ID past the horizon written in the row, none once the
 * lease may have expired. */
#include "internal.h"

#include "lease.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum phase { ACQUIRING, HELD, LOST, RELEASED } phase;

/* The longest sfc_lease_due lets its host sleep: held, a call that reached
 * the horizon waits at most this for the renewal it asks for; acquiring,
 * the acquire's end (a value, or the deadline) is told this soon. */
enum { LEASE_POLL_HELD_US = 50000, LEASE_POLL_ACQUIRING_US = 200000 };

struct sfc_lease {
  sfc_mutex lock;
  sfc_layout layout;
  int field;    /* the leased node field, in the layout */
  uint64_t max; /* its largest value */
  char space[SFC_SPEC_MAX + 32];
  char key[128];
  char token[40];
  int64_t duration_ms;
  phase phase;
  bool started;  /* a generator was made on the value */
  int64_t value; /* -1 until acquired */
  sfc_lease_start start;
  int64_t made_us;    /* monotonic: sfc_lease_new, the acquire's start */
  int64_t due_us;     /* monotonic: the next statement */
  int64_t backoff_us; /* after a failure, doubling */
  uint64_t renewals, failures;
  char error[SFC_MESSAGE_MAX];
  sfc_generator *gen;
};

/* Renewed at a third of the lease; the deadline keeps 1/64 of it back for
 * the rates of the two clocks (and a margin of the same size for the
 * database's, by which others take the value only past the grace). */
static int64_t renew_us(const sfc_lease *l) {
  return l->duration_ms * 1000 / 3;
}
static int64_t margin_us(const sfc_lease *l) {
  return l->duration_ms * 1000 / 64;
}
static int64_t grace_ms(const sfc_lease *l) {
  return l->duration_ms / 10;
}

static int64_t wall_tick(const sfc_lease *l, int64_t wall_us) {
  const int64_t since = wall_us - l->layout.epoch_ms * 1000;
  return since < 0 ? 0 : since / l->layout.unit_us;
}

/* The horizon a statement made now proposes: a lease ahead of the clock
 * (the generator's, once there is one). */
static int64_t proposed(const sfc_lease *l) {
  const int64_t now = l->gen ? sfc_generator_now_us(l->gen) : sfc_wall_us();
  int64_t h = wall_tick(l, now + l->duration_ms * 1000);
  const sfc_packing *p = l->gen ? &l->gen->pack : NULL;
  if (p && (uint64_t)h > p->time_max) h = (int64_t)p->time_max;
  return h;
}

static sfc_status find_field(sfc_lease *l, const sfc_layout *layout,
                             const sfc_options *opts, sfc_error *err) {
  sfc_node node;
  sfc_status st = sfc_node_resolve(layout, opts, &node, err);
  if (st != SFC_OK) return st;
  if (node.lease_slot < 0)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "a lease needs a node field given as 'lease' (--node "
                    "worker=lease, SNOWFLAKE_WORKER=lease)");
  l->field = node.field[node.lease_slot];
  l->max = layout->fields[l->field].max;
  return SFC_OK;
}

sfc_status sfc_lease_new(const sfc_layout *layout, const sfc_options *opts,
                         sfc_lease **out, sfc_error *err) {
  if (!layout || !opts || !out)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "layout, options and out are required");
  sfc_status st = sfc_options_check(opts, err);
  if (st != SFC_OK) return st;
  sfc_lease *l = calloc(1, sizeof *l);
  if (!l) return sfc_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
  l->layout = *layout;
  st = find_field(l, layout, opts, err);
  if (st != SFC_OK) {
    free(l);
    return st;
  }
  sfc_mutex_init(&l->lock);
  char spec[SFC_SPEC_MAX];
  sfc_layout_spec(layout, spec, sizeof spec);
  snprintf(l->space, sizeof l->space, "%s@%lld", spec,
           (long long)layout->epoch_ms);
  uint64_t r[2] = {0, 0};
  if (!sfc_os_random(r, sizeof r)) r[0] = (uint64_t)sfc_monotonic_us();
  r[1] ^= (uint64_t)sfc_os_pid();
  snprintf(l->token, sizeof l->token, "%016llx%016llx",
           (unsigned long long)r[0], (unsigned long long)r[1]);
  const char *key = sfc_opts_of(opts).lease_key;
  if (key)
    snprintf(l->key, sizeof l->key, "%s", key);
  else
    snprintf(l->key, sizeof l->key, "pid-%ld-%.8s", sfc_os_pid(), l->token);
  l->duration_ms =
      sfc_option_ms(opts, SFC_OPTION_LEASE_DURATION, SFC_ROLLBACK_DEFAULT);
  l->value = -1;
  l->phase = ACQUIRING;
  l->made_us = sfc_monotonic_us();
  *out = l;
  return SFC_OK;
}

bool sfc_lease_wanted(const sfc_layout *layout, const sfc_options *opts) {
  sfc_node node;
  sfc_error err;
  return layout && opts && sfc_options_check(opts, &err) == SFC_OK &&
         sfc_node_resolve(layout, opts, &node, &err) == SFC_OK &&
         node.lease_slot >= 0;
}

static void param(sfc_lease_query *q, const char *fmt, long long v) {
  snprintf(q->text[q->nparams], SFC_LEASE_PARAM_MAX, fmt, v);
  q->params[q->nparams] = q->text[q->nparams];
  q->nparams++;
}

static void text_param(sfc_lease_query *q, const char *text) {
  q->params[q->nparams++] = text;
}

/* The statement of `step`, with its parameters. */
static void make(sfc_lease *l, sfc_lease_step step, sfc_lease_query *q) {
  memset(q, 0, sizeof *q);
  q->step = step;
  q->sql = sfc_lease_sql(step);
  q->made_us = sfc_monotonic_us();
  text_param(q, l->space);
  if (step == SFC_LEASE_ACQUIRE) {
    text_param(q, l->key);
    text_param(q, l->token);
    param(q, "%lld", 0);
    param(q, "%lld", (long long)l->max);
    param(q, "%lld", (long long)l->duration_ms);
    param(q, "%lld", (long long)grace_ms(l));
    param(q, "%lld", (long long)proposed(l));
    return;
  }
  param(q, "%lld", (long long)l->value);
  text_param(q, l->token);
  if (step == SFC_LEASE_RENEW) {
    param(q, "%lld", (long long)l->duration_ms);
    param(q, "%lld", (long long)proposed(l));
  }
}

sfc_lease_step sfc_lease_due(sfc_lease *l, sfc_lease_query *q,
                             int64_t *wait_us) {
  sfc_mutex_lock(&l->lock);
  const int64_t now = sfc_monotonic_us();
  sfc_lease_step step = SFC_LEASE_IDLE;
  /* A call reached the horizon written: renew now (no sooner than every
   * poll). */
  if (l->phase == HELD && l->gen && atomic_load(&l->gen->fence.wanted) &&
      l->due_us > now + LEASE_POLL_HELD_US && !l->backoff_us)
    l->due_us = now + LEASE_POLL_HELD_US;
  /* How long the host may sleep: until the next statement, but no longer
   * than a call reaching the horizon may wait for its renewal (held), or
   * the acquire's end may wait to be told (acquiring). */
  const int64_t poll_us =
      l->phase == ACQUIRING ? LEASE_POLL_ACQUIRING_US : LEASE_POLL_HELD_US;
  if (l->phase == ACQUIRING || l->phase == HELD) {
    if (now >= l->due_us)
      step = l->phase == ACQUIRING ? SFC_LEASE_ACQUIRE : SFC_LEASE_RENEW;
    else
      *wait_us = l->due_us - now < poll_us ? l->due_us - now : poll_us;
  } else {
    *wait_us = poll_us;
  }
  if (step != SFC_LEASE_IDLE) {
    make(l, step, q);
    *wait_us = 0;
  }
  sfc_mutex_unlock(&l->lock);
  return step;
}

static bool number(const char *const *row, int ncols, int i, long long *out) {
  return row && i < ncols && row[i] && sfc_text_number(row[i], -1, out);
}

/* The acquire's row: the value, the previous horizon, ours, how many held. */
static sfc_status acquired(sfc_lease *l, const sfc_lease_query *q,
                           const char *const *row, int ncols, sfc_error *err) {
  long long v, before, horizon, held = 0;
  number(row, ncols, 3, &held);
  if (!number(row, ncols, 0, &v)) {
    if ((uint64_t)held <= l->max) { /* a race lost: again at once */
      l->due_us = 0;
      return SFC_OK;
    }
    l->due_us = sfc_monotonic_us() + renew_us(l);
    return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                    "every value of node field %s (0..%llu) is leased: %lld "
                    "held in ID space %.80s; one comes free when a holder "
                    "stops and its lease (%lld ms) runs out — or widen the "
                    "field",
                    l->layout.fields[l->field].name, (unsigned long long)l->max,
                    held, l->space, (long long)l->duration_ms);
  }
  if (!number(row, ncols, 1, &before) || !number(row, ncols, 2, &horizon))
    return sfc_fail(err, SFC_STATE_ERROR,
                    "the lease table answered an acquire with no horizon");
  l->value = v;
  l->start.value = (uint64_t)v;
  l->start.after = before;
  l->start.horizon = horizon;
  l->start.deadline_us = q->made_us + l->duration_ms * 1000 - margin_us(l);
  l->phase = HELD;
  l->due_us = q->made_us + renew_us(l);
  return SFC_OK;
}

static sfc_status renewed(sfc_lease *l, const sfc_lease_query *q,
                          const char *const *row, int ncols, sfc_error *err) {
  long long horizon;
  if (!number(row, ncols, 0, &horizon)) {
    l->phase = LOST;
    if (l->gen) {
      sfc_mutex_lock(&l->gen->lock);
      sfc_fence_lose(l->gen);
      sfc_mutex_unlock(&l->gen->lock);
    }
    snprintf(l->error, sizeof l->error,
             "the value was taken by another holder after its lease expired");
    return sfc_fail(err, SFC_LEASE_EXPIRED,
                    "the lease of %s=%lld was taken by another holder after "
                    "it expired: its generator issues no more IDs",
                    l->layout.fields[l->field].name, (long long)l->value);
  }
  l->renewals++;
  l->backoff_us = 0;
  l->error[0] = '\0';
  l->start.horizon = horizon;
  l->start.deadline_us = q->made_us + l->duration_ms * 1000 - margin_us(l);
  l->due_us = q->made_us + renew_us(l);
  if (l->gen) {
    sfc_mutex_lock(&l->gen->lock);
    sfc_fence_set(l->gen, horizon, l->start.deadline_us);
    sfc_mutex_unlock(&l->gen->lock);
  }
  return SFC_OK;
}

sfc_status sfc_lease_done(sfc_lease *l, const sfc_lease_query *q,
                          const char *const *row, int ncols, sfc_error *err) {
  sfc_status st = SFC_OK;
  sfc_mutex_lock(&l->lock);
  if (q->step == SFC_LEASE_ACQUIRE && l->phase == ACQUIRING)
    st = acquired(l, q, row, ncols, err);
  else if (q->step == SFC_LEASE_RENEW && l->phase == HELD)
    st = renewed(l, q, row, ncols, err);
  else if (q->step == SFC_LEASE_RELEASE)
    l->phase = RELEASED;
  sfc_mutex_unlock(&l->lock);
  return st;
}

sfc_status sfc_lease_acquired(sfc_lease *l, sfc_error *err) {
  sfc_mutex_lock(&l->lock);
  const int64_t now = sfc_monotonic_us();
  const phase ph = l->phase;
  const bool valid = ph == HELD && now < l->start.deadline_us;
  const bool late = now - l->made_us > l->duration_ms * 1000;
  char why[SFC_MESSAGE_MAX];
  snprintf(why, sizeof why, "%s", l->error);
  sfc_mutex_unlock(&l->lock);
  if (valid) return SFC_OK;
  if (ph == ACQUIRING && !late) return SFC_WAIT;
  if (ph != ACQUIRING && ph != HELD)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "the lease was released or lost: create a new one");
  if (why[0])
    return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                    "no node value could be leased within the lease (%lld "
                    "ms): %s",
                    (long long)l->duration_ms, why);
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "no node value could be leased in time: every free one "
                  "was taken by another acquirer meanwhile");
}

void sfc_lease_failed(sfc_lease *l, const sfc_lease_query *q, const char *why) {
  (void)q;
  sfc_mutex_lock(&l->lock);
  l->failures++;
  snprintf(l->error, sizeof l->error, "%s", why ? why : "failed");
  const int64_t cap = renew_us(l) / 2 > 100000 ? renew_us(l) / 2 : 100000;
  l->backoff_us = l->backoff_us ? l->backoff_us * 2 : 100000;
  if (l->backoff_us > cap) l->backoff_us = cap;
  l->due_us = sfc_monotonic_us() + l->backoff_us;
  sfc_mutex_unlock(&l->lock);
}

sfc_status sfc_lease_generator_new(sfc_lease *l, const sfc_options *opts,
                                   sfc_generator **out, sfc_error *err) {
  sfc_mutex_lock(&l->lock);
  const bool ready = l->phase == HELD && !l->started;
  const sfc_lease_start start = l->start;
  sfc_mutex_unlock(&l->lock);
  if (!ready)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "the lease holds no value yet (or made its generator "
                    "already): run its acquire first");
  sfc_generator *g = NULL;
  sfc_status st = sfc_generator_new_leased(&l->layout, opts, &start, &g, err);
  if (st != SFC_OK) return st;
  sfc_mutex_lock(&l->lock);
  l->started = true;
  l->gen = g;
  /* A renewal made while the generator was made. */
  if (l->start.horizon != start.horizon || l->phase != HELD) {
    sfc_mutex_lock(&g->lock);
    if (l->phase == HELD)
      sfc_fence_set(g, l->start.horizon, l->start.deadline_us);
    else
      sfc_fence_lose(g);
    sfc_mutex_unlock(&g->lock);
  }
  sfc_mutex_unlock(&l->lock);
  *out = g;
  return SFC_OK;
}

bool sfc_lease_valid(const sfc_lease *lease) {
  sfc_lease *l = (sfc_lease *)lease;
  sfc_mutex_lock(&l->lock);
  const bool ok = l->phase == HELD && sfc_monotonic_us() < l->start.deadline_us;
  sfc_mutex_unlock(&l->lock);
  return ok;
}

bool sfc_lease_release(sfc_lease *l, sfc_lease_query *q) {
  sfc_mutex_lock(&l->lock);
  const bool held = l->phase == HELD;
  if (held) {
    int64_t last = l->start.after;
    if (l->gen) {
      /* The highest tick under any clock value: after a clock bump the
       * word's tick is below the earlier value's IDs, and the horizon is
       * one tick for them all. */
      sfc_saved issued;
      sfc_generator_issued(l->gen, &issued);
      const int64_t t = sfc_saved_latest(&issued);
      if (t > last) last = t;
    }
    make(l, SFC_LEASE_RELEASE, q);
    param(q, "%lld", (long long)last);
    l->gen = NULL;
  }
  sfc_mutex_unlock(&l->lock);
  return held;
}

void sfc_lease_stats_get(const sfc_lease *lease, sfc_lease_stats *out) {
  sfc_lease *l = (sfc_lease *)lease;
  static const char *const names[] = {"acquiring", "held", "lost", "released"};
  sfc_lease_stats_data d;
  memset(&d, 0, sizeof d);
  sfc_mutex_lock(&l->lock);
  const int64_t now = sfc_monotonic_us();
  d.state = l->phase == HELD && now >= l->start.deadline_us ? "expired"
                                                            : names[l->phase];
  d.value = l->value;
  d.field = l->layout.fields[l->field].name;
  if (l->phase != ACQUIRING) {
    d.expires_ms = (sfc_wall_us() + l->start.deadline_us - now) / 1000;
    d.horizon_ms =
        l->layout.epoch_ms + (l->start.horizon + 1) * l->layout.unit_us / 1000;
  }
  d.renewals = l->renewals;
  d.failures = l->failures;
  d.duration_ms = l->duration_ms;
  snprintf(d.error, sizeof d.error, "%s", l->error);
  sfc_mutex_unlock(&l->lock);
  memset(out, 0, sizeof *out);
  memcpy(out, &d, sizeof d);
}

void sfc_lease_free(sfc_lease *l) {
  if (!l) return;
  sfc_mutex_destroy(&l->lock);
  free(l);
}
