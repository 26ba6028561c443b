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

#if !defined(_WIN32)

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

static sfc_status state_error(sfc_error *err, const char *what,
                              const char *path, int e) {
  return sfc_fail(err, SFC_STATE_ERROR, "%s %s: %s", what, path, strerror(e));
}

static sfc_status not_regular(sfc_error *err, const char *path, mode_t mode) {
  const char *kind = S_ISLNK(mode)    ? "a symbolic link"
                     : S_ISFIFO(mode) ? "a FIFO"
                     : S_ISDIR(mode)  ? "a directory"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "a device";
  return sfc_fail(err, SFC_STATE_ERROR,
                  "%s is %s, not a regular file: a state_dir holds only the "
                  "regular files snowflake-c writes there (links are never "
                  "followed); remove it",
                  path, kind);
}

/* Opens what a failed O_NOFOLLOW open met, for the message. */
static sfc_status open_error(sfc_error *err, int dir_fd, const char *name,
                             const char *what, const char *path, int e) {
  struct stat sb;
  if ((e == ELOOP || e == ENXIO || e == EISDIR) &&
      fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISREG(sb.st_mode))
    return not_regular(err, path, sb.st_mode);
  return state_error(err, what, path, e);
}

/* A file just opened in the folder: a regular file, and ours when others
 * can write to the folder. */
static sfc_status check_file(const sfc_generator *g, int fd, const char *path,
                             sfc_error *err) {
  struct stat sb;
  if (fstat(fd, &sb) != 0) return state_error(err, "cannot stat", path, errno);
  if (!S_ISREG(sb.st_mode)) return not_regular(err, path, sb.st_mode);
  if (g->state.shared_dir && sb.st_uid != geteuid())
    return sfc_fail(err, SFC_STATE_ERROR,
                    "%s belongs to uid %u, not to this process's uid %u, in "
                    "a state_dir that other users can write to: use a "
                    "folder of your own",
                    path, (unsigned)sb.st_uid, (unsigned)geteuid());
  return SFC_OK;
}

/* Whether `name` in the folder is the very file open as `fd`, still linked. */
static bool same_file_at(int dir_fd, const char *name, int fd) {
  struct stat a, b;
  return fstat(fd, &a) == 0 && a.st_nlink > 0 &&
         fstatat(dir_fd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
         a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Opens (creating it if needed) the folder at the state_dir path, without
 * following a symbolic link at its end, and refuses one that someone else
 * could plant files in. */
static sfc_status open_dir(const char *dir, int *out, struct stat *sb,
                           sfc_error *err) {
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return state_error(err, "cannot create state directory", dir, errno);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    struct stat lsb;
    if (lstat(dir, &lsb) == 0 && S_ISLNK(lsb.st_mode))
      return sfc_fail(err, SFC_STATE_ERROR,
                      "state_dir %s is a symbolic link: give the folder's "
                      "own path (links are never followed in a state_dir)",
                      dir);
    if (e == ENOTDIR)
      return sfc_fail(err, SFC_STATE_ERROR, "state_dir %s is not a directory",
                      dir);
    return state_error(err, "cannot open state directory", dir, e);
  }
  if (fstat(fd, sb) != 0) {
    int e = errno;
    close(fd);
    return state_error(err, "cannot stat state directory", dir, e);
  }
  if (sb->st_uid != geteuid() && sb->st_uid != 0) {
    close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state_dir %s belongs to uid %u, not to this process's "
                    "uid %u or root: its owner could replace the lock and "
                    "state files; use a folder of your own",
                    dir, (unsigned)sb->st_uid, (unsigned)geteuid());
  }
  if ((sb->st_mode & S_IWOTH) && !(sb->st_mode & S_ISVTX)) {
    close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state_dir %s is writable by every user (mode %03o) "
                    "without the sticky bit: anyone could replace its lock "
                    "and state files; chmod o-w it or use a folder of your "
                    "own",
                    dir, (unsigned)(sb->st_mode & 07777));
  }
  *out = fd;
  return SFC_OK;
}

static void use_dir(sfc_generator *g, int fd, const struct stat *sb) {
  if (g->state.dir_fd >= 0) close(g->state.dir_fd);
  g->state.dir_fd = fd;
  g->state.dir_dev = (uint64_t)sb->st_dev;
  g->state.dir_ino = (uint64_t)sb->st_ino;
  g->state.shared_dir = (sb->st_mode & (S_IWGRP | S_IWOTH)) != 0;
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

/* Written to a fresh temporary file (O_EXCL: never an existing file, link
 * or FIFO), synced, then renamed over the old one, and the folder synced: a
 * crash leaves either the old state or the new, never a mix. */
static sfc_status write_at(sfc_generator *g, int dir_fd, int64_t mark,
                           uint64_t clock, sfc_error *err) {
  char buf[STATE_MAX], name[sizeof g->state.stem + 16],
      tmp_name[sizeof g->state.stem + 16], path[4200], tmp[4200];
  size_t n = format_state(g, mark, clock, buf, sizeof buf);
  file_name(g, ".state", name, sizeof name);
  file_name(g, ".state.tmp", tmp_name, sizeof tmp_name);
  file_path(g, ".state", path, sizeof path);
  file_path(g, ".state.tmp", tmp, sizeof tmp);
  struct stat sb;
  if (fstatat(dir_fd, tmp_name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(sb.st_mode)) return not_regular(err, tmp, sb.st_mode);
    unlinkat(dir_fd, tmp_name, 0); /* left by a crash */
  }
  if (fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISREG(sb.st_mode))
    return not_regular(err, path, sb.st_mode);
  int fd = openat(dir_fd, tmp_name,
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return state_error(err, "cannot write state file", tmp, errno);
  size_t done = 0;
  while (done < n) {
    ssize_t k = write(fd, buf + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      int e = k < 0 ? errno : ENOSPC;
      close(fd);
      unlinkat(dir_fd, tmp_name, 0);
      return state_error(err, "cannot write state file", tmp, e);
    }
    done += (size_t)k;
  }
  if (fsync(fd) != 0 || fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    unlinkat(dir_fd, tmp_name, 0);
    return state_error(err, "cannot sync state file", tmp, e);
  }
  close(fd);
  if (renameat(dir_fd, tmp_name, dir_fd, name) != 0) {
    int e = errno;
    unlinkat(dir_fd, tmp_name, 0);
    return state_error(err, "cannot replace state file", path, e);
  }
  fsync(dir_fd); /* the rename itself; some file systems refuse: harmless */
  g->state.state_dev = (uint64_t)sb.st_dev;
  g->state.state_ino = (uint64_t)sb.st_ino;
  return SFC_OK;
}

sfc_status sfc_state_write(sfc_generator *g, int64_t mark, uint64_t clock,
                           sfc_error *err) {
  return write_at(g, g->state.dir_fd, mark, clock, err);
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
static sfc_status read_at(int dir_fd, const char *name, const char *path,
                          const sfc_layout *layout, const char *node_text,
                          sfc_saved *saved, sfc_error *err) {
  /* Non-blocking: a FIFO planted here must not hang the caller. */
  int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return SFC_OK; /* a new node value */
    return open_error(err, dir_fd, name, "cannot read state file", path, errno);
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return state_error(err, "cannot stat", path, e);
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return not_regular(err, path, sb.st_mode);
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
}

/* Takes the lock file of the current stem in the folder `dir_fd`. *held:
 * a live process has the value. On success the descriptors are in *lock_fd
 * and *host_fd. */
static sfc_status lock_at(sfc_generator *g, int dir_fd, bool host, int *lock_fd,
                          int *host_fd, bool *held, sfc_error *err) {
  char name[sizeof g->state.stem + 8], path[4200];
  file_name(g, ".lock", name, sizeof name);
  file_path(g, ".lock", path, sizeof path);
  *held = false;
  *host_fd = -1;
  for (int attempt = 0; attempt < 16; attempt++) {
    int fd =
        openat(dir_fd, name,
               O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
      return open_error(err, dir_fd, name, "cannot open lock file", path,
                        errno);
    sfc_status st = check_file(g, fd, path, err);
    if (st != SFC_OK) {
      close(fd);
      return st;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      close(fd);
      if (e == EWOULDBLOCK) {
        *held = true;
        if (host) find_holder(g);
        return SFC_OK;
      }
      return state_error(err, "cannot lock", path, e);
    }
    /* A lock on a file unlinked meanwhile guards nothing: take it again. */
    if (!same_file_at(dir_fd, name, fd)) {
      close(fd);
      continue;
    }
    /* The lock file can be deleted under a holder; its host-wide name
     * cannot. */
    g->state.holder = 0;
    if (host && host_lock(g, host_fd) == EWOULDBLOCK) {
      close(fd);
      *held = true;
      return SFC_OK;
    }
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
  if (g->state.lock_fd >= 0) close(g->state.lock_fd);
  sfc_host_unlock(g->state.host_fd);
  g->state.lock_fd = -1;
  g->state.host_fd = -1;
}

/* 0: locked; else *held or an error. */
static sfc_status try_lock(sfc_generator *g, bool *held, sfc_error *err) {
  int lock_fd = -1, host_fd = -1;
  sfc_status st =
      lock_at(g, g->state.dir_fd, true, &lock_fd, &host_fd, held, err);
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
  return read_at(g->state.dir_fd, name, path, &g->layout, text, saved, err);
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
      set_stem(g);
      bool held;
      sfc_status st = try_lock(g, &held, err);
      if (st != SFC_OK) return st;
      if (held) continue;
      st = read_saved(g, saved, err);
      if (st != SFC_OK) return st;
      if (pass == 1 || saved->mark <= now) return SFC_OK;
      release(g);
    }
  }
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "all %llu values of %s in the pool %s are held by live "
                  "processes: stop some, or widen the field",
                  (unsigned long long)f->max + 1, f->name, g->state.dir);
}

static sfc_status take_static(sfc_generator *g, sfc_saved *saved,
                              sfc_error *err) {
  set_stem(g);
  bool held;
  sfc_status st = try_lock(g, &held, err);
  if (st != SFC_OK) return st;
  if (held) {
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
  if (!g->state.dir) return sfc_fail(err, SFC_STATE_ERROR, "out of memory");
  int64_t reserve_ms = opts->state_reserve_ms ? opts->state_reserve_ms : 1000;
  g->state.reserve_ticks = reserve_ms * 1000 / g->unit_us;
  if (g->state.reserve_ticks < 2) g->state.reserve_ticks = 2;
  init_wake(g);
  int fd;
  struct stat sb;
  sfc_status st = open_dir(g->state.dir, &fd, &sb, err);
  if (st != SFC_OK) return st;
  use_dir(g, fd, &sb);
  /* Checked and put back by its absolute path: a later chdir of the
   * process must not send the keeper to another folder. */
  g->state.dir_real = realpath(g->state.dir, NULL);
  return sfc_state_acquire(g, saved, err);
}

static const char *dir_of(const sfc_generator *g) {
  return g->state.dir_real ? g->state.dir_real : g->state.dir;
}

/* Whether the files are still ours: the folder at the path is the one we
 * opened, the lock file there is the one we hold, and the state file is the
 * one we wrote last (or gone). */
static bool still_ours(const sfc_generator *g) {
  char name[sizeof g->state.stem + 8];
  struct stat sb;
  if (lstat(dir_of(g), &sb) != 0 || (uint64_t)sb.st_dev != g->state.dir_dev ||
      (uint64_t)sb.st_ino != g->state.dir_ino)
    return false;
  file_name(g, ".lock", name, sizeof name);
  if (!same_file_at(g->state.dir_fd, name, g->state.lock_fd)) return false;
  file_name(g, ".state", name, sizeof name);
  if (fstatat(g->state.dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
    return false; /* removed: write it again */
  return (uint64_t)sb.st_dev == g->state.state_dev &&
         (uint64_t)sb.st_ino == g->state.state_ino;
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
static sfc_status contended(sfc_generator *g, int dir_fd, sfc_error *err) {
  char name[sizeof g->state.stem + 8];
  struct stat sb;
  file_name(g, ".state", name, sizeof name);
  if (fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      ((uint64_t)sb.st_dev != g->state.state_dev ||
       (uint64_t)sb.st_ino != g->state.state_ino))
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
  int dir_fd;
  struct stat sb;
  sfc_status st = open_dir(dir_of(g), &dir_fd, &sb, err);
  if (st != SFC_OK) return st;
  const bool same_dir = (uint64_t)sb.st_dev == g->state.dir_dev &&
                        (uint64_t)sb.st_ino == g->state.dir_ino;
  char name[sizeof g->state.stem + 8];
  file_name(g, ".lock", name, sizeof name);
  int lock_fd = -1, unused = -1;
  if (!same_dir || !same_file_at(dir_fd, name, g->state.lock_fd)) {
    bool held;
    /* Our host-wide name is still ours: not taken again. */
    st = lock_at(g, dir_fd, false, &lock_fd, &unused, &held, err);
    if (st == SFC_OK && held) st = contended(g, dir_fd, err);
    if (st != SFC_OK) {
      close(dir_fd);
      return st;
    }
  }
  g->state.contended_since = 0;
  /* With our lock still in place nobody else could write the state file
   * (an operator did: ours replaces it). With the lock taken anew, a state
   * file we did not write means another holder was here meanwhile. */
  file_name(g, ".state", name, sizeof name);
  if (lock_fd >= 0 && fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      !(same_dir && (uint64_t)sb.st_dev == g->state.state_dev &&
        (uint64_t)sb.st_ino == g->state.state_ino)) {
    if (lock_fd >= 0) close(lock_fd);
    close(dir_fd);
    return lost(g, "another process wrote its state file", err);
  }
  st = write_at(g, dir_fd, mark, clock, err);
  if (st != SFC_OK) {
    if (lock_fd >= 0) close(lock_fd);
    close(dir_fd);
    return st;
  }
  if (lock_fd >= 0) {
    close(g->state.lock_fd);
    g->state.lock_fd = lock_fd;
  }
  struct stat dsb;
  fstat(dir_fd, &dsb);
  use_dir(g, dir_fd, &dsb);
  return SFC_OK;
}

/* One cycle of the keeper, under g->lock: moves the mark ahead when it runs
 * short, and makes sure the files are still ours before the new mark is
 * published (a mark written into a file that another holder has read since
 * would not bind it). */
static void keep(sfc_generator *g) {
  if (g->state.lost) return;
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
  if (clean && g->state.lock_fd >= 0 && g->state.error_status == 0 &&
      !g->state.lost && still_ours(g)) {
    /* The exact last tick: a clean restart continues right after it. */
    uint64_t w = atomic_load(&g->word);
    sfc_state_write(g, (int64_t)sfc_word_time(&g->pack, w),
                    sfc_word_clock(&g->pack, w), NULL);
  }
  release(g);
  if (g->state.dir_fd >= 0) close(g->state.dir_fd);
  g->state.dir_fd = -1;
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

#else
typedef int sfc_state_posix_unused; /* nothing to compile on this platform */
#endif
