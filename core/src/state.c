/* The state directory: one lock file and one state file per node value.
 *
 * The lock file (flock, released by the kernel when the process dies) makes
 * sure two live processes never hold the same node value on one host. The
 * state file holds a high-water mark reserved ahead of time by a keeper
 * thread — so the hot path never touches the disk — and the clock table, so
 * that a restart whose clock is behind the mark is detected.
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

static void set_stem(sfc_generator *g) {
  char *stem = g->state.stem;
  size_t n = sfc_node_text(&g->layout, &g->node, stem, sizeof g->state.stem);
  for (size_t i = 0; i < n; i++) {
    if (stem[i] == ',') stem[i] = '.';
    if (stem[i] == '=') stem[i] = '-';
  }
  if (!n) snprintf(stem, sizeof g->state.stem, "node");
  if (g->state.guard_only) {
    /* The guard's folder is shared by every layout: the name says which. */
    char spec[SFC_SPEC_MAX + 24];
    int k = snprintf(spec, sizeof spec, "%lld ", (long long)g->layout.epoch_ms);
    sfc_layout_spec(&g->layout, spec + k, sizeof spec - (size_t)k);
    char node[sizeof g->state.stem];
    memcpy(node, stem, sizeof node);
    snprintf(stem, sizeof g->state.stem, "guard-%016llx.%.*s",
             (unsigned long long)sfc_fnv1a(SFC_FNV_OFFSET, spec, strlen(spec)),
             (int)sizeof g->state.stem - 24, node);
  }
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
  int n = snprintf(buf, cap,
                   STATE_MAGIC "\nlayout %s\nepoch %lld\nnode %s\nmark "
                               "%lld\nclock %llu\nlast",
                   spec, (long long)g->layout.epoch_ms, node, (long long)mark,
                   (unsigned long long)clock);
  for (uint64_t c = 0; c <= g->pack.clock_max; c++)
    n += snprintf(buf + n, cap - (size_t)n, " %lld", (long long)g->last[c]);
  n += snprintf(buf + n, cap - (size_t)n, "\n");
  n += snprintf(buf + n, cap - (size_t)n, "check %016llx\n",
                (unsigned long long)sfc_fnv1a(SFC_FNV_OFFSET, buf, (size_t)n));
  return (size_t)n;
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

/* Splits off the line "key value" at *p: returns the value (NUL-terminated
 * in place) and moves *p to the next line, or NULL when the key differs. */
static const char *next_line(char **p, const char *key) {
  size_t k = strlen(key);
  if (!*p || strncmp(*p, key, k) != 0 || (*p)[k] != ' ') return NULL;
  char *value = *p + k + 1, *end = strchr(value, '\n');
  if (!end) return NULL;
  *end = '\0';
  *p = end + 1;
  return value;
}

static bool parse_ll(const char *text, long long *out) {
  if (!text || !*text || strlen(text) > 19) return false;
  char *end;
  long long v = strtoll(text, &end, 10);
  if (*end || (text[0] != '-' && (text[0] < '0' || text[0] > '9')))
    return false;
  *out = v;
  return true;
}

/* Reads the state file `name` of the folder; a missing one is a new node
 * value (SFC_OK, *saved untouched). */
static sfc_status read_at(const sfc_dir *dir, const char *name,
                          const char *path, const sfc_layout *layout,
                          const char *node_text, sfc_saved *saved,
                          sfc_error *err) {
  char buf[STATE_MAX + 1];
  size_t n;
  bool missing;
  sfc_status st =
      sfc_file_read_at(dir, name, path, buf, sizeof buf, &n, &missing, err);
  if (st != SFC_OK || missing) return st; /* missing: a new node value */
  if (n >= STATE_MAX) return corrupt(err, path, "too large");
  if (strlen(buf) != n) return corrupt(err, path, "binary content");
  char *check = strstr(buf, "check ");
  if (!check || (check != buf && check[-1] != '\n'))
    return corrupt(err, path, "truncated: no checksum");
  unsigned long long sum;
  char tail;
  if (sscanf(check, "check %16llx%c", &sum, &tail) != 2 || tail != '\n' ||
      check[23] != '\0')
    return corrupt(err, path, "truncated checksum");
  if (sum != sfc_fnv1a(SFC_FNV_OFFSET, buf, (size_t)(check - buf)))
    return corrupt(err, path, "checksum mismatch");
  if (strncmp(buf, STATE_MAGIC "\n", strlen(STATE_MAGIC) + 1) != 0)
    return corrupt(err, path, "not a snowflake-c state file");

  /* One "key value" per line, in a fixed order, parsed strictly: the
   * checksum proves the file intact, not that it was written by us. */
  char *p = buf + strlen(STATE_MAGIC) + 1;
  const char *spec = next_line(&p, "layout"),
             *epoch_text = next_line(&p, "epoch");
  const char *node = next_line(&p, "node"), *mark_text = next_line(&p, "mark");
  const char *clock_text = next_line(&p, "clock");
  char want_spec[SFC_SPEC_MAX];
  long long epoch, mark, clock;
  if (!spec || !node || !parse_ll(epoch_text, &epoch) ||
      !parse_ll(mark_text, &mark) || !parse_ll(clock_text, &clock) ||
      strncmp(p, "last", 4) != 0)
    return corrupt(err, path, "malformed contents");
  p += 4;
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
  if (mark < 0 || (uint64_t)mark > layout->fields[0].max || clock < 0 ||
      (uint64_t)clock > clock_max)
    return corrupt(err, path, "values out of range");
  for (uint64_t c = 0; c <= clock_max; c++) {
    char *end;
    if (*p != ' ' || !(p[1] == '-' || (p[1] >= '0' && p[1] <= '9')))
      return corrupt(err, path, "bad clock table");
    long long v = strtoll(p + 1, &end, 10);
    if (end == p + 1 || v < SFC_NEVER)
      return corrupt(err, path, "bad clock table");
    saved->last[c] = v;
    p = end;
  }
  if (*p != '\n' || p + 1 != check)
    return corrupt(err, path, "bad clock table");
  saved->mark = mark;
  saved->clock = (uint64_t)clock;
  return SFC_OK;
}

/* The host-wide name of the value held: the folder's real path, the file
 * stem, the layout and its epoch. */
static size_t host_key(const sfc_generator *g, char *key, size_t cap) {
  char spec[SFC_SPEC_MAX];
  sfc_layout_spec(&g->layout, spec, sizeof spec);
  int n = snprintf(key, cap, "%s\n%s\n%s\n%lld",
                   g->state.dir_real ? g->state.dir_real : g->state.dir,
                   g->state.stem, spec, (long long)g->layout.epoch_ms);
  return n < 0 || (size_t)n >= cap ? strlen(key) : (size_t)n;
}

static int host_lock(sfc_generator *g, int *fd) {
  char key[8192];
  size_t n = host_key(g, key, sizeof key);
  return sfc_host_lock(key, n, fd, &g->state.holder);
}

/* Who holds the value, for the message, when its lock file says taken. */
static void find_holder(sfc_generator *g) {
  char key[8192];
  size_t n = host_key(g, key, sizeof key);
  g->state.holder = sfc_host_holder(key, n);
  if (g->state.holder) return;
  /* No host-wide names here: the pid its holder wrote in the lock file. */
  char name[sizeof g->state.stem + 8], text[64];
  size_t len;
  bool missing;
  long pid;
  file_name(g, ".lock", name, sizeof name);
  if (sfc_file_read_at(&g->state.folder, name, name, text, sizeof text, &len,
                       &missing, NULL) == SFC_OK &&
      !missing && sscanf(text, "pid %ld", &pid) == 1 && pid > 0)
    g->state.holder = pid;
}

/* The guard's lock file keeps the last tick of a holder that left before
 * the clock passed it ("last T"): the next holder starts after it. */
static void read_last(sfc_generator *g, const sfc_dir *dir, const char *name) {
  char text[96];
  size_t len;
  bool missing;
  long long last;
  const char *line;
  g->state.guard_last = -1;
  if (sfc_file_read_at(dir, name, name, text, sizeof text, &len, &missing,
                       NULL) == SFC_OK &&
      !missing && (line = strstr(text, "last ")) != NULL &&
      sscanf(line, "last %lld", &last) == 1 && last >= 0)
    g->state.guard_last = last;
}

/* Takes the lock file of the current stem in the folder `dir`. *held: a
 * live process has the value. On success the lock file is *lock_fd and the
 * host-wide name *host_fd. */
static sfc_status lock_at(sfc_generator *g, const sfc_dir *dir, bool host,
                          sfc_fd *lock_fd, int *host_fd, bool *held,
                          sfc_error *err) {
  char name[sizeof g->state.stem + 8], path[4200];
  file_name(g, ".lock", name, sizeof name);
  file_path(g, ".lock", path, sizeof path);
  *held = false;
  *host_fd = -1;
  for (int attempt = 0; attempt < 16; attempt++) {
    sfc_fd fd;
    sfc_status st = sfc_file_open_lock(dir, name, path, &fd, err);
    if (st != SFC_OK) return st;
    st = sfc_file_try_lock(fd, path, held, err);
    if (st != SFC_OK || *held) {
      sfc_fd_close(fd);
      if (*held && host) find_holder(g);
      return st;
    }
    /* A lock on a file unlinked meanwhile guards nothing: take it again. */
    if (!sfc_file_is_at(dir, name, fd)) {
      sfc_fd_close(fd);
      continue;
    }
    /* The lock file can be deleted under a holder; its host-wide name
     * cannot. */
    g->state.holder = 0;
    if (host && host_lock(g, host_fd) == EWOULDBLOCK) {
      sfc_fd_close(fd);
      *held = true;
      return SFC_OK;
    }
    if (g->state.guard_only) read_last(g, dir, name);
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

static void release(sfc_generator *g) {
  char name[sizeof g->state.stem + 8];
  file_name(g, ".lock", name, sizeof name);
  /* The guard's folder would fill up with the lock files of values long
   * gone: its holder removes its own (a contender that opened the old file
   * sees it unlinked once locked, and takes the new one). Never in a forked
   * child, whose parent still holds the lock. */
  if (g->state.guard_only && g->pid == sfc_os_pid() &&
      g->state.lock_fd != SFC_NO_FD) {
    /* The last tick issued under any clock value: a holder that comes
     * before the clock passes it starts after it, in this process or
     * another. Once the clock has passed it the file can go. */
    int64_t last = (int64_t)sfc_word_time(&g->pack, atomic_load(&g->word));
    for (uint64_t c = 0; c <= g->pack.clock_max; c++)
      if (g->last[c] > last) last = g->last[c];
    /* Most often the clock is within a tick of it: wait that out (2 ms at
     * most) and leave no file behind. */
    const int64_t wait_us =
        g->epoch_us + (last + 1) * g->unit_us - sfc_generator_now_us(g);
    if (wait_us > 0 && wait_us <= 2000) {
      /* The wall clock can lag the monotonic one of sfc_pause a little:
       * look again, for 2 ms at most. */
      const int64_t give_up = sfc_monotonic_us() + wait_us + 2000;
      sfc_pause(wait_us);
      while (last >= now_tick(g) && sfc_monotonic_us() < give_up)
        sfc_pause(100);
    }
    if (last >= now_tick(g)) {
      char text[64];
      int k = snprintf(text, sizeof text, "pid %ld\nlast %lld\n", sfc_os_pid(),
                       (long long)last);
      sfc_file_set_text(g->state.lock_fd, text, (size_t)k);
      sfc_fd_close(g->state.lock_fd);
    } else {
      sfc_file_close_removing(&g->state.folder, name, g->state.lock_fd);
    }
  } else {
    sfc_fd_close(g->state.lock_fd);
  }
  sfc_host_unlock(g->state.host_fd);
  g->state.lock_fd = SFC_NO_FD;
  g->state.host_fd = -1;
  while (g->state.parked) {
    unsigned i = --g->state.parked;
    sfc_fd_close(g->state.park[i].lock_fd);
    sfc_host_unlock(g->state.park[i].host_fd);
  }
}

/* 0: locked; else *held or an error. */
static sfc_status try_lock(sfc_generator *g, bool *held, sfc_error *err) {
  sfc_fd lock_fd = SFC_NO_FD;
  int host_fd = -1;
  sfc_status st =
      lock_at(g, &g->state.folder, true, &lock_fd, &host_fd, held, err);
  if (st == SFC_OK && !*held) {
    g->state.lock_fd = lock_fd;
    g->state.host_fd = host_fd;
  }
  return st;
}

static sfc_status read_saved(sfc_generator *g, sfc_saved *saved,
                             sfc_error *err) {
  char name[sizeof g->state.stem + 8], path[4200],
      text[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
  file_name(g, ".state", name, sizeof name);
  file_path(g, ".state", path, sizeof path);
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
    saved->last[c] = SFC_NEVER;
  saved->mark = 0;
  saved->clock = 0;
  return read_at(&g->state.folder, name, path, &g->layout, text, saved, err);
}

/* Takes the first value of the auto field that no live process holds and
 * whose mark is below `below`: locked, its state in *saved. SFC_RETRY when
 * there is none. */
static sfc_status take_free(sfc_generator *g, int64_t below, sfc_saved *saved,
                            sfc_error *err) {
  sfc_node *node = &g->node;
  const sfc_field *f = &g->layout.fields[node->field[node->auto_slot]];
  for (uint64_t v = 0; v <= f->max; v++) {
    node->value[node->auto_slot] = v;
    set_stem(g);
    bool held;
    sfc_status st = try_lock(g, &held, err);
    if (st != SFC_OK) return st;
    if (held) continue;
    st = read_saved(g, saved, err);
    if (st != SFC_OK) return st;
    if (saved->mark < below) return SFC_OK;
    sfc_fd_close(g->state.lock_fd);
    sfc_host_unlock(g->state.host_fd);
    g->state.lock_fd = SFC_NO_FD;
    g->state.host_fd = -1;
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

/* Says who holds the value: a live generator with the same layout and node
 * values, in this process or another. */
static sfc_status held_elsewhere(sfc_generator *g, sfc_error *err) {
  /* A holder that has just taken the lock names itself a moment later (its
   * host-wide name, its pid in the lock file): look again, 20 ms at most. */
  for (int i = 0; i < 20 && !g->state.holder; i++) {
    sfc_pause(1000);
    find_holder(g);
  }
  char text[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  char by[48] = "another live process";
  if (g->state.holder)
    snprintf(by, sizeof by, "live process %ld", g->state.holder);
  if (g->state.guard_only)
    return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                    "node value %s is in use by %s (guard folder %s): two "
                    "generators with one value issue the same IDs. Give each "
                    "its own value or a pool field (auto, with a state_dir); "
                    "if sharing it is meant, turn the guard off (the "
                    "generator's guard option, --no-guard)",
                    text, by, dir_of(g));
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "node value %s is held by %s (lock file %s.lock): give "
                  "each process its own value, or use auto",
                  text, by, g->state.path);
}

static sfc_status take_static(sfc_generator *g, sfc_saved *saved,
                              sfc_error *err) {
  set_stem(g);
  bool held;
  sfc_status st = try_lock(g, &held, err);
  if (st != SFC_OK) return st;
  if (held) return held_elsewhere(g, err);
  return read_saved(g, saved, err);
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
  sfc_status st = sfc_dir_open(g->state.dir, false, &g->state.folder, err);
  if (st != SFC_OK) return st;
  /* Checked and put back by its absolute path: a later chdir of the
   * process must not send the keeper to another folder. */
  g->state.dir_real = sfc_path_absolute(g->state.dir);
  st = sfc_state_acquire(g, saved, err);
  if (st == SFC_OK)
    snprintf(g->state.guard, sizeof g->state.guard, "held: %.*s.lock",
             (int)sizeof g->state.guard - 16, g->state.path);
  return st;
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
    sfc_fd_close(g->state.park[i].lock_fd);
    sfc_host_unlock(g->state.park[i].host_fd);
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
  const int old_host = s->host_fd;
  const uint64_t old_value = g->node.value[g->node.auto_slot];
  const int64_t old_mark = atomic_load(&g->mark);
  const sfc_file_id old_state = s->state_id;
  s->lock_fd = SFC_NO_FD;
  s->host_fd = -1;
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
  }
  if (st != SFC_OK) {         /* keep the value in use */
    sfc_fd_close(s->lock_fd); /* the other value, if one was taken */
    sfc_host_unlock(s->host_fd);
    g->node.value[g->node.auto_slot] = old_value;
    set_stem(g);
    s->lock_fd = old_lock;
    s->host_fd = old_host;
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
  s->park[s->parked].host_fd = old_host;
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

/* The i-th folder to try for the guard: the one given, or the defaults. */
static size_t guard_dir(const sfc_options *opts, unsigned i, char *buf,
                        size_t cap) {
  if (!opts->guard_dir) return sfc_guard_dir_default(i, buf, cap);
  int n = i ? 0 : snprintf(buf, cap, "%s", opts->guard_dir);
  return n > 0 ? (size_t)n : 0;
}

/* The host-wide guard of a generator without a state_dir: the lock file
 * of its layout and node values in a folder of this user's shared by the
 * host's processes (and, on Linux, the value's host-wide name). Trouble
 * with the folder never stops the generator: g->state.guard says why. */
sfc_status sfc_guard_open(sfc_generator *g, const sfc_options *opts,
                          sfc_saved *saved, sfc_error *err) {
  sfc_state *s = &g->state;
  char path[4096], why[SFC_MESSAGE_MAX] = "no folder for it";
  s->guard_only = true;
  for (unsigned i = 0;; i++) {
    size_t n = guard_dir(opts, i, path, sizeof path);
    if (!n || n >= sizeof path) break;
    sfc_error e;
    if (sfc_dir_open(path, true, &s->folder, &e) != SFC_OK) {
      snprintf(why, sizeof why, "%s", e.message);
      continue;
    }
    s->dir = strdup(path);
    s->dir_real = sfc_path_absolute(path);
    if (!s->dir) break;
    set_stem(g);
    bool held;
    sfc_status st = try_lock(g, &held, &e);
    if (st == SFC_OK && held) return held_elsewhere(g, err);
    if (st == SFC_OK) {
      snprintf(s->guard, sizeof s->guard, "held: %.*s.lock",
               (int)sizeof g->state.guard - 16, s->path);
      /* Only while the clock has not passed it: past it, IDs of the clock
       * are after it anyway (and a caller's injected times are its own). */
      if (s->guard_last >= now_tick(g) && s->guard_last > saved->mark)
        saved->mark = s->guard_last;
      return SFC_OK;
    }
    snprintf(why, sizeof why, "%s", e.message);
    sfc_state_close(g, false);
  }
  snprintf(s->guard, sizeof s->guard, "unavailable: %s", why);
  return SFC_OK;
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
  if (g->state.host_fd < 0 || now - g->state.contended_since > 250000)
    return lost(g, "another process holds it", err);
  return SFC_RETRY;
}

/* Puts our files back at the path after a cleaner removed them, unless
 * another process took the value meanwhile. Writes the state with `mark`. */
static sfc_status retake(sfc_generator *g, int64_t mark, uint64_t clock,
                         sfc_error *err) {
  sfc_dir dir;
  sfc_status st = sfc_dir_open(dir_of(g), false, &dir, err);
  if (st != SFC_OK) return st;
  const bool same_dir = same_id(dir.id, g->state.folder.id);
  char name[sizeof g->state.stem + 8];
  file_name(g, ".lock", name, sizeof name);
  sfc_fd lock_fd = SFC_NO_FD;
  int unused = -1;
  if (!same_dir || !sfc_file_is_at(&dir, name, g->state.lock_fd)) {
    bool held;
    /* Our host-wide name is still ours: not taken again. */
    st = lock_at(g, &dir, false, &lock_fd, &unused, &held, err);
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
  clean = clean && !g->state.guard_only;
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
 * file descriptor is shared with the parent, whose lock it is. */
void sfc_state_after_fork(sfc_generator *g) {
  g->state.keeper_running = false;
  init_wake(g);
}

/* Drops the parent's lock in a forked child: closing our copies leaves the
 * parent's lock and host-wide name in place. */
void sfc_state_release(sfc_generator *g) {
  release(g);
}
