/* What a simulated process does: its user threads take commands from the
 * kernel (create a generator, take IDs, close, fork, …), call the core's
 * public API as a program would, and report every ID the moment a call
 * hands it back, so that a crash right after loses none the model should
 * know of. */
#define _GNU_SOURCE
#include "snowflake_c.h"

#include "../c/set_options.h"

#include "driver_lease.h"
#include "runtime.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLOTS 8
static sfc_generator *gens[SLOTS];
/* Calls under way on each slot's generator, and a free asked for while
 * there were some: the last call frees it, as a binding keeps a generator
 * alive for the calls that hold it (the core's contract for
 * sfc_generator_free). */
static int users[SLOTS];
static bool free_pending[SLOTS];
/* A create under way on the slot: a second one is refused, as a binding's
 * object is made once. */
static bool making[SLOTS];

static void hold(int slot) {
  users[slot]++;
}

static void let_go(int slot) {
  if (--users[slot] == 0 && free_pending[slot]) {
    /* Out of the slot first, as CMD_FREE does: the free yields in the
     * kernel (its hand-over written, its claim given back), and a call that
     * starts meanwhile must find no generator, not take this one again and
     * free it a second time. No create in the slot until its lease is
     * given back. */
    sfc_generator *g = gens[slot];
    const bool leased = lease_held(slot);
    gens[slot] = NULL;
    free_pending[slot] = false;
    making[slot] = leased;
    sfc_generator_free(g);
    if (leased) lease_free(slot);
    making[slot] = false;
  }
}

static void report(int64_t status, const uint64_t *ids, size_t n, int final,
                   int caller_timed, const char *message) {
  sim_request req;
  sim_request_init(&req, SYS_REPORT);
  req.a[0] = status;
  req.a[1] = (int64_t)n;
  req.a[2] = final;
  req.a[3] = caller_timed;
  size_t bytes = n * sizeof *ids;
  if (bytes) memcpy(req.data, ids, bytes);
  size_t m = message ? strlen(message) : 0;
  if (bytes + m + 1 > SIM_DATA_MAX) m = SIM_DATA_MAX - bytes - 1;
  memcpy(req.data + bytes, message ? message : "", m);
  req.data[bytes + m] = '\0';
  req.len = (uint32_t)(bytes + m + 1);
  sim_call(&req);
}

/* "name=value,…": options by name, as a binding sets them. */
static int set_options(sfc_options *opts, char *text, sfc_error *err) {
  for (char *item = strtok(text, ","); item; item = strtok(NULL, ",")) {
    char *eq = strchr(item, '=');
    if (!eq) continue;
    *eq = '\0';
    const char *name = item, *v = eq + 1;
    sfc_value value = {.type = SFC_TYPE_TEXT, .text = v, .len = strlen(v)};
    if (sfc_options_set(opts, name, strlen(name), &value, err) != SFC_OK)
      return -1;
  }
  return 0;
}

static int create(int slot, int shared, char *text, sfc_error *err) {
  char *spec = strtok(text, "\n"), *epoch = strtok(NULL, "\n"),
       *node = strtok(NULL, "\n"), *options = strtok(NULL, "\n");
  if (!spec || !epoch || !node || !options) return SFC_INVALID_ARGUMENT;
  sfc_layout layout;
  sfc_status st =
      sfc_layout_parse(spec, strtoll(epoch, NULL, 10), &layout, err);
  if (st != SFC_OK) return st;
  /* Options first: strtok is not reentrant across the two lists. */
  char opt_text[SIM_STR_MAX * 2], node_text[SIM_STR_MAX];
  snprintf(opt_text, sizeof opt_text, "%s", options);
  snprintf(node_text, sizeof node_text, "%s", node);
  sfc_options opts;
  sfc_options_init(&opts);
  if (strcmp(opt_text, "-") != 0 && set_options(&opts, opt_text, err) != 0)
    return err->status;
  sfc_node_value values[SFC_MAX_FIELDS];
  char names[SFC_MAX_FIELDS][SFC_NAME_MAX + 1];
  size_t count = 0;
  char *save = NULL;
  for (char *item = strtok_r(node_text, ",", &save);
       item && count < SFC_MAX_FIELDS; item = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(item, '=');
    if (!eq) continue;
    *eq = '\0';
    snprintf(names[count], sizeof names[count], "%s", item);
    sfc_value v = {
        .type = SFC_TYPE_TEXT, .text = eq + 1, .len = strlen(eq + 1)};
    st = sfc_node_value_set(&values[count], names[count], &v, err);
    if (st != SFC_OK) return st;
    count++;
  }
  sfc_options_set_nodes(&opts, values, count);

  if (gens[slot] || free_pending[slot] || making[slot])
    return SFC_INVALID_ARGUMENT;
  making[slot] = true;
  if (sfc_lease_wanted(&layout, &opts)) {
    /* A node value leased from the database (docs/leases.md). */
    st = lease_create(slot, &layout, &opts, &gens[slot], err);
  } else if (shared) {
    /* Memory its forks share, as PostgreSQL's or a pre-forking server's. */
    size_t size = sfc_generator_shared_size();
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    st = mem == MAP_FAILED ? SFC_OUT_OF_MEMORY
                           : sfc_generator_new_shared(mem, size, &layout, &opts,
                                                      &gens[slot], err);
  } else {
    st = sfc_generator_new(&layout, &opts, &gens[slot], err);
  }
  making[slot] = false;
  return st;
}

/* IDs one call at a time, each reported as it comes. */
static void next_each(int slot, int64_t n, int waiting_binding) {
  sfc_error err = {0};
  sfc_status st = SFC_OK;
  for (int64_t i = 0; i < n; i++) {
    uint64_t id = 0;
    if (!waiting_binding) {
      st = sfc_next(gens[slot], &id, &err);
    } else {
      /* A binding's own wait: sfc_next_now, then sfc_pause. */
      int64_t wait = 0;
      while ((st = sfc_next_now(gens[slot], &id, &wait, &err)) == SFC_WAIT)
        sfc_pause(wait);
    }
    if (st != SFC_OK) break;
    report(SFC_OK, &id, 1, 0, 0, NULL);
  }
  report(st, NULL, 0, 1, 0, st == SFC_OK ? NULL : err.message);
}

/* A paced client: an ID every gap_us, each call's start marked by a
 * report of no IDs (the model judges a leased holder's deadline by it). */
static void trickle(int slot, int64_t n, int64_t gap_us) {
  sfc_error err = {0};
  sfc_status st = SFC_OK;
  for (int64_t i = 0; i < n; i++) {
    if (i) { /* a client's own sleep */
      const int64_t now_us = sim_call1(SYS_CLOCK, 1)->v[0] / 1000;
      sim_call1(SYS_SLEEP, now_us + gap_us);
    }
    report(SFC_OK, NULL, 0, 0, 0, NULL);
    uint64_t id = 0;
    st = sfc_next(gens[slot], &id, &err);
    if (st == SFC_OK) report(SFC_OK, &id, 1, 0, 0, NULL);
  }
  report(st, NULL, 0, 1, 0, st == SFC_OK ? NULL : err.message);
}

static void batch(int slot, int64_t n) {
  uint64_t ids[1000];
  if (n > 1000) n = 1000;
  size_t filled = 0;
  sfc_error err = {0};
  sfc_status st = sfc_next_ids(gens[slot], ids, (size_t)n, &filled, &err);
  report(st, ids, filled, 1, 0, st == SFC_OK ? NULL : err.message);
}

static void next_at(int slot, int64_t now_us) {
  uint64_t id = 0;
  int64_t wait = 0;
  sfc_error err = {0};
  sfc_status st = sfc_next_at(gens[slot], now_us, &id, &wait, &err);
  report(st, &id, st == SFC_OK, 1, 1, st == SFC_OK ? NULL : err.message);
}

void sim_driver_handler(int64_t which, int64_t slot) {
  /* A handler may only close: the memory stays valid for the call it
   * interrupts (the core's contract for sfc_generator_free). */
  if (which == HANDLER_CLOSE && slot >= 0 && slot < SLOTS) {
    sfc_generator_close(gens[slot]);
    sim_request req;
    sim_request_init(&req, SYS_REPORT);
    req.a[2] = 0;
    req.a[3] = 3; /* REPORT_CLOSED */
    req.a[4] = slot;
    req.len = 1;
    req.data[0] = '\0';
    sim_call(&req);
  }
}

void *sim_driver_thread(void *arg) {
  (void)arg;
  for (;;) {
    sim_request req;
    sim_request_init(&req, SYS_COMMAND);
    const sim_reply *r = sim_call(&req);
    const int64_t kind = r->v[0], slot = r->v[1], n = r->v[2], flag = r->v[3];
    char text[SIM_DATA_MAX];
    memcpy(text, r->data, r->len);
    text[r->len < SIM_DATA_MAX ? r->len : SIM_DATA_MAX - 1] = '\0';
    if (slot < 0 || slot >= SLOTS) _exit(20);
    switch (kind) {
    case CMD_CREATE: {
      sfc_error err = {0};
      int st = create((int)slot, (int)flag, text, &err);
      if (st != SFC_OK) {
        report(st, NULL, 0, 1, 0, err.message);
        break;
      }
      /* The node values it took (a pool's among them) and the clock value
       * it starts on, for the model. */
      sfc_stats s;
      sfc_generator_stats(gens[slot], &s);
      uint64_t values[SFC_MAX_FIELDS + 1];
      size_t n = 0;
      const char *name;
      for (sfc_value v; sfc_stats_entry(&s, SFC_STAT_NODE, n, &name, &v); n++)
        values[n] = v.u;
      values[n] = sfc_stats_uint(&s, SFC_STAT_CLOCK);
      const char *warning = NULL;
      sfc_generator_warning_at(gens[slot], 0, &warning);
      report(st, values, n + 1, 1, 2, warning);
      break;
    }
    case CMD_NEXT:
    case CMD_NEXT_NOW:
      hold((int)slot);
      next_each((int)slot, n, kind == CMD_NEXT_NOW);
      let_go((int)slot);
      break;
    case CMD_TRICKLE:
      hold((int)slot);
      trickle((int)slot, n, flag);
      let_go((int)slot);
      break;
    case CMD_BATCH:
      hold((int)slot);
      batch((int)slot, n);
      let_go((int)slot);
      break;
    case CMD_NEXT_AT:
      hold((int)slot);
      next_at((int)slot, n);
      let_go((int)slot);
      break;
    case CMD_CLOSE:
      /* A call too: a free on another thread meanwhile waits for it (the
       * core's contract for sfc_generator_free). */
      hold((int)slot);
      if (lease_held((int)slot))
        lease_end((int)slot, gens[slot]);
      else
        sfc_generator_close(gens[slot]);
      let_go((int)slot);
      report(SFC_OK, NULL, 0, 1, 0, NULL);
      break;
    case CMD_FREE:
      if (users[slot]) {
        if (lease_held((int)slot))
          lease_end((int)slot, gens[slot]);
        else
          sfc_generator_close(gens[slot]);
        free_pending[slot] = true;
      } else {
        /* Out of the slot first: a call that starts meanwhile (this one
         * yields in the kernel) finds none, as a binding's would. */
        sfc_generator *g = gens[slot];
        gens[slot] = NULL;
        if (lease_held((int)slot)) {
          /* No create in the slot until its lease is given back. */
          making[slot] = true;
          lease_end((int)slot, g);
          sfc_generator_free(g);
          lease_free((int)slot);
          making[slot] = false;
        } else {
          sfc_generator_free(g);
        }
      }
      report(SFC_OK, NULL, 0, 1, 0, NULL);
      break;
    case CMD_FORK: {
      long child = sim_fork();
      report(SFC_OK, NULL, 0, 1, 0, child == 0 ? "child" : "parent");
      break;
    }
    case CMD_EXIT: {
      sim_request ex;
      sim_request_init(&ex, SYS_EXIT);
      sim_call(&ex);
      _exit(0);
    }
    case CMD_SPAWN:
      sim_spawn(sim_driver_thread, NULL);
      report(SFC_OK, NULL, 0, 1, 0, NULL);
      break;
    case CMD_QUIT:
      return NULL;
    default:
      report(SFC_OK, NULL, 0, 1, 0, NULL);
      break;
    }
  }
}
