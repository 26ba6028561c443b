/* Taking and letting go of node values in the state_dir: a static value,
 * or the first free one of the pool (a node field set to auto), each with
 * its host-wide claim (the guard) and its lock file; and the values that
 * rollback=switch parks until the clock has passed their marks. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* What a parked value hands over: the mark the fast path could reach under
 * it when it was left, under every clock value (its own clock table went
 * with the switch). */
static void let_go_parked(sfc_generator *g, unsigned i) {
  sfc_saved s;
  sfc_saved_clear(&s);
  s.mark = g->state.park[i].issued;
  for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
    s.last[c] = s.mark;
  sfc_fd_close(g->state.park[i].lock_fd);
  sfc_claim_release(&g->state.park[i].claim, g, &s);
}

void sfc_pool_drop_parked(sfc_generator *g) {
  for (unsigned i = 0; i < g->state.parked; i++) {
    sfc_fd_close(g->state.park[i].lock_fd);
    sfc_claim_drop(&g->state.park[i].claim);
  }
  g->state.parked = 0;
}

void sfc_pool_release(sfc_generator *g) {
  sfc_fd_close(g->state.lock_fd);
  g->state.lock_fd = SFC_NO_FD;
  sfc_guard_release(g);
  if (g->pid != sfc_os_pid()) { /* a forked child: the parent's values */
    sfc_pool_drop_parked(g);
    return;
  }
  while (g->state.parked)
    let_go_parked(g, --g->state.parked);
}

void sfc_pool_unpark(sfc_generator *g) {
  const int64_t now = sfc_state_now_tick(g);
  for (unsigned i = 0; i < g->state.parked;) {
    if (g->state.park[i].mark >= now) {
      i++;
      continue;
    }
    let_go_parked(g, i);
    g->state.park[i] = g->state.park[--g->state.parked];
  }
}

/* Takes the current value: its host-wide claim (with the guard on), then
 * its lock file; the claim's hand-over is merged into *handed. *held:
 * another live generator has it — *who holds its claim, or (*who->pid -1)
 * its lock file, g->state.holder. */
static sfc_status take_value(sfc_generator *g, sfc_saved *handed, bool *held,
                             sfc_holder *who, sfc_error *err) {
  sfc_status st =
      sfc_guard_take(g, &g->claim, sfc_node_bits(&g->layout, &g->node), handed,
                     held, who, err);
  if (st != SFC_OK || *held) return st;
  who->pid = -1;
  sfc_fd lock_fd = SFC_NO_FD;
  st = sfc_state_lock_at(g, &g->state.folder, &lock_fd, held, err);
  if (st != SFC_OK || *held) {
    sfc_claim_release(&g->claim, g, NULL);
    return st;
  }
  g->state.lock_fd = lock_fd;
  return SFC_OK;
}

/* Lets go of the value just taken, unused. */
static void untake_value(sfc_generator *g) {
  sfc_fd_close(g->state.lock_fd);
  g->state.lock_fd = SFC_NO_FD;
  sfc_claim_release(&g->claim, g, NULL);
}

/* The current value, taken: its state file merged with what its claim
 * handed over into *saved. *held: another live generator has it. */
static sfc_status take_and_read(sfc_generator *g, sfc_saved *saved, bool *held,
                                sfc_holder *who, sfc_error *err) {
  sfc_saved handed;
  sfc_saved_clear(&handed);
  sfc_state_name_value(g);
  sfc_status st = take_value(g, &handed, held, who, err);
  if (st != SFC_OK || *held) return st;
  st = sfc_state_file_read(g, saved, err);
  if (st != SFC_OK) {
    untake_value(g);
    return st;
  }
  sfc_saved_merge(saved, &handed);
  return SFC_OK;
}

/* Takes the first value of the auto field that no live process holds and
 * whose IDs are all below `below`: locked, its state in *saved. SFC_RETRY
 * when there is none. */
static sfc_status take_free(sfc_generator *g, int64_t below, sfc_saved *saved,
                            sfc_error *err) {
  sfc_node *node = &g->node;
  const sfc_field *f = &g->layout.fields[node->field[node->auto_slot]];
  for (uint64_t v = 0; v <= f->max; v++) {
    node->value[node->auto_slot] = v;
    bool held;
    sfc_holder who;
    sfc_status st = take_and_read(g, saved, &held, &who, err);
    if (st != SFC_OK) return st;
    if (held) continue;
    if (sfc_saved_latest(saved) < below) return SFC_OK;
    untake_value(g);
  }
  return SFC_RETRY;
}

/* Takes the first free value of the auto field. A value whose mark is still
 * ahead of the clock (its last holder crashed a moment ago) would start with
 * a rollback, so it is taken only when every other one is held. */
static sfc_status take_from_pool(sfc_generator *g, sfc_saved *saved,
                                 sfc_error *err) {
  sfc_status st = take_free(g, sfc_state_now_tick(g) + 1, saved, err);
  if (st == SFC_RETRY) st = take_free(g, INT64_MAX, saved, err);
  if (st != SFC_RETRY) return st;
  const sfc_field *f = &g->layout.fields[g->node.field[g->node.auto_slot]];
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "all %llu values of %s in the pool %s are held by live "
                  "processes: stop some, or widen the field",
                  (unsigned long long)f->max + 1, f->name, g->state.dir);
}

/* Says who holds the value: a live generator with the same ID space and
 * node bits, in this process or another — seen by the host-wide claim, or
 * by the lock file (the guard off, or a holder the claim cannot see). */
static sfc_status held_elsewhere(sfc_generator *g, sfc_holder *who,
                                 sfc_error *err) {
  if (who->pid >= 0) return sfc_claim_refuse(&g->claim, g, who, err);
  return sfc_state_refuse_held(g, err);
}

static sfc_status take_static(sfc_generator *g, sfc_saved *saved,
                              sfc_error *err) {
  bool held;
  sfc_holder who;
  sfc_status st = take_and_read(g, saved, &held, &who, err);
  if (st == SFC_OK && held) return held_elsewhere(g, &who, err);
  return st;
}

/* Reserves ahead of `tick`, never moving a mark backwards, never past the
 * time field. */
static int64_t mark_from(const sfc_generator *g, int64_t tick, int64_t floor) {
  int64_t mark = tick + g->state.reserve_ticks;
  if (mark < floor) mark = floor;
  if ((uint64_t)mark > g->pack.time_max) mark = (int64_t)g->pack.time_max;
  return mark;
}

sfc_status sfc_pool_acquire(sfc_generator *g, sfc_saved *saved,
                            sfc_error *err) {
  sfc_status st = g->node.auto_slot >= 0 ? take_from_pool(g, saved, err)
                                         : take_static(g, saved, err);
  if (st != SFC_OK) return st;
  memcpy(g->last, saved->last, sizeof g->last);
  const int64_t mark = mark_from(g, sfc_state_now_tick(g), saved->mark);
  st = sfc_state_file_write(g, mark, saved->clock, err);
  if (st != SFC_OK) return st;
  atomic_store(&g->state_mark, mark);
  sfc_mark_update(g);
  atomic_store(&g->wanted_mark, 0);
  g->state.error_status = 0;
  return SFC_OK;
}

sfc_status sfc_pool_switch(sfc_generator *g, int64_t tick, sfc_saved *saved,
                           int64_t *mark, sfc_error *err) {
  sfc_state *s = &g->state;
  sfc_pool_unpark(g);
  if (s->parked == SFC_PARKED_MAX)
    return sfc_fail(err, SFC_CLOCK_MOVED_BACKWARDS,
                    "already holds %d values whose IDs are ahead of the "
                    "clock; wait for the clock to pass them",
                    SFC_PARKED_MAX);
  /* Until the word switches, threads on the fast path may still issue
   * under the old value, up to the mark (which cannot move while the
   * caller holds g->lock): its state file already says so. */
  const sfc_fd old_lock = s->lock_fd;
  const sfc_claim old_claim = g->claim;
  const uint64_t old_value = g->node.value[g->node.auto_slot];
  const int64_t old_mark = atomic_load(&g->state_mark);
  const sfc_file_id old_state = s->state_id;
  s->lock_fd = SFC_NO_FD;
  sfc_claim_init(&g->claim);
  sfc_error e;
  /* A value whose IDs are all behind the clock. */
  sfc_status st = take_free(g, tick, saved, &e);
  if (st == SFC_OK) {
    /* The fast path may reach the old mark. */
    *mark = mark_from(g, tick, old_mark > saved->mark ? old_mark : saved->mark);
    memcpy(g->last, saved->last, sizeof g->last);
    st = sfc_state_file_write(g, *mark, saved->clock, &e);
    if (st != SFC_OK) untake_value(g);
  }
  if (st != SFC_OK) { /* keep the value in use */
    g->node.value[g->node.auto_slot] = old_value;
    sfc_state_name_value(g);
    s->lock_fd = old_lock;
    g->claim = old_claim;
    s->state_id = old_state;
    if (st == SFC_RETRY)
      return sfc_fail(err, SFC_CLOCK_MOVED_BACKWARDS,
                      "found no other free value in the pool %s whose IDs "
                      "are all behind the clock; widen the pool field",
                      s->dir);
    if (err) *err = e;
    return st;
  }
  s->park[s->parked].lock_fd = old_lock;
  s->park[s->parked].claim = old_claim;
  s->park[s->parked].mark = old_mark;
  /* What the fast path could reach under it; until the clock's first call
   * the mark reads -1, and the state file's mark, written ahead of all the
   * value carried in, stands. */
  const int64_t reached = atomic_load(&g->mark);
  s->park[s->parked].issued = reached >= 0 ? reached : old_mark;
  s->parked++;
  sfc_guard_describe(g); /* the new value's claim */
  return SFC_OK;
}
