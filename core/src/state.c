/* The state directory: one lock file and one state file per node value.
 *
 * The lock file (flock, released by the kernel when the process dies) makes
 * sure two live processes never hold the same node value on one host. The
 * state file holds a high-water mark reserved ahead of time by a keeper
 * thread — so the hot path never touches the disk — and the clock table, so
 * that a restart whose clock is behind the mark is detected. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STATE_MAGIC "snowflake-c state 1"
#define STATE_MAX 8192

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

static int64_t now_tick(const sfc_generator *g) {
  int64_t since = sfc_generator_now_us(g) - g->epoch_us;
  return since < 0 ? 0 : since / g->unit_us;
}

static void set_path(sfc_generator *g) {
  char node[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
  size_t n = sfc_node_text(&g->layout, &g->node, node, sizeof node);
  for (size_t i = 0; i < n; i++) {
    if (node[i] == ',') node[i] = '.';
    if (node[i] == '=') node[i] = '-';
  }
  snprintf(g->state.path, sizeof g->state.path, "%s/%s", g->state.dir,
           n ? node : "node");
}

static sfc_status state_error(sfc_error *err, const char *what,
                              const char *path, int e) {
  return sfc_fail(err, SFC_STATE_ERROR, "%s %s: %s", what, path, strerror(e));
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
                (unsigned long long)fnv1a(buf, (size_t)n));
  return (size_t)n;
}

/* Written to a temporary file, synced, then renamed over the old one: a
 * crash leaves either the old state or the new, never a mix. */
sfc_status sfc_state_write(sfc_generator *g, int64_t mark, uint64_t clock,
                           sfc_error *err) {
  char buf[STATE_MAX], path[4200], tmp[4200];
  size_t n = format_state(g, mark, clock, buf, sizeof buf);
  snprintf(path, sizeof path, "%s.state", g->state.path);
  snprintf(tmp, sizeof tmp, "%s.state.tmp", g->state.path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return state_error(err, "cannot write state file", tmp, errno);
  size_t done = 0;
  while (done < n) {
    ssize_t k = write(fd, buf + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      int e = k < 0 ? errno : ENOSPC;
      close(fd);
      unlink(tmp);
      return state_error(err, "cannot write state file", tmp, e);
    }
    done += (size_t)k;
  }
  if (fsync(fd) != 0) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return state_error(err, "cannot sync state file", tmp, e);
  }
  close(fd);
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return state_error(err, "cannot replace state file", path, e);
  }
  return SFC_OK;
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

sfc_status sfc_state_read(const char *path, const sfc_layout *layout,
                          const char *node_text, sfc_saved *saved,
                          sfc_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return SFC_OK; /* a new node value */
    return state_error(err, "cannot read state file", path, errno);
  }
  char buf[STATE_MAX + 1];
  size_t n = 0;
  for (;;) {
    ssize_t k = read(fd, buf + n, sizeof buf - 1 - n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      int e = errno;
      close(fd);
      return state_error(err, "cannot read state file", path, e);
    }
    if (k == 0 || n + (size_t)k >= sizeof buf - 1) {
      n += (size_t)k;
      break;
    }
    n += (size_t)k;
  }
  close(fd);
  buf[n] = '\0';
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
  if (sum != fnv1a(buf, (size_t)(check - buf)))
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

/* 0: locked; EWOULDBLOCK: held by another process; else an errno. */
static int try_lock(sfc_generator *g) {
  char path[4200];
  snprintf(path, sizeof path, "%s.lock", g->state.path);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    close(fd);
    return e;
  }
  g->state.lock_fd = fd;
  return 0;
}

static sfc_status read_saved(sfc_generator *g, sfc_saved *saved,
                             sfc_error *err) {
  char path[4200], text[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
  snprintf(path, sizeof path, "%s.state", g->state.path);
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
    saved->last[c] = SFC_NEVER;
  saved->mark = 0;
  saved->clock = 0;
  return sfc_state_read(path, &g->layout, text, saved, err);
}

/* Takes the first free value of the auto field. A value whose mark is still
 * ahead of the clock (its last holder crashed a moment ago) would start with
 * a rollback, so the first pass passes over it. */
static sfc_status take_from_pool(sfc_generator *g, sfc_saved *saved,
                                 sfc_error *err) {
  sfc_node *node = &g->node;
  const sfc_field *f = &g->layout.fields[node->field[node->auto_slot]];
  const int64_t now = now_tick(g);
  for (int pass = 0; pass < 2; pass++) {
    for (uint64_t v = 0; v <= f->max; v++) {
      node->value[node->auto_slot] = v;
      set_path(g);
      int e = try_lock(g);
      if (e == EWOULDBLOCK) continue;
      if (e != 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s.lock", g->state.path);
        return state_error(err, "cannot lock", path, e);
      }
      sfc_status st = read_saved(g, saved, err);
      if (st != SFC_OK) return st;
      if (pass == 1 || saved->mark <= now) return SFC_OK;
      close(g->state.lock_fd);
      g->state.lock_fd = -1;
    }
  }
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "all %llu values of %s in the pool %s are held by live "
                  "processes: stop some, or widen the field",
                  (unsigned long long)f->max + 1, f->name, g->state.dir);
}

static sfc_status take_static(sfc_generator *g, sfc_saved *saved,
                              sfc_error *err) {
  set_path(g);
  int e = try_lock(g);
  if (e == EWOULDBLOCK) {
    char text[SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)];
    sfc_node_text(&g->layout, &g->node, text, sizeof text);
    return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                    "node value %s is held by another live process (lock "
                    "file %s.lock): give each process its own value, or use "
                    "auto",
                    text, g->state.path);
  }
  if (e != 0) {
    char path[4200];
    snprintf(path, sizeof path, "%s.lock", g->state.path);
    return state_error(err, "cannot lock", path, e);
  }
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
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&g->state.wake, &attr);
  pthread_condattr_destroy(&attr);
}

sfc_status sfc_state_open(sfc_generator *g, const sfc_options *opts,
                          sfc_saved *saved, sfc_error *err) {
  g->state.dir = strdup(opts->state_dir);
  if (!g->state.dir) return sfc_fail(err, SFC_STATE_ERROR, "out of memory");
  int64_t reserve_ms = opts->state_reserve_ms ? opts->state_reserve_ms : 1000;
  g->state.reserve_ticks = reserve_ms * 1000 / g->unit_us;
  if (g->state.reserve_ticks < 2) g->state.reserve_ticks = 2;
  init_wake(g);
  if (mkdir(g->state.dir, 0755) != 0 && errno != EEXIST)
    return state_error(err, "cannot create state directory", g->state.dir,
                       errno);
  struct stat sb;
  if (stat(g->state.dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return sfc_fail(err, SFC_STATE_ERROR, "state_dir %s is not a directory",
                    g->state.dir);
  return sfc_state_acquire(g, saved, err);
}

/* Keeps the mark at least half a reserve ahead of the clock and of every
 * tick the hot path wants, so that the hot path never waits for the disk. */
static void *keeper_main(void *arg) {
  sfc_generator *g = arg;
  const int64_t reserve = g->state.reserve_ticks;
  int64_t period_us = reserve * g->unit_us / 4;
  if (period_us < 1000) period_us = 1000;
  pthread_mutex_lock(&g->lock);
  while (!g->state.stopping) {
    /* Ticks ahead of the clock are asked for through wanted_mark. */
    uint64_t w = atomic_load(&g->word);
    int64_t base = now_tick(g);
    int64_t wanted = atomic_load(&g->wanted_mark);
    if (wanted > base) base = wanted;
    int64_t mark = atomic_load(&g->mark);
    if (mark - base < reserve / 2 && mark < (int64_t)g->pack.time_max) {
      int64_t next = base + reserve;
      if ((uint64_t)next > g->pack.time_max) next = (int64_t)g->pack.time_max;
      sfc_error e;
      if (sfc_state_write(g, next, sfc_word_clock(&g->pack, w), &e) == SFC_OK) {
        atomic_store(&g->mark, next);
        g->state.error_status = 0;
      } else {
        g->state.error_status = e.status;
        snprintf(g->state.error_message, sizeof g->state.error_message, "%s",
                 e.message);
      }
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ns = ts.tv_nsec + (period_us % 1000000) * 1000;
    ts.tv_sec += (time_t)(period_us / 1000000 + ns / 1000000000);
    ts.tv_nsec = (long)(ns % 1000000000);
    pthread_cond_timedwait(&g->state.wake, &g->lock, &ts);
  }
  pthread_mutex_unlock(&g->lock);
  return NULL;
}

sfc_status sfc_state_start_keeper(sfc_generator *g, sfc_error *err) {
  g->state.stopping = false;
  int e = pthread_create(&g->state.keeper, NULL, keeper_main, g);
  if (e != 0)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "cannot start the state keeper thread: %s", strerror(e));
  g->state.keeper_running = true;
  return SFC_OK;
}

void sfc_state_close(sfc_generator *g, bool clean) {
  if (g->state.keeper_running) {
    pthread_mutex_lock(&g->lock);
    g->state.stopping = true;
    pthread_cond_signal(&g->state.wake);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->state.keeper, NULL);
    g->state.keeper_running = false;
  }
  if (clean && g->state.lock_fd >= 0 && g->state.error_status == 0) {
    /* The exact last tick: a clean restart continues right after it. */
    uint64_t w = atomic_load(&g->word);
    sfc_state_write(g, (int64_t)sfc_word_time(&g->pack, w),
                    sfc_word_clock(&g->pack, w), NULL);
  }
  if (g->state.lock_fd >= 0) close(g->state.lock_fd);
  g->state.lock_fd = -1;
  free(g->state.dir);
  g->state.dir = NULL;
}

/* In a forked child: the keeper thread does not exist there, and the lock
 * file descriptor is shared with the parent, whose lock it is. */
void sfc_state_after_fork(sfc_generator *g) {
  g->state.keeper_running = false;
  init_wake(g);
}
