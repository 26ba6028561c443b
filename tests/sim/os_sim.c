/* The OS layer of core/src/os.h on the simulated host: one more port, built
 * for tests only (the core compiled with -DSFC_SIM). Every call is a system
 * call to the simulated kernel (a point where another thread may run, the
 * clock may step, or the process may die), and the file and claim calls
 * follow files_posix.c and claim_os_linux.c step by step, so that a crash
 * can fall between any two of them. The lock-file claim is no port: the
 * core's claim_os_file.c runs here as it ships, on these file calls. */
#include "internal.h"

#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --- time, threads, memory ---------------------------------------------- */

static int64_t clock_ns(int kind) {
  return sim_call1(SYS_CLOCK, kind)->v[0];
}

void sfc_os_wall(struct timespec *ts) {
  int64_t ns = clock_ns(0);
  ts->tv_sec = (time_t)(ns / 1000000000);
  ts->tv_nsec = (long)(ns % 1000000000);
  if (ts->tv_nsec < 0) {
    ts->tv_nsec += 1000000000;
    ts->tv_sec--;
  }
}

void sfc_os_monotonic(struct timespec *ts) {
  int64_t ns = clock_ns(1);
  ts->tv_sec = (time_t)(ns / 1000000000);
  ts->tv_nsec = (long)(ns % 1000000000);
}

uint64_t sfc_sim_cpu_counter(void) {
  return (uint64_t)clock_ns(2);
}

void sfc_sim_cpu_pause(void) {
  sim_call1(SYS_YIELD, 0);
}

/* Between the core's steps on shared memory (sfc_step): one in 16
 * yields, by draws of the process's own from a key the seed gives (its
 * threads run in one order for a seed, so a run repeats), so that the hot
 * path, which has such a point on every ID, slows the runs little. */
void sfc_sim_step(void) {
  static uint64_t key, drawn;
  if (!key) {
    sfc_os_random(&key, sizeof key);
    key |= 1;
  }
  uint64_t z = (++drawn + (uint64_t)sim_pid) * key;
  z = (z ^ (z >> 31)) * UINT64_C(0xBF58476D1CE4E5B9);
  z ^= z >> 29;
  if ((z >> 60) == 0) sim_call1(SYS_YIELD, 0);
}

void sfc_os_sleep_until(int64_t deadline_us) {
  sim_call1(SYS_SLEEP, deadline_us);
}

bool sfc_os_random(void *buf, size_t n) {
  const sim_reply *r = sim_call1(SYS_RANDOM, (int64_t)n);
  if (r->ret != 0) return false;
  memcpy(buf, r->data, n);
  return true;
}

bool sfc_os_counter_trusted(const char *source) {
  (void)source;
  return sim_call1(SYS_COUNTER_TRUSTED, 0)->ret != 0;
}

long sfc_os_pid(void) {
  return sim_pid;
}

uint64_t sfc_os_process_token(long pid) {
  return (uint64_t)sim_call1(SYS_PROC_TOKEN, pid)->ret;
}

long long sfc_os_uid(void) {
  return sim_uid;
}

bool sfc_os_hostname(char *buf, size_t cap) {
  if (cap == 0) return false;
  snprintf(buf, cap, "%s", sim_hostname);
  return true;
}

static void mutex_key(const sfc_mutex *m, sim_request *req) {
  req->a[0] = m->shared_id;
  req->a[1] = m->shared_id ? 0 : (int64_t)(uintptr_t)m;
}

void sfc_mutex_init(sfc_mutex *m) {
  m->shared_id = 0;
}

bool sfc_mutex_init_shared(sfc_mutex *m) {
  m->shared_id = sim_call1(SYS_MUTEX_SHARED, 0)->ret;
  return true;
}

void sfc_mutex_destroy(sfc_mutex *m) {
  (void)m;
}

void sfc_mutex_lock(sfc_mutex *m) {
  sim_request req;
  sim_request_init(&req, SYS_MUTEX_LOCK);
  mutex_key(m, &req);
  sim_call(&req); /* a dead holder's lock is taken over (robust) */
}

void sfc_mutex_unlock(sfc_mutex *m) {
  sim_request req;
  sim_request_init(&req, SYS_MUTEX_UNLOCK);
  mutex_key(m, &req);
  sim_call(&req);
}

void sfc_os_cond_init(sfc_cond *cond) {
  cond->unused = 0;
}

void sfc_cond_signal(sfc_cond *c) {
  sim_request req;
  sim_request_init(&req, SYS_COND_SIGNAL);
  req.a[1] = (int64_t)(uintptr_t)c;
  sim_call(&req);
}

void sfc_os_cond_wait_us(sfc_cond *cond, sfc_mutex *mutex, int64_t us) {
  sim_request req;
  sim_request_init(&req, SYS_COND_WAIT);
  req.a[1] = (int64_t)(uintptr_t)cond;
  req.a[2] = mutex->shared_id;
  req.a[3] = mutex->shared_id ? 0 : (int64_t)(uintptr_t)mutex;
  req.a[4] = us;
  sim_call(&req);
}

int sfc_thread_start(sfc_thread *t, void *(*fn)(void *), void *arg) {
  const sim_reply *r = sim_call1(SYS_THREAD_CREATE, 0);
  if (r->ret <= 0) return EAGAIN;
  sim_thread_register(r->ret, fn, arg);
  *t = r->ret;
  return 0;
}

void sfc_thread_join(sfc_thread t) {
  sim_call1(SYS_JOIN, t);
}

void sfc_once(sfc_once_flag *flag, void (*fn)(void)) {
  if (*flag) return;
  *flag = 1;
  fn();
}

void sfc_os_atfork(void (*prepare)(void), void (*parent)(void),
                   void (*child)(void)) {
  sim_atfork(prepare, parent, child);
}

void *sfc_os_aligned_alloc(size_t align, size_t size) {
  return aligned_alloc(align, (size + align - 1) / align * align);
}

void sfc_os_aligned_free(void *p) {
  free(p);
}

/* --- files --------------------------------------------------------------- */

typedef struct sim_stat {
  uint64_t dev, ino;
  unsigned mode;
  long uid;
  long nlink;
  long size;
} sim_stat;

static int64_t sys_open(int64_t dirfd, const char *name, int flags, int mode) {
  sim_request req;
  sim_request_init(&req, SYS_OPEN);
  req.a[0] = dirfd;
  req.a[1] = flags;
  req.a[2] = mode;
  snprintf(req.s[0], SIM_STR_MAX, "%s", name);
  return sim_call(&req)->ret;
}

/* fd >= 0 and name NULL: fstat; fd -1: a path; else fstatat. */
static int sys_stat(int64_t fd, const char *name, sim_stat *st) {
  sim_request req;
  sim_request_init(&req, SYS_STAT);
  req.a[0] = fd;
  req.a[1] = 1;
  req.a[2] = name != NULL;
  if (name) snprintf(req.s[0], SIM_STR_MAX, "%s", name);
  const sim_reply *r = sim_call(&req);
  if (r->ret < 0) return (int)r->ret;
  st->dev = (uint64_t)r->v[0];
  st->ino = (uint64_t)r->v[1];
  st->mode = (unsigned)r->v[2];
  st->uid = (long)r->v[3];
  st->nlink = (long)r->v[4];
  st->size = (long)r->v[5];
  return 0;
}

static int64_t sys_fd_op(int op, int64_t fd, int64_t a1) {
  sim_request req;
  sim_request_init(&req, op);
  req.a[0] = fd;
  req.a[1] = a1;
  return sim_call(&req)->ret;
}

static int64_t sys_write(int64_t fd, int64_t offset, const char *data,
                         size_t len) {
  sim_request req;
  sim_request_init(&req, SYS_PWRITE);
  req.a[0] = fd;
  req.a[1] = offset;
  if (len > SIM_DATA_MAX) len = SIM_DATA_MAX;
  memcpy(req.data, data, len);
  req.len = (uint32_t)len;
  return sim_call(&req)->ret;
}

static int64_t sys_name_op(int op, int64_t dirfd, const char *a,
                           const char *b) {
  sim_request req;
  sim_request_init(&req, op);
  req.a[0] = dirfd;
  snprintf(req.s[0], SIM_STR_MAX, "%s", a);
  if (b) snprintf(req.s[1], SIM_STR_MAX, "%s", b);
  return sim_call(&req)->ret;
}

static sfc_status os_error(sfc_error *err, const char *what, const char *path,
                           int e) {
  return sfc_fail(err, SFC_STATE_ERROR, "%s %s: %s", what, path, strerror(e));
}

static sfc_file_id id_of(const sim_stat *sb) {
  return (sfc_file_id){sb->dev, sb->ino};
}

static sfc_status not_regular(sfc_error *err, const char *path) {
  return sfc_fail(err, SFC_STATE_ERROR,
                  "%s is not a regular file: a state_dir holds only the "
                  "regular files snowflake-c writes there",
                  path);
}

static sfc_status check_file(const sfc_dir *dir, int64_t fd, const char *path,
                             sfc_error *err) {
  sim_stat sb;
  int e = sys_stat(fd, NULL, &sb);
  if (e < 0) return os_error(err, "cannot stat", path, -e);
  if (!S_ISREG(sb.mode)) return not_regular(err, path);
  if (dir->shared && sb.uid != sim_uid)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "%s belongs to uid %ld, not to this process's uid %ld",
                    path, sb.uid, sim_uid);
  return SFC_OK;
}

sfc_status sfc_dir_open(const char *path, sfc_dir *out, sfc_error *err) {
  int64_t e = sys_name_op(SYS_MKDIR, -1, path, NULL);
  if (e < 0 && e != -EEXIST)
    return os_error(err, "cannot create state directory", path, (int)-e);
  int64_t fd = sys_open(-1, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (fd < 0)
    return os_error(err, "cannot open state directory", path, (int)-fd);
  sim_stat sb;
  int se = sys_stat(fd, NULL, &sb);
  if (se < 0) {
    sfc_fd_close(fd);
    return os_error(err, "cannot stat state directory", path, -se);
  }
  if (sb.uid != sim_uid && sb.uid != 0) {
    sfc_fd_close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state_dir %s belongs to uid %ld, not to this process's "
                    "uid %ld or root",
                    path, sb.uid, sim_uid);
  }
  if ((sb.mode & S_IWOTH) && !(sb.mode & S_ISVTX)) {
    sfc_fd_close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state_dir %s is writable by every user", path);
  }
  out->fd = fd;
  out->id = id_of(&sb);
  out->shared = (sb.mode & (S_IWGRP | S_IWOTH)) != 0;
  return SFC_OK;
}

sfc_status sfc_records_dir_open(sfc_dir *out, char *path, size_t cap,
                                sfc_error *err) {
  static const char *const places[] = {"/dev/shm", "/tmp"};
  for (size_t i = 0; i < 2; i++) {
    int64_t fd =
        sys_open(-1, places[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
    sim_stat sb;
    if (fd < 0) continue;
    if (sys_stat(fd, NULL, &sb) == 0 && (sb.uid == 0 || sb.uid == sim_uid) &&
        (!(sb.mode & (S_IWGRP | S_IWOTH)) || (sb.mode & S_ISVTX))) {
      out->fd = fd;
      out->id = id_of(&sb);
      out->shared = (sb.mode & (S_IWGRP | S_IWOTH)) != 0;
      snprintf(path, cap, "%s", places[i]);
      return SFC_OK;
    }
    sfc_fd_close(fd);
  }
  return sfc_fail(err, SFC_STATE_ERROR,
                  "no host-wide folder for the claim's hand-over records");
}

sfc_status sfc_dir_each(const sfc_dir *dir, const char *prefix,
                        void (*fn)(void *ctx, const char *name), void *ctx,
                        sfc_error *err) {
  sim_request req;
  sim_request_init(&req, SYS_READDIR);
  req.a[0] = dir->fd;
  const sim_reply *r = sim_call(&req);
  if (r->ret < 0)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "cannot list the folder of hand-over records: %s",
                    strerror((int)-r->ret));
  /* The reply is overwritten by fn's own calls: a copy. */
  uint32_t len = r->len;
  char *names = malloc(len + 1);
  if (!names) return sfc_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
  memcpy(names, r->data, len);
  size_t k = strlen(prefix);
  for (uint32_t at = 0; at < len;) {
    const char *name = names + at;
    at += (uint32_t)strlen(name) + 1;
    if (strncmp(name, prefix, k) == 0) fn(ctx, name);
  }
  free(names);
  return SFC_OK;
}

void sfc_os_user_tag(char *buf, size_t cap) {
  snprintf(buf, cap, "u%ld", sim_uid);
}

bool sfc_dir_is(const char *path, sfc_file_id id) {
  sim_stat sb;
  return sys_stat(-1, path, &sb) == 0 && sb.dev == id.dev && sb.ino == id.ino;
}

char *sfc_path_absolute(const char *path) {
  sim_request req;
  sim_request_init(&req, SYS_REALPATH);
  snprintf(req.s[0], SIM_STR_MAX, "%s", path);
  const sim_reply *r = sim_call(&req);
  return r->ret < 0 ? NULL : strdup(r->str);
}

void sfc_fd_close(sfc_fd fd) {
  if (fd >= 0) sys_fd_op(SYS_CLOSE, fd, 0);
}

sfc_status sfc_file_open_lock(const sfc_dir *dir, const char *name,
                              const char *path, sfc_fd *out, sfc_error *err) {
  int64_t fd =
      sys_open(dir->fd, name,
               O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) return os_error(err, "cannot open lock file", path, (int)-fd);
  sfc_status st = check_file(dir, fd, path, err);
  if (st != SFC_OK) {
    sfc_fd_close(fd);
    return st;
  }
  *out = fd;
  return SFC_OK;
}

int sfc_file_lock_now(sfc_fd fd) {
  return (int)-sys_fd_op(SYS_FLOCK, fd, 1);
}

sfc_status sfc_file_try_lock(sfc_fd fd, const char *path, bool *held,
                             sfc_error *err) {
  const int e = sfc_file_lock_now(fd);
  *held = e == EWOULDBLOCK;
  if (e == 0 || *held) return SFC_OK;
  return os_error(err, "cannot lock", path, e);
}

void sfc_file_unlock(sfc_fd fd) {
  sys_fd_op(SYS_FLOCK, fd, 0);
}

bool sfc_file_set_text(sfc_fd fd, const char *text, size_t len) {
  int64_t n = sys_write(fd, 0, text, len);
  int64_t e = n < 0               ? n
              : n != (int64_t)len ? -ENOSPC
                                  : sys_fd_op(SYS_TRUNCATE, fd, (int64_t)len);
  if (e != 0) errno = (int)-e; /* why, as POSIX's calls say it */
  return e == 0;
}

sfc_status sfc_file_overwrite(sfc_fd fd, const char *text, size_t len,
                              const char *path, sfc_error *err) {
  int64_t n = sys_write(fd, 0, text, len);
  if (n == (int64_t)len) return SFC_OK;
  return os_error(err, "cannot write", path, n < 0 ? (int)-n : ENOSPC);
}

bool sfc_file_is_at(const sfc_dir *dir, const char *name, sfc_fd fd) {
  sim_stat a, b;
  return sys_stat(fd, NULL, &a) == 0 && a.nlink > 0 &&
         sys_stat(dir->fd, name, &b) == 0 && a.dev == b.dev && a.ino == b.ino;
}

void sfc_file_close_removing(const sfc_dir *dir, const char *name, sfc_fd fd) {
  if (sfc_file_is_at(dir, name, fd))
    sys_name_op(SYS_UNLINK, dir->fd, name, NULL);
  sfc_fd_close(fd);
}

int sfc_file_open_at(const sfc_dir *dir, const char *name, bool create,
                     sfc_fd *out) {
  int64_t fd = sys_open(dir->fd, name,
                        (create ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW |
                            O_NONBLOCK | O_CLOEXEC,
                        0644);
  *out = fd < 0 ? SFC_NO_FD : fd;
  return fd < 0 ? (int)-fd : 0;
}

bool sfc_file_regular(sfc_fd fd, long long *uid, sfc_file_id *id) {
  sim_stat sb;
  if (sys_stat(fd, NULL, &sb) != 0 || !S_ISREG(sb.mode)) return false;
  *uid = sb.uid;
  *id = id_of(&sb);
  return true;
}

bool sfc_file_id_at(const sfc_dir *dir, const char *name, sfc_file_id *id) {
  sim_stat sb;
  if (sys_stat(dir->fd, name, &sb) != 0) return false;
  *id = id_of(&sb);
  return true;
}

sfc_status sfc_file_read_at(const sfc_dir *dir, const char *name,
                            const char *path, char *buf, size_t cap,
                            size_t *len, bool *missing, char *owner,
                            sfc_error *err) {
  *missing = false;
  *len = 0;
  if (owner) owner[0] = '\0';
  int64_t fd = sys_open(dir->fd, name,
                        O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd == -ENOENT) {
    *missing = true;
    return SFC_OK;
  }
  if (fd < 0) return os_error(err, "cannot read state file", path, (int)-fd);
  sim_stat sb = {0};
  if (sys_stat(fd, NULL, &sb) != 0 || !S_ISREG(sb.mode)) {
    sfc_fd_close(fd);
    return not_regular(err, path);
  }
  if (owner && !(sb.mode & (S_IWGRP | S_IWOTH)))
    snprintf(owner, SFC_TAG_MAX, "u%ld", sb.uid);
  sim_request req;
  sim_request_init(&req, SYS_PREAD);
  req.a[0] = fd;
  req.a[2] = (int64_t)(cap - 1);
  const sim_reply *r = sim_call(&req);
  size_t n = r->ret > 0 ? (size_t)r->ret : 0;
  if (n > cap - 1) n = cap - 1;
  memcpy(buf, r->data, n);
  buf[n] = '\0';
  *len = n;
  sfc_fd_close(fd);
  return SFC_OK;
}

sfc_status sfc_file_read_fd(sfc_fd fd, const char *path, char *buf, size_t cap,
                            size_t *len, sfc_error *err) {
  sim_request req;
  sim_request_init(&req, SYS_PREAD);
  req.a[0] = fd;
  req.a[2] = (int64_t)(cap - 1);
  const sim_reply *r = sim_call(&req);
  if (r->ret < 0) return os_error(err, "cannot read", path, (int)-r->ret);
  size_t n = (size_t)r->ret;
  if (n > cap - 1) n = cap - 1;
  memcpy(buf, r->data, n);
  buf[n] = '\0';
  *len = n;
  return SFC_OK;
}

sfc_status sfc_file_lock_held_at(const sfc_dir *dir, const char *name,
                                 const char *path, bool *held, sfc_error *err) {
  *held = false;
  int busy = 0;
  for (int attempt = 0; attempt < 16 + 5; attempt++) {
    int64_t fd = sys_open(dir->fd, name,
                          O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
    if (fd == -ENOENT) return SFC_OK;
    if (fd < 0) return os_error(err, "cannot open", path, (int)-fd);
    sim_stat sb = {0};
    if (sys_stat(fd, NULL, &sb) != 0 || !S_ISREG(sb.mode)) {
      sfc_fd_close(fd);
      return not_regular(err, path);
    }
    int64_t e = sys_fd_op(SYS_FLOCK, fd, 2);
    if (e == -EWOULDBLOCK) {
      sfc_fd_close(fd);
      if (++busy == 5) {
        *held = true;
        return SFC_OK;
      }
      sfc_pause(1000);
      continue;
    }
    if (e != 0) {
      sfc_fd_close(fd);
      return os_error(err, "cannot lock", path, (int)-e);
    }
    const bool still = sfc_file_is_at(dir, name, fd);
    sfc_fd_close(fd);
    if (still) return SFC_OK;
  }
  return sfc_fail(err, SFC_STATE_ERROR, "%s keeps being replaced", path);
}

sfc_status sfc_file_renew_locked(const sfc_dir *dir, const char *name,
                                 const char *path, sfc_fd *fd, const char *data,
                                 size_t len, sfc_error *err) {
  char tmp_name[SIM_STR_MAX];
  snprintf(tmp_name, sizeof tmp_name, "%s.%ld.new", name, sim_pid);
  sys_name_op(SYS_UNLINK, dir->fd, tmp_name, NULL);
  int64_t nfd =
      sys_open(dir->fd, tmp_name,
               O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (nfd < 0) return os_error(err, "cannot write", path, (int)-nfd);
  int64_t e = sys_fd_op(SYS_FLOCK, nfd, 1);
  if (e == 0) {
    int64_t n = sys_write(nfd, 0, data, len);
    e = n == (int64_t)len ? 0 : -ENOSPC;
  }
  if (e == 0) e = sys_name_op(SYS_RENAME, dir->fd, tmp_name, name);
  if (e != 0) {
    sfc_fd_close(nfd);
    sys_name_op(SYS_UNLINK, dir->fd, tmp_name, NULL);
    return os_error(err, "cannot write", path, (int)-e);
  }
  sfc_fd_close(*fd);
  *fd = nfd;
  return SFC_OK;
}

sfc_status sfc_file_replace_at(const sfc_dir *dir, const char *name,
                               const char *path, const char *data, size_t len,
                               sfc_file_id *id, sfc_error *err) {
  char tmp_name[SIM_STR_MAX];
  snprintf(tmp_name, sizeof tmp_name, "%s.tmp", name);
  sim_stat sb;
  if (sys_stat(dir->fd, tmp_name, &sb) == 0) {
    if (!S_ISREG(sb.mode)) return not_regular(err, tmp_name);
    sys_name_op(SYS_UNLINK, dir->fd, tmp_name, NULL);
  }
  if (sys_stat(dir->fd, name, &sb) == 0 && !S_ISREG(sb.mode))
    return not_regular(err, path);
  int64_t fd =
      sys_open(dir->fd, tmp_name,
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return os_error(err, "cannot write state file", path, (int)-fd);
  int64_t n = sys_write(fd, 0, data, len);
  if (n != (int64_t)len) {
    sfc_fd_close(fd);
    sys_name_op(SYS_UNLINK, dir->fd, tmp_name, NULL);
    return os_error(err, "cannot write state file", path,
                    n < 0 ? (int)-n : ENOSPC);
  }
  int64_t e = sys_fd_op(SYS_FSYNC, fd, 0);
  if (e == 0) e = sys_stat(fd, NULL, &sb);
  sfc_fd_close(fd);
  if (e != 0) {
    sys_name_op(SYS_UNLINK, dir->fd, tmp_name, NULL);
    return os_error(err, "cannot sync state file", path, (int)-e);
  }
  e = sys_name_op(SYS_RENAME, dir->fd, tmp_name, name);
  if (e != 0) {
    sys_name_op(SYS_UNLINK, dir->fd, tmp_name, NULL);
    return os_error(err, "cannot replace state file", path, (int)-e);
  }
  sys_fd_op(SYS_FSYNC, dir->fd, 0);
  *id = id_of(&sb);
  return SFC_OK;
}

/* --- the claim: an abstract socket per network namespace (Linux), or a
 * lock file in the records folder (macOS, the BSDs: sfc_claim_by_file,
 * set for the whole host by its schedule) ----------------------------- */

bool sfc_claim_by_file;

static void claim_name(const char *hex, char *buf, size_t cap) {
  snprintf(buf, cap, "snowflake-c/claim/%s", hex);
}

bool sfc_os_claim_holder(const char *hex, sfc_holder *who) {
  if (sfc_claim_by_file) return sfc_file_claim_holder(hex, who);
  sim_request req;
  sim_request_init(&req, SYS_PEERCRED);
  claim_name(hex, req.s[0], SIM_STR_MAX);
  const sim_reply *r = sim_call(&req);
  if (r->ret != 0) return false;
  who->pid = (long)r->v[0];
  who->uid = (long long)r->v[1];
  return true;
}

sfc_status sfc_os_claim_each(void (*fn)(void *ctx, const char *hex), void *ctx,
                             sfc_error *err) {
  (void)err;
  if (sfc_claim_by_file) return SFC_OK; /* the records folder shows them */
  sim_request req;
  sim_request_init(&req, SYS_UNIX_LIST);
  const sim_reply *r = sim_call(&req);
  /* fn makes calls of its own, which overwrite the reply: a copy. */
  uint32_t len = r->len;
  char *names = malloc(len + 1);
  if (!names) return sfc_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
  memcpy(names, r->data, len);
  static const char prefix[] = "snowflake-c/claim/";
  for (uint32_t at = 0; at < len;) {
    const char *name = names + at;
    at += (uint32_t)strlen(name) + 1;
    if (strncmp(name, prefix, sizeof prefix - 1) == 0)
      fn(ctx, name + sizeof prefix - 1);
  }
  free(names);
  return SFC_OK;
}

sfc_status sfc_os_claim_take(const char *hex, sfc_fd *out, char *where,
                             size_t cap, bool *held, sfc_holder *who,
                             sfc_error *err) {
  if (sfc_claim_by_file)
    return sfc_file_claim_take(hex, out, where, cap, held, who, err);
  *held = false;
  snprintf(where, cap, "@snowflake-c/claim/%s", hex);
  sim_request req;
  sim_request_init(&req, SYS_BIND);
  claim_name(hex, req.s[0], SIM_STR_MAX);
  int64_t fd = sim_call(&req)->ret;
  if (fd == -EADDRINUSE) {
    *held = true;
    sfc_os_claim_holder(hex, who);
    return SFC_OK;
  }
  if (fd < 0) return sfc_claim_os_error(err, where, "bind", (int)-fd);
  *out = fd;
  return SFC_OK;
}

void sfc_os_claim_release(const char *hex, sfc_fd fd) {
  if (sfc_claim_by_file) {
    sfc_file_claim_release(hex, fd);
    return;
  }
  sfc_fd_close(fd);
}
