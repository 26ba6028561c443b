/* The operating system behind one small interface: threads, clocks, waits,
 * randomness, the process id, the host name, fork handlers, aligned memory
 * and the keeper's timed wake-up. os_posix.c implements it for Linux (glibc
 * from 2.17, musl) and macOS, os_windows.c for Windows, os_wasm.c for
 * WebAssembly; the rest of the core has no #ifdef for these; the state
 * folder's files are files_posix.c, files_windows.c and files_wasm.c. */
#ifndef SFC_OS_H
#define SFC_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Threads: a mutex, a condition variable, a thread, a once-flag. */
#if defined(SFC_SIM)
/* The simulated host of tests/sim: every call below goes to its kernel,
 * which decides which thread runs next. A mutex is named by its address in
 * its process (or, made to be shared, by the id the kernel gave it). */
typedef struct sfc_mutex {
  int64_t shared_id; /* 0: private to its process */
} sfc_mutex;
typedef struct sfc_cond {
  int64_t unused;
} sfc_cond;
typedef int64_t sfc_thread;
typedef int sfc_once_flag;
#define SFC_MUTEX_INIT                                                         \
  { 0 }
#define SFC_ONCE_INIT 0
SFC_INTERNAL void sfc_mutex_init(sfc_mutex *m);
SFC_INTERNAL bool sfc_mutex_init_shared(sfc_mutex *m);
SFC_INTERNAL void sfc_mutex_destroy(sfc_mutex *m);
SFC_INTERNAL void sfc_mutex_lock(sfc_mutex *m);
SFC_INTERNAL void sfc_mutex_unlock(sfc_mutex *m);
SFC_INTERNAL void sfc_cond_signal(sfc_cond *c);
#elif defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00 /* Windows 10 */
#endif
#include <windows.h>
typedef SRWLOCK sfc_mutex;
typedef CONDITION_VARIABLE sfc_cond;
typedef HANDLE sfc_thread;
typedef INIT_ONCE sfc_once_flag;
#define SFC_MUTEX_INIT SRWLOCK_INIT
#define SFC_ONCE_INIT INIT_ONCE_STATIC_INIT
static inline void sfc_mutex_init(sfc_mutex *m) {
  InitializeSRWLock(m);
}
/* No lock of Windows lives in memory that processes share. */
static inline bool sfc_mutex_init_shared(sfc_mutex *m) {
  (void)m;
  return false;
}
static inline void sfc_mutex_destroy(sfc_mutex *m) {
  (void)m;
}
static inline void sfc_mutex_lock(sfc_mutex *m) {
  AcquireSRWLockExclusive(m);
}
static inline void sfc_mutex_unlock(sfc_mutex *m) {
  ReleaseSRWLockExclusive(m);
}
static inline void sfc_cond_signal(sfc_cond *c) {
  WakeConditionVariable(c);
}
#elif defined(__wasm__)
/* WebAssembly: one thread per instance, so a lock has nothing to exclude
 * and nothing waits on a condition. */
typedef int sfc_mutex;
typedef int sfc_cond;
typedef int sfc_thread;
typedef int sfc_once_flag;
#define SFC_MUTEX_INIT 0
#define SFC_ONCE_INIT 0
static inline void sfc_mutex_init(sfc_mutex *m) {
  *m = 0;
}
/* No memory that processes share. */
static inline bool sfc_mutex_init_shared(sfc_mutex *m) {
  (void)m;
  return false;
}
static inline void sfc_mutex_destroy(sfc_mutex *m) {
  (void)m;
}
static inline void sfc_mutex_lock(sfc_mutex *m) {
  (void)m;
}
static inline void sfc_mutex_unlock(sfc_mutex *m) {
  (void)m;
}
static inline void sfc_cond_signal(sfc_cond *c) {
  (void)c;
}
#else
#include <pthread.h>
typedef pthread_mutex_t sfc_mutex;
typedef pthread_cond_t sfc_cond;
typedef pthread_t sfc_thread;
typedef pthread_once_t sfc_once_flag;
#define SFC_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define SFC_ONCE_INIT PTHREAD_ONCE_INIT
static inline void sfc_mutex_init(sfc_mutex *m) {
  pthread_mutex_init(m, NULL);
}
/* A lock that processes sharing its memory take, and that a process dying
 * while it holds it does not leave held (robust; macOS, and a kernel that
 * keeps no robust list, have none: there it stays held). False if the
 * system has no process-shared lock. */
SFC_INTERNAL bool sfc_mutex_init_shared(sfc_mutex *m);
static inline void sfc_mutex_destroy(sfc_mutex *m) {
  pthread_mutex_destroy(m);
}
/* A robust lock whose holder died is taken over as it stands: what the
 * slow path changes under it is in order at every step. */
SFC_INTERNAL void sfc_mutex_locked_orphan(sfc_mutex *m, int error);
static inline void sfc_mutex_lock(sfc_mutex *m) {
  int e = pthread_mutex_lock(m);
  if (e != 0) sfc_mutex_locked_orphan(m, e);
}
static inline void sfc_mutex_unlock(sfc_mutex *m) {
  pthread_mutex_unlock(m);
}
static inline void sfc_cond_signal(sfc_cond *c) {
  pthread_cond_signal(c);
}
#endif
/* 0, or an errno value. */
SFC_INTERNAL int sfc_thread_start(sfc_thread *t, void *(*fn)(void *),
                                  void *arg);
SFC_INTERNAL void sfc_thread_join(sfc_thread t);
SFC_INTERNAL void sfc_once(sfc_once_flag *flag, void (*fn)(void));
/* Handlers around fork(), where there is one (not on Windows). */
SFC_INTERNAL void sfc_os_atfork(void (*prepare)(void), void (*parent)(void),
                                void (*child)(void));
SFC_INTERNAL void *sfc_os_aligned_alloc(size_t align, size_t size);
SFC_INTERNAL void sfc_os_aligned_free(void *p);

/* The hot path's one clock read, inlined: a vDSO call on Linux; on
 * WebAssembly a call to the host's clock (os_wasm.c). */
#if defined(_WIN32) || defined(__wasm__) || defined(SFC_SIM)
SFC_INTERNAL void sfc_os_wall(struct timespec *ts);
SFC_INTERNAL void sfc_os_monotonic(struct timespec *ts);
#else
static inline void sfc_os_wall(struct timespec *ts) {
  clock_gettime(CLOCK_REALTIME, ts);
}
static inline void sfc_os_monotonic(struct timespec *ts) {
  clock_gettime(CLOCK_MONOTONIC, ts);
}
#endif

/* Sleeps until the monotonic clock reads `deadline_us`: a signal that
 * interrupts the sleep cannot stretch it. */
SFC_INTERNAL void sfc_os_sleep_until(int64_t deadline_us);
/* Fills buf from the system's random source; false if there is none. */
SFC_INTERNAL bool sfc_os_random(void *buf, size_t n);
/* Whether the system's own clock runs on the processor's counter
 * (sfc_cpu_counter): then the counter is as steady, and as alike on every
 * processor, as the clock itself. `source`: the file naming the clock's
 * source (Linux's sysfs; a test's stand-in), NULL for the system's. */
SFC_INTERNAL bool sfc_os_counter_trusted(const char *source);
SFC_INTERNAL long sfc_os_pid(void);
/* A token of process `pid` that changes when the pid is reused (Linux: its
 * start time), or 0 when it is not alive or the system cannot tell. */
SFC_INTERNAL uint64_t sfc_os_process_token(long pid);
/* The effective uid, or -1 where users are not numbers (Windows). */
SFC_INTERNAL long long sfc_os_uid(void);
/* The host name, NUL-terminated; false if it cannot be read. */
SFC_INTERNAL bool sfc_os_hostname(char *buf, size_t cap);
/* A condition variable whose timed waits follow the monotonic clock, so
 * that a wall-clock step neither stalls nor hurries the keeper. */
SFC_INTERNAL void sfc_os_cond_init(sfc_cond *cond);
SFC_INTERNAL void sfc_os_cond_wait_us(sfc_cond *cond, sfc_mutex *mutex,
                                      int64_t us);

/* The state folder's files (state.c), trusted with uniqueness and so
 * handled as hostile ground: every file is opened inside a folder held open,
 * never through a symbolic link (or, on Windows, a reparse point), and only
 * if it is a regular file. files_posix.c uses the *at() calls and flock,
 * files_windows.c CreateFileW, LockFileEx and MoveFileExW. `path` arguments
 * name a file in messages only. */
typedef intptr_t sfc_fd; /* a folder or file descriptor (Windows: HANDLE) */
#define SFC_NO_FD ((sfc_fd)-1)
/* Which file: two equal ids are the same file. */
typedef struct sfc_file_id {
  uint64_t dev, ino;
} sfc_file_id;
static inline bool sfc_file_id_same(sfc_file_id a, sfc_file_id b) {
  return a.dev == b.dev && a.ino == b.ino;
}
typedef struct sfc_dir {
  sfc_fd fd;
  sfc_file_id id;
  bool shared; /* others may write in it: its files must be ours */
} sfc_dir;

/* Opens (creating it if needed) the folder at `path`, refusing a link and a
 * folder that another user could plant files in. */
SFC_INTERNAL sfc_status sfc_dir_open(const char *path, sfc_dir *out,
                                     sfc_error *err);
/* Opens the host-wide folder of the claims' hand-over records (and, where
 * claims are files, of those): fixed paths, not moved by the environment
 * (/dev/shm, else /tmp; macOS /Users/Shared, else /private/tmp; Windows
 * ProgramData), root's and sticky. Its path into `path`. */
SFC_INTERNAL sfc_status sfc_records_dir_open(sfc_dir *out, char *path,
                                             size_t cap, sfc_error *err);
/* Calls fn with every name in the folder that starts with `prefix`. */
SFC_INTERNAL sfc_status sfc_dir_each(const sfc_dir *dir, const char *prefix,
                                     void (*fn)(void *ctx, const char *name),
                                     void *ctx, sfc_error *err);
/* Who writes a file, as a short tag: "u<uid>"; Windows "s<hash of the
 * SID>". */
#define SFC_TAG_MAX 24
SFC_INTERNAL void sfc_os_user_tag(char *buf, size_t cap);
/* Whether the folder at `path` (links not followed) is `id`. */
SFC_INTERNAL bool sfc_dir_is(const char *path, sfc_file_id id);
/* The absolute form of `path` (malloc'd), or NULL. */
SFC_INTERNAL char *sfc_path_absolute(const char *path);
SFC_INTERNAL void sfc_fd_close(sfc_fd fd);
/* Opens, creating it if needed, the lock file `name` of the folder. */
SFC_INTERNAL sfc_status sfc_file_open_lock(const sfc_dir *dir, const char *name,
                                           const char *path, sfc_fd *out,
                                           sfc_error *err);
/* Takes the open file's exclusive lock without waiting; *held when another
 * open of the file (in this process or another) has it. The OS releases
 * the lock when the file is closed or the process dies. */
SFC_INTERNAL sfc_status sfc_file_try_lock(sfc_fd fd, const char *path,
                                          bool *held, sfc_error *err);
/* Takes the open file's exclusive lock without waiting: 0, or the errno
 * value (EWOULDBLOCK: another open of the file has it). POSIX and the
 * simulator only (the lock-file claim's), as the two below. */
SFC_INTERNAL int sfc_file_lock_now(sfc_fd fd);
/* Lets go of the open file's lock (sfc_file_try_lock's). */
SFC_INTERNAL void sfc_file_unlock(sfc_fd fd);
/* Replaces the contents of the open lock file `fd` (the holder's pid, for
 * the messages of those refused); false on failure, errno saying why. */
SFC_INTERNAL bool sfc_file_set_text(sfc_fd fd, const char *text, size_t len);
/* Writes `len` bytes at the start of the open file `fd`, leaving what
 * follows them. */
SFC_INTERNAL sfc_status sfc_file_overwrite(sfc_fd fd, const char *text,
                                           size_t len, const char *path,
                                           sfc_error *err);
/* Closes the held lock file `fd` and removes it from the folder, never
 * removing a file that another holder has locked meanwhile. */
SFC_INTERNAL void sfc_file_close_removing(const sfc_dir *dir, const char *name,
                                          sfc_fd fd);
/* Whether `name` in the folder is the open file `fd`, still linked there. */
SFC_INTERNAL bool sfc_file_is_at(const sfc_dir *dir, const char *name,
                                 sfc_fd fd);
/* Opens `name` of the folder as it is, for reading, or with `create` for
 * reading and writing, made (0644) if missing; never through a link, and
 * never waiting on what is there (a FIFO). 0 and *out, else the errno
 * value (ELOOP, ENXIO: something other than a regular file is there) and
 * *out SFC_NO_FD. POSIX and the simulator only. */
SFC_INTERNAL int sfc_file_open_at(const sfc_dir *dir, const char *name,
                                  bool create, sfc_fd *out);
/* Whether the open file `fd` is a regular file: then its owner's uid and
 * its id. POSIX and the simulator only. */
SFC_INTERNAL bool sfc_file_regular(sfc_fd fd, long long *uid, sfc_file_id *id);
/* The id of whatever `name` is in the folder; false when there is none. */
SFC_INTERNAL bool sfc_file_id_at(const sfc_dir *dir, const char *name,
                                 sfc_file_id *id);
/* Reads the regular file `name` of the folder: its first cap - 1 bytes and
 * a NUL, their number in *len; *missing (and SFC_OK) when there is none.
 * `owner` (SFC_TAG_MAX bytes, or NULL): whose words they are, as
 * sfc_os_user_tag says it — "" when users other than its owner may write
 * it, "*" where owners are not read (Windows). */
SFC_INTERNAL sfc_status sfc_file_read_at(const sfc_dir *dir, const char *name,
                                         const char *path, char *buf,
                                         size_t cap, size_t *len, bool *missing,
                                         char *owner, sfc_error *err);
/* Reads the open file `fd` from its start: its first cap - 1 bytes and a
 * NUL, their number in *len. */
SFC_INTERNAL sfc_status sfc_file_read_fd(sfc_fd fd, const char *path, char *buf,
                                         size_t cap, size_t *len,
                                         sfc_error *err);
/* Whether another open of the regular file `name` holds its lock (false
 * when there is no such file): *held. A file in the way that is not a
 * regular file is an error. */
SFC_INTERNAL sfc_status sfc_file_lock_held_at(const sfc_dir *dir,
                                              const char *name,
                                              const char *path, bool *held,
                                              sfc_error *err);
/* Gives the file `name`, whose open descriptor *fd is held locked, the
 * contents `data` in a way that no other descriptor of the old file (a
 * forked process's copy) can write into what a successor reads: POSIX
 * writes a new file, locks it and renames it over the old one (*fd is then
 * the new file's); Windows, which has no fork, writes in place. */
SFC_INTERNAL sfc_status sfc_file_renew_locked(const sfc_dir *dir,
                                              const char *name,
                                              const char *path, sfc_fd *fd,
                                              const char *data, size_t len,
                                              sfc_error *err);
/* Replaces `name` with `len` bytes atomically: written to a new file
 * "<name>.tmp", synced, renamed over `name`, the folder synced — a crash
 * leaves the old contents or the new, never a mix. *id: the new file. */
SFC_INTERNAL sfc_status sfc_file_replace_at(const sfc_dir *dir,
                                            const char *name, const char *path,
                                            const char *data, size_t len,
                                            sfc_file_id *id, sfc_error *err);

/* Why this system has no host-wide claim of a node value, or NULL where
 * it has one: without one the guard is off, and the generator's warning
 * says why. */
static inline const char *sfc_os_no_claim(void) {
#if defined(__wasm__)
  return "WebAssembly has no host-wide claim (an instance sees no other "
         "process or file): give each worker or isolate its own node value";
#else
  return NULL;
#endif
}

/* The host-wide name of a claim (claim_os_*.c), `hex` its hash. SFC_OK
 * and *out: taken; SFC_OK and *held: another live process has it, *who as
 * far as it tells; else SFC_STATE_ERROR (never a silent start without
 * it). `where` says what the name is, either way. */
typedef struct sfc_holder {
  long pid;         /* 0: unknown */
  long long uid;    /* -1: unknown */
  const char *find; /* how to find it when it does not answer, or NULL */
} sfc_holder;
/* Calls fn with the hex of every claim held in this host's scope that the
 * records folder cannot show (Linux: the abstract names of the network
 * namespace, other mount namespaces' among them); nothing elsewhere.
 * SFC_STATE_ERROR when the list cannot be read: a claim never starts
 * without it. */
SFC_INTERNAL sfc_status sfc_os_claim_each(void (*fn)(void *ctx,
                                                     const char *hex),
                                          void *ctx, sfc_error *err);
SFC_INTERNAL sfc_status sfc_os_claim_take(const char *hex, sfc_fd *out,
                                          char *where, size_t cap, bool *held,
                                          sfc_holder *who, sfc_error *err);
/* Who holds the name now; false when it does not say. */
SFC_INTERNAL bool sfc_os_claim_holder(const char *hex, sfc_holder *who);
SFC_INTERNAL void sfc_os_claim_release(const char *hex, sfc_fd fd);
/* The lock-file claims of claim_os_file.c; on Linux, where the abstract
 * socket is the claim, used instead of it only when a test sets
 * sfc_claim_by_file. */
SFC_INTERNAL sfc_status sfc_file_claim_take(const char *hex, sfc_fd *out,
                                            char *where, size_t cap, bool *held,
                                            sfc_holder *who, sfc_error *err);
SFC_INTERNAL bool sfc_file_claim_holder(const char *hex, sfc_holder *who);
SFC_INTERNAL void sfc_file_claim_release(const char *hex, sfc_fd fd);
SFC_INTERNAL extern bool sfc_claim_by_file;
/* POSIX: the claim `where` could not be taken (`what` failed with errno
 * `e`): SFC_STATE_ERROR, with what to do about a full descriptor table. */
SFC_INTERNAL sfc_status sfc_claim_os_error(sfc_error *err, const char *where,
                                           const char *what, int e);

#endif
