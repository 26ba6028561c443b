/* A simulated process's lease host, as the CLI's (core/cli/lease.c) and
 * Python's (python/snowflake_c/_lease.py) are: the acquire before the
 * generator is made, renewals on a thread of their own, the release after
 * the generator is closed. Each statement goes to the simulated database
 * as its step and parameters (SYS_LEASE); its row comes back to the core
 * with sfc_lease_done, a failure with sfc_lease_failed. */
#define _GNU_SOURCE
#include "driver_lease.h"

#include "runtime.h"

#include <stdio.h>
#include <string.h>

#define SLOTS 8

static struct {
  sfc_lease *lease;
  bool stopping, renewing, ending, ended;
} slots[SLOTS];

/* The host's own sleep, as nanosleep (sfc_pause spins its last 200 µs:
 * a binding's wait for an ID, not a host's for its next statement). */
static void host_sleep(int64_t us) {
  const int64_t now_us = sim_call1(SYS_CLOCK, 1)->v[0] / 1000;
  sim_call1(SYS_SLEEP, now_us + us);
}

/* Runs q on the database: the core's answer, or SFC_WAIT when it was not
 * reached (the core retries with backoff). */
static sfc_status run(sfc_lease *l, const sfc_lease_query *q, sfc_error *err) {
  sim_request req;
  sim_request_init(&req, SYS_LEASE);
  req.a[0] = q->step;
  req.a[1] = q->nparams;
  size_t at = 0;
  for (int i = 0; i < q->nparams; i++) {
    const size_t n = strlen(q->params[i]) + 1;
    if (at + n > SIM_DATA_MAX) break;
    memcpy(req.data + at, q->params[i], n);
    at += n;
  }
  req.len = (uint32_t)at;
  /* The answer is the runtime's until the next call: copied out. */
  const sim_reply *r = sim_call(&req);
  const int64_t ret = r->ret;
  int64_t v[6];
  memcpy(v, r->v, sizeof v);
  char why[SIM_STR_MAX];
  snprintf(why, sizeof why, "%s", r->str);
  if (ret < 0) {
    sfc_lease_failed(l, q, why);
    err->status = SFC_WORKER_UNAVAILABLE;
    snprintf(err->message, sizeof err->message, "%s", why);
    return SFC_WAIT;
  }
  char text[4][24];
  const char *row[4] = {NULL};
  for (int i = 0; i < ret && i < 4; i++) {
    snprintf(text[i], sizeof text[i], "%lld", (long long)v[i]);
    row[i] = v[5] >> i & 1 ? NULL : text[i];
  }
  return sfc_lease_done(l, q, ret ? row : NULL, (int)(ret < 4 ? ret : 4), err);
}

/* The slot's renewer: what the core says is due, until told to stop. */
static void *renew_main(void *arg) {
  const int slot = (int)(intptr_t)arg;
  sfc_lease *l = slots[slot].lease;
  while (!slots[slot].stopping) {
    sfc_lease_query q;
    int64_t wait_us = 0;
    if (sfc_lease_due(l, &q, &wait_us) != SFC_LEASE_IDLE) {
      sfc_error err = {0};
      run(l, &q, &err);
      continue;
    }
    host_sleep(wait_us);
  }
  slots[slot].renewing = false;
  return NULL;
}

sfc_status lease_create(int slot, const sfc_layout *layout,
                        const sfc_options *opts, sfc_generator **out,
                        sfc_error *err) {
  sfc_lease *l = NULL;
  sfc_status st = sfc_lease_new(layout, opts, &l, err);
  if (st != SFC_OK) return st;
  for (;;) {
    sfc_lease_query q;
    int64_t wait_us = 0;
    const bool ran = sfc_lease_due(l, &q, &wait_us) == SFC_LEASE_ACQUIRE;
    if (ran) {
      st = run(l, &q, err);
      if (st != SFC_OK && st != SFC_WAIT) break; /* every value held */
    }
    st = sfc_lease_acquired(l, err);
    if (st != SFC_WAIT) break;
    if (!ran) host_sleep(wait_us);
  }
  if (st == SFC_OK) st = sfc_lease_generator_new(l, opts, out, err);
  if (st != SFC_OK) {
    /* A value taken but never used goes back at once. */
    sfc_lease_query q;
    sfc_error ignored;
    if (sfc_lease_release(l, &q)) run(l, &q, &ignored);
    sfc_lease_free(l);
    return st;
  }
  slots[slot].lease = l;
  slots[slot].stopping = slots[slot].ending = slots[slot].ended = false;
  slots[slot].renewing = true;
  sim_spawn(renew_main, (void *)(intptr_t)slot);
  return SFC_OK;
}

bool lease_held(int slot) {
  return slots[slot].lease != NULL;
}

void lease_end(int slot, sfc_generator *gen) {
  if (!slots[slot].lease) return;
  if (slots[slot].ending) {
    /* Another thread ends it: its close and release come first (a free
     * after them). */
    while (!slots[slot].ended)
      host_sleep(1000);
    return;
  }
  slots[slot].ending = true;
  slots[slot].stopping = true;
  while (slots[slot].renewing)
    host_sleep(1000);
  sfc_generator_close(gen);
  sfc_lease_query q;
  sfc_error err;
  if (sfc_lease_release(slots[slot].lease, &q))
    run(slots[slot].lease, &q, &err);
  slots[slot].ended = true;
}

void lease_free(int slot) {
  sfc_lease_free(slots[slot].lease);
  slots[slot].lease = NULL;
}
