/* The state directory: one lock file and one state file per node value.
 *
 * The lock file (flock, released by the kernel when the process dies) makes
 * sure two live processes never hold the same node value of the folder —
 * also where the host-wide claim (claim.c) cannot see, as from another
 * network namespace on a shared volume. The state file holds a high-water mark
 * reserved ahead of time by a keeper thread — so the hot path never touches the
 * disk — and the clock table, so that a restart whose clock is behind the mark
 * is detected.
 *
 * Both files are trusted with uniqueness, so the folder is hostile ground:
 * every file is opened relative to the folder's descriptor, never through a
 * symbolic link, and only if it is a regular file (a FIFO would block, a
 * device would be written to); the folder must belong to us or root and be
 * closed to other users' writes unless sticky. A cleaner that deletes the
 * lock file or the folder under a live holder must not let a second holder
 * in: the keeper checks on every cycle that its lock is still the file at
 * the path, puts the files back when nobody else took the value, and stops
 * the generator when somebody did. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATE_MAGIC "snowflake-c state 1"
#define STATE_MAX 8192
/* How often the keeper checks that the files are still ours, at least. */
#define VERIFY_PERIOD_US 100000

static int64_t now_tick(const sfc_generator *g) {
  int64_t since = sfc_generator_now_us(g) - g->epoch_us;
  return since < 0 ? 0 : since / g->unit_us;
}

/* "datacenter-1.worker-3"; a long one (many or long field names) is
 * hashed, so that a file name never runs past NAME_MAX. */
static void set_stem(sfc_generator *g) {
  char *stem = g->state.stem;
  size_t n = sfc_node_text(&g->layout, &g->node, stem, sizeof g->state.stem);
  for (size_t i = 0; i < n; i++) {
    if (stem[i] == ',') stem[i] = '.';
    if (stem[i] == '=') stem[i] = '-';
  }
  if (!n) snprintf(stem, sizeof g->state.stem, "node");
  if (n > 96)
    snprintf(stem, sizeof g->state.stem, "node-%016llx",
             (unsigned long long)sfc_fnv1a(SFC_FNV_OFFSET, stem, n));
  snprintf(g->state.path, sizeof g->state.path, "%s/%s", g->state.dir, stem);
}

/* The name of one of the value's files inside the folder, and its path for
 * messages. */
static void file_name(const sfc_generator *g, const char *suffix, char *buf,
                      size_t cap) {
  snprintf(buf, cap, "%s%s", g->state.stem, suffix);
}
static void file_path(const sfc_generator *g, const char *suffix, char *buf,
                      size_t cap) {
  snprintf(buf, cap, "%s%s", g->state.path, suffix);
}

static bool same_id(sfc_file_id a, sfc_file_id b) {
  return a.dev == b.dev && a.ino == b.ino;
}

static size_t format_state(const sfc_generator *g, int64_t mark, uint64_t clock,
                           char *buf, size_t cap) {
  char spec[SFC_SPEC_MAX], node[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
  sfc_layout_spec(&g->layout, spec, sizeof spec);
  sfc_node_text(&g->layout, &g->node, node, sizeof node);
  size_t n = (size_t)snprintf(buf, cap,
                              STATE_MAGIC "\nlayout %s\nepoch %lld\nnode %s\n",
                              spec, (long long)g->layout.epoch_ms, node);
  sfc_saved s;
  memcpy(s.last, g->last, sizeof s.last);
  s.mark = mark;
  s.clock = clock;
  n += sfc_saved_print(&s, g->pack.clock_max, buf + n, cap - n);
  return sfc_check_append(buf, n, cap);
}

/* A crash leaves either the old state or the new, never a mix. */
static sfc_status write_at(sfc_generator *g, const sfc_dir *dir, int64_t mark,
                           uint64_t clock, sfc_error *err) {
  char buf[STATE_MAX], name[sizeof g->state.stem + 16], path[4200];
  size_t n = format_state(g, mark, clock, buf, sizeof buf);
  file_name(g, ".state", name, sizeof name);
  file_path(g, ".state", path, sizeof path);
  return sfc_file_replace_at(dir, name, path, buf, n, &g->state.state_id, err);
}

sfc_status sfc_state_write(sfc_generator *g, int64_t mark, uint64_t clock,
                           sfc_error *err) {
  return write_at(g, &g->state.folder, mark, clock, err);
}

static sfc_status corrupt(sfc_error *err, const char *path, const char *why) {
  return sfc_fail(err, SFC_STATE_ERROR,
                  "state file %s is unreadable (%s); it guards against "
                  "duplicate IDs after a restart: restore it, or delete it "
                  "only once the clock is surely past every ID this node "
                  "issued",
                  path, why);
}

/* Reads the state file `name` of the folder; a missing one is a new node
 * value (SFC_OK, *saved untouched). */
static sfc_status read_at(const sfc_dir *dir, const char *name,
                          const char *path, const sfc_layout *layout,
                          const char *node_text, sfc_saved *saved,
                          sfc_error *err) {
  char buf[STATE_MAX + 1];
  size_t n, body, end;
  bool missing;
  sfc_status st = sfc_file_read_at(dir, name, path, buf, sizeof buf, &n,
                                   &missing, NULL, err);
  if (st != SFC_OK || missing) return st; /* missing: a new node value */
  if (n >= STATE_MAX) return corrupt(err, path, "too large");
  const char *why = sfc_check_verify(buf, n, &body, &end);
  if (why) return corrupt(err, path, why);
  if (end != n) return corrupt(err, path, "text after the checksum");
  if (strncmp(buf, STATE_MAGIC "\n", strlen(STATE_MAGIC) + 1) != 0)
    return corrupt(err, path, "not a snowflake-c state file");

  /* One "key value" per line, in a fixed order, parsed strictly: the
   * checksum proves the file intact, not that it was written by us. */
  buf[body] = '\0';
  char *p = buf + strlen(STATE_MAGIC) + 1;
  const char *spec = sfc_text_line(&p, "layout");
  const char *epoch_text = spec ? sfc_text_line(&p, "epoch") : NULL;
  const char *node = epoch_text ? sfc_text_line(&p, "node") : NULL;
  char want_spec[SFC_SPEC_MAX];
  long long epoch;
  if (!node || !sfc_text_number(epoch_text, INT64_MIN, &epoch))
    return corrupt(err, path, "malformed contents");
  sfc_layout_spec(layout, want_spec, sizeof want_spec);
  if (strcmp(spec, want_spec) != 0 || epoch != layout->epoch_ms ||
      strcmp(node, node_text) != 0)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state file %s belongs to layout %.64s, epoch %lld, "
                    "node '%.40s' — not to layout %s, epoch %lld, node '%s': "
                    "give each layout its own state_dir",
                    path, spec, epoch, node, want_spec,
                    (long long)layout->epoch_ms, node_text);
  uint64_t clock_max =
      layout->clock_index >= 0 ? layout->fields[layout->clock_index].max : 0;
  uint64_t time_max = layout->fields[0].max;
  why = sfc_saved_parse(p, clock_max, time_max, saved);
  return why ? corrupt(err, path, why) : SFC_OK;
}

/* Who holds the value, for the message, when its lock file says taken:
 * the pid its holder wrote there. */
static void find_holder(sfc_generator *g, const sfc_dir *dir) {
  char name[sizeof g->state.stem + 8], text[64];
  size_t len;
  bool missing;
  long pid;
  file_name(g, ".lock", name, sizeof name);
  g->state.holder = 0;
  if (sfc_file_read_at(dir, name, name, text, sizeof text, &len, &missing, NULL,
                       NULL) == SFC_OK &&
      !missing && sscanf(text, "pid %ld", &pid) == 1 && pid > 0)
    g->state.holder = pid;
}

/* Takes the lock file of the current stem in the folder `dir`. *held: a
 * live process has the value. On success the lock file is *lock_fd. */
static sfc_status lock_at(sfc_generator *g, const sfc_dir *dir, sfc_fd *lock_fd,
                          bool *held, sfc_error *err) {
  char name[sizeof g->state.stem + 8], path[4200];
  file_name(g, ".lock", name, sizeof name);
  file_path(g, ".lock", path, sizeof path);
  *held = false;
  for (int attempt = 0; attempt < 16; attempt++) {
    sfc_fd fd;
    sfc_status st = sfc_file_open_lock(dir, name, path, &fd, err);
    if (st != SFC_OK) return st;
    st = sfc_file_try_lock(fd, path, held, err);
    if (st != SFC_OK || *held) {
      sfc_fd_close(fd);
      if (*held) find_holder(g, dir);
      return st;
    }
    /* A lock on a file unlinked meanwhile guards nothing: take it again. */
    if (!sfc_file_is_at(dir, name, fd)) {
      sfc_fd_close(fd);
      continue;
    }
    g->state.holder = 0;
    char text[32];
    int k = snprintf(text, sizeof text, "pid %ld\n", sfc_os_pid());
    sfc_file_set_text(fd, text, (size_t)k); /* for messages only */
    *lock_fd = fd;
    return SFC_OK;
  }
  return sfc_fail(err, SFC_STATE_ERROR,
                  "lock file %s keeps being replaced while it is taken: "
                  "something removes files in the state_dir; keep it out of "
                  "temporary folders that cleaners sweep",
                  path);
}

/* What a parked value hands over: its mark under every clock value (its
 * own clock table went with the switch). */
static void parked_saved(int64_t mark, sfc_saved *s) {
  sfc_saved_clear(s);
  s->mark = mark;
  for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
    s->last[c] = mark;
}

static void let_go_parked(sfc_generator *g, unsigned i) {
  sfc_saved s;
  parked_saved(g->state.park[i].mark, &s);
  sfc_fd_close(g->state.park[i].lock_fd);
  sfc_claim_release(&g->state.park[i].claim, g, &s);
}

/* Lets go of the value in use and of the parked ones. In a forked child
 * (the parent's locks and claims) only our copies are closed. */
static void release(sfc_generator *g) {
  const bool ours = g->pid == sfc_os_pid();
  sfc_fd_close(g->state.lock_fd);
  g->state.lock_fd = SFC_NO_FD;
  sfc_guard_release(g);
  while (g->state.parked) {
    unsigned i = --g->state.parked;
    if (ours) {
      let_go_parked(g, i);
    } else {
      sfc_fd_close(g->state.park[i].lock_fd);
      sfc_claim_drop(&g->state.park[i].claim);
    }
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
  st = lock_at(g, &g->state.folder, &lock_fd, held, err);
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

/* The value's state file, merged with what its claim handed over. */
static sfc_status read_saved(sfc_generator *g, const sfc_saved *handed,
                             sfc_saved *saved, sfc_error *err) {
  char name[sizeof g->state.stem + 8], path[4200],
      text[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
  file_name(g, ".state", name, sizeof name);
  file_path(g, ".state", path, sizeof path);
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  sfc_saved_clear(saved);
  sfc_status st =
      read_at(&g->state.folder, name, path, &g->layout, text, saved, err);
  if (st == SFC_OK) sfc_saved_merge(saved, handed);
  return st;
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
    set_stem(g);
    bool held;
    sfc_holder who;
    sfc_saved handed;
    sfc_saved_clear(&handed);
    sfc_status st = take_value(g, &handed, &held, &who, err);
    if (st != SFC_OK) return st;
    if (held) continue;
    st = read_saved(g, &handed, saved, err);
    if (st != SFC_OK) {
      untake_value(g);
      return st;
    }
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
  sfc_status st = take_free(g, now_tick(g) + 1, saved, err);
  if (st == SFC_RETRY) st = take_free(g, INT64_MAX, saved, err);
  if (st != SFC_RETRY) return st;
  const sfc_field *f = &g->layout.fields[g->node.field[g->node.auto_slot]];
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "all %llu values of %s in the pool %s are held by live "
                  "processes: stop some, or widen the field",
                  (unsigned long long)f->max + 1, f->name, g->state.dir);
}

static const char *dir_of(const sfc_generator *g) {
  return g->state.dir_real ? g->state.dir_real : g->state.dir;
}

/* Says who holds the value: a live generator with the same ID space and
 * node bits, in this process or another — seen by the host-wide claim, or
 * by the lock file (the guard off, or a holder the claim cannot see). */
static sfc_status held_elsewhere(sfc_generator *g, sfc_holder *who,
                                 sfc_error *err) {
  if (who->pid >= 0) return sfc_claim_refuse(&g->claim, g, who, err);
  /* A holder that has just taken the lock names itself a moment later:
   * look again, 20 ms at most. */
  for (int i = 0; i < 20 && !g->state.holder; i++) {
    sfc_pause(1000);
    find_holder(g, &g->state.folder);
  }
  char text[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  char by[48] = "another live process";
  if (g->state.holder)
    snprintf(by, sizeof by, "live process %ld", g->state.holder);
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "node value %s is held by %s (lock file %s.lock): give "
                  "each process its own value, or use auto",
                  text, by, g->state.path);
}

static sfc_status take_static(sfc_generator *g, sfc_saved *saved,
                              sfc_error *err) {
  set_stem(g);
  bool held;
  sfc_holder who;
  sfc_saved handed;
  sfc_saved_clear(&handed);
  sfc_status st = take_value(g, &handed, &held, &who, err);
  if (st != SFC_OK) return st;
  if (held) return held_elsewhere(g, &who, err);
  st = read_saved(g, &handed, saved, err);
  if (st != SFC_OK) untake_value(g);
  return st;
}

sfc_status sfc_state_acquire(sfc_generator *g, sfc_saved *saved,
                             sfc_error *err) {
  sfc_status st = g->node.auto_slot >= 0 ? take_from_pool(g, saved, err)
                                         : take_static(g, saved, err);
  if (st != SFC_OK) return st;
  memcpy(g->last, saved->last, sizeof g->last);
  /* Reserve ahead of the clock; never move a mark backwards. */
  int64_t mark = now_tick(g) + g->state.reserve_ticks;
  if (mark < saved->mark) mark = saved->mark;
  if ((uint64_t)mark > g->pack.time_max) mark = (int64_t)g->pack.time_max;
  st = sfc_state_write(g, mark, saved->clock, err);
  if (st != SFC_OK) return st;
  atomic_store(&g->mark, mark);
  atomic_store(&g->wanted_mark, 0);
  g->state.error_status = 0;
  return SFC_OK;
}

static void init_wake(sfc_generator *g) {
  sfc_os_cond_init(&g->state.wake);
}

sfc_status sfc_state_open(sfc_generator *g, const sfc_options *opts,
                          sfc_saved *saved, sfc_error *err) {
  g->state.dir = strdup(opts->state_dir);
  if (!g->state.dir) return sfc_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
  int64_t reserve_ms =
      opts->state_reserve_ms == SFC_UNSET ? 1000 : opts->state_reserve_ms;
  g->state.reserve_ticks = reserve_ms * 1000 / g->unit_us;
  if (g->state.reserve_ticks < 2) g->state.reserve_ticks = 2;
  init_wake(g);
  sfc_status st = sfc_dir_open(g->state.dir, &g->state.folder, err);
  if (st != SFC_OK) return st;
  /* Checked and put back by its absolute path: a later chdir of the
   * process must not send the keeper to another folder. */
  g->state.dir_real = sfc_path_absolute(g->state.dir);
  return sfc_state_acquire(g, saved, err);
}

/* Lets go of the values rollback=switch parked once the clock has passed
 * their marks: their IDs are all behind it. */
static void unpark(sfc_generator *g) {
  const int64_t now = now_tick(g);
  for (unsigned i = 0; i < g->state.parked;) {
    if (g->state.park[i].mark >= now) {
      i++;
      continue;
    }
    let_go_parked(g, i);
    g->state.park[i] = g->state.park[--g->state.parked];
  }
}

sfc_status sfc_state_switch(sfc_generator *g, int64_t tick, uint64_t *first,
                            sfc_error *err) {
  const sfc_packing *p = &g->pack;
  sfc_state *s = &g->state;
  sfc_mutex_lock(&g->lock);
  uint64_t w = atomic_load(&g->word);
  if ((int64_t)sfc_word_time(p, w) - tick <= g->drift_ticks) {
    sfc_mutex_unlock(&g->lock); /* another thread has moved on */
    return SFC_RETRY;
  }
  if (s->lost || s->error_status) {
    sfc_status st = (sfc_status)s->error_status;
    if (s->lost) st = SFC_WORKER_UNAVAILABLE;
    sfc_fail(err, st, "%s", s->error_message);
    sfc_mutex_unlock(&g->lock);
    return st;
  }
  unpark(g);
  if (s->parked == SFC_PARKED_MAX) {
    sfc_mutex_unlock(&g->lock);
    return sfc_fail(err, SFC_CLOCK_MOVED_BACKWARDS,
                    "already holds %d values whose IDs are ahead of the "
                    "clock; wait for the clock to pass them",
                    SFC_PARKED_MAX);
  }
  /* Until the word switches, threads on the fast path may still issue
   * under the old value, up to the mark (which cannot move while we hold
   * the lock): its state file already says so. */
  const sfc_fd old_lock = s->lock_fd;
  const sfc_claim old_claim = g->claim;
  const uint64_t old_value = g->node.value[g->node.auto_slot];
  const int64_t old_mark = atomic_load(&g->mark);
  const sfc_file_id old_state = s->state_id;
  s->lock_fd = SFC_NO_FD;
  sfc_claim_init(&g->claim);
  sfc_saved saved;
  sfc_error e;
  /* A value whose IDs are all behind the clock. */
  sfc_status st = take_free(g, tick, &saved, &e);
  int64_t mark = tick + s->reserve_ticks;
  if (st == SFC_OK) {
    if (mark < old_mark) mark = old_mark; /* the fast path may reach it */
    if (mark < saved.mark) mark = saved.mark;
    if ((uint64_t)mark > p->time_max) mark = (int64_t)p->time_max;
    memcpy(g->last, saved.last, sizeof g->last);
    st = sfc_state_write(g, mark, saved.clock, &e);
    if (st != SFC_OK) untake_value(g);
  }
  if (st != SFC_OK) { /* keep the value in use */
    g->node.value[g->node.auto_slot] = old_value;
    set_stem(g);
    s->lock_fd = old_lock;
    g->claim = old_claim;
    s->state_id = old_state;
    sfc_mutex_unlock(&g->lock);
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
  s->parked++;
  sfc_generator_set_node(g);
  const uint64_t id = sfc_word(p, (uint64_t)tick, saved.clock,
                               sfc_seq_start(g, (uint64_t)tick));
  while (!atomic_compare_exchange_weak(&g->word, &w, id)) {
  }
  const uint64_t t = sfc_word_time(p, w);
  atomic_fetch_add_explicit(&g->issued_closed,
                            sfc_word_seq(p, w) - sfc_seq_start(g, t) + 1,
                            memory_order_relaxed);
  atomic_store(&g->mark, mark);
  atomic_fetch_add_explicit(&g->node_switches, 1, memory_order_relaxed);
  sfc_mutex_unlock(&g->lock);
  *first = id;
  return SFC_TAKEN;
}

/* Whether the files are still ours: the folder at the path is the one we
 * opened, the lock file there is the one we hold, and the state file is the
 * one we wrote last (or gone). */
static bool still_ours(const sfc_generator *g) {
  const sfc_dir *dir = &g->state.folder;
  char name[sizeof g->state.stem + 8];
  sfc_file_id id;
  if (!sfc_dir_is(dir_of(g), dir->id)) return false;
  file_name(g, ".lock", name, sizeof name);
  if (!sfc_file_is_at(dir, name, g->state.lock_fd)) return false;
  file_name(g, ".state", name, sizeof name);
  if (!sfc_file_id_at(dir, name, &id)) return false; /* removed: write it */
  return same_id(id, g->state.state_id);
}

/* The value was taken by another process while our files were gone: stop
 * at once, for good (a mark below every tick refuses every ID). */
static sfc_status lost(sfc_generator *g, const char *why, sfc_error *err) {
  char text[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  atomic_store(&g->mark, -1);
  g->state.lost = true;
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "node value %s was lost: its lock file %s.lock was removed "
                  "and %s; this generator stops so as not to repeat its IDs "
                  "— keep state_dir out of folders that cleaners sweep (such "
                  "as /tmp)",
                  text, g->state.path, why);
}

/* The lock file at the path is held by another process. One that checks
 * our host-wide name holds it for a moment only, then lets go: try again at
 * the next cycle, without publishing a new mark. A holder that wrote its
 * state file, or that holds on (where no host-wide name can tell it that
 * the value is ours), has taken the value. */
static sfc_status contended(sfc_generator *g, const sfc_dir *dir,
                            sfc_error *err) {
  char name[sizeof g->state.stem + 8];
  sfc_file_id id;
  file_name(g, ".state", name, sizeof name);
  if (sfc_file_id_at(dir, name, &id) && !same_id(id, g->state.state_id))
    return lost(g, "another process holds it and wrote its state file", err);
  const int64_t now = sfc_monotonic_us();
  if (!g->state.contended_since) g->state.contended_since = now;
  if (!sfc_claim_held(&g->claim) || now - g->state.contended_since > 250000)
    return lost(g, "another process holds it", err);
  return SFC_RETRY;
}

/* Puts our files back at the path after a cleaner removed them, unless
 * another process took the value meanwhile. Writes the state with `mark`. */
static sfc_status retake(sfc_generator *g, int64_t mark, uint64_t clock,
                         sfc_error *err) {
  sfc_dir dir;
  sfc_status st = sfc_dir_open(dir_of(g), &dir, err);
  if (st != SFC_OK) return st;
  const bool same_dir = same_id(dir.id, g->state.folder.id);
  char name[sizeof g->state.stem + 8];
  file_name(g, ".lock", name, sizeof name);
  sfc_fd lock_fd = SFC_NO_FD;
  if (!same_dir || !sfc_file_is_at(&dir, name, g->state.lock_fd)) {
    bool held;
    /* Our host-wide claim is still ours: not taken again. */
    st = lock_at(g, &dir, &lock_fd, &held, err);
    if (st == SFC_OK && held) st = contended(g, &dir, err);
    if (st != SFC_OK) {
      sfc_fd_close(dir.fd);
      return st;
    }
  }
  g->state.contended_since = 0;
  /* With our lock still in place nobody else could write the state file
   * (an operator did: ours replaces it). With the lock taken anew, a state
   * file we did not write means another holder was here meanwhile. */
  file_name(g, ".state", name, sizeof name);
  sfc_file_id id;
  if (lock_fd != SFC_NO_FD && sfc_file_id_at(&dir, name, &id) &&
      !(same_dir && same_id(id, g->state.state_id))) {
    sfc_fd_close(lock_fd);
    sfc_fd_close(dir.fd);
    return lost(g, "another process wrote its state file", err);
  }
  st = write_at(g, &dir, mark, clock, err);
  if (st != SFC_OK) {
    sfc_fd_close(lock_fd);
    sfc_fd_close(dir.fd);
    return st;
  }
  if (lock_fd != SFC_NO_FD) {
    sfc_fd_close(g->state.lock_fd);
    g->state.lock_fd = lock_fd;
  }
  sfc_fd_close(g->state.folder.fd);
  g->state.folder = dir;
  return SFC_OK;
}

/* One cycle of the keeper, under g->lock: moves the mark ahead when it runs
 * short, and makes sure the files are still ours before the new mark is
 * published (a mark written into a file that another holder has read since
 * would not bind it). */
static void keep(sfc_generator *g) {
  if (g->state.lost) return;
  unpark(g);
  const int64_t reserve = g->state.reserve_ticks;
  /* Ticks ahead of the clock are asked for through wanted_mark. The clock
   * field switches under g->lock only, so the word's is the newest. */
  uint64_t clock = sfc_word_clock(&g->pack, atomic_load(&g->word));
  int64_t base = now_tick(g);
  int64_t wanted = atomic_load(&g->wanted_mark);
  if (wanted > base) base = wanted;
  int64_t mark = atomic_load(&g->mark), next = mark;
  if (mark - base < reserve / 2 && mark < (int64_t)g->pack.time_max) {
    next = base + reserve;
    if ((uint64_t)next > g->pack.time_max) next = (int64_t)g->pack.time_max;
  }
  sfc_error e;
  sfc_status st = SFC_OK;
  if (next != mark) st = sfc_state_write(g, next, clock, &e);
  if (!still_ours(g)) st = retake(g, next, clock, &e);
  if (st == SFC_RETRY) return; /* contended: look again next cycle */
  if (st == SFC_OK) {
    if (next != mark) atomic_store(&g->mark, next);
    g->state.error_status = 0;
  } else {
    g->state.error_status = e.status;
    snprintf(g->state.error_message, sizeof g->state.error_message, "%s",
             e.message);
  }
}

/* Keeps the mark at least half a reserve ahead of the clock and of every
 * tick the hot path wants, so that the hot path never waits for the disk. */
static void *keeper_main(void *arg) {
  sfc_generator *g = arg;
  int64_t period_us = g->state.reserve_ticks * g->unit_us / 4;
  if (period_us < 1000) period_us = 1000;
  if (period_us > VERIFY_PERIOD_US) period_us = VERIFY_PERIOD_US;
  sfc_mutex_lock(&g->lock);
  while (!g->state.stopping) {
    keep(g);
    sfc_os_cond_wait_us(&g->state.wake, &g->lock, period_us);
  }
  sfc_mutex_unlock(&g->lock);
  return NULL;
}

sfc_status sfc_state_start_keeper(sfc_generator *g, sfc_error *err) {
  g->state.stopping = false;
  int e = sfc_thread_start(&g->state.keeper, keeper_main, g);
  if (e != 0)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "cannot start the state keeper thread: %s", strerror(e));
  g->state.keeper_running = true;
  return SFC_OK;
}

void sfc_state_close(sfc_generator *g, bool clean) {
  if (g->state.keeper_running) {
    sfc_mutex_lock(&g->lock);
    g->state.stopping = true;
    sfc_cond_signal(&g->state.wake);
    sfc_mutex_unlock(&g->lock);
    sfc_thread_join(g->state.keeper);
    g->state.keeper_running = false;
  }
  if (clean && g->state.lock_fd != SFC_NO_FD && g->state.error_status == 0 &&
      !g->state.lost && still_ours(g)) {
    /* The exact last tick: a clean restart continues right after it. */
    uint64_t w = atomic_load(&g->word);
    sfc_state_write(g, (int64_t)sfc_word_time(&g->pack, w),
                    sfc_word_clock(&g->pack, w), NULL);
  }
  release(g);
  sfc_fd_close(g->state.folder.fd);
  g->state.folder.fd = SFC_NO_FD;
  free(g->state.dir);
  free(g->state.dir_real);
  g->state.dir = NULL;
  g->state.dir_real = NULL;
}

/* In a forked child: the keeper thread does not exist there, and the lock
 * files are the parent's: closing our copies leaves its locks in place (a
 * helper process must not keep its parent's values after the parent). */
void sfc_state_after_fork(sfc_generator *g) {
  g->state.keeper_running = false;
  init_wake(g);
  sfc_fd_close(g->state.lock_fd);
  g->state.lock_fd = SFC_NO_FD;
  for (unsigned i = 0; i < g->state.parked; i++) {
    sfc_fd_close(g->state.park[i].lock_fd);
    sfc_claim_drop(&g->state.park[i].claim);
  }
  g->state.parked = 0;
}

/* Lets go of the values held, before the pool of a forked child takes a
 * value of its own. */
void sfc_state_release(sfc_generator *g) {
  release(g);
}
