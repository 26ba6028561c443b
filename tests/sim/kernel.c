/* The simulated kernel. Each simulated process is a real process connected
 * by a socket; its threads run one at a time, each until its next system
 * call, when the kernel answers and decides from the seed what runs next.
 * The host it keeps: clocks (wall, monotonic, the CPU counter) that only
 * the schedule moves; descriptors and open files shared across fork; files
 * whose unsynced contents a power cut loses or tears; flock; abstract
 * sockets per network namespace; folders per mount namespace; users. */
#define _GNU_SOURCE
#include "kernel.h"
#include "leasedb.h"

#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime.h"

#define MAX_PROCS 48
#define MAX_THREADS 160
#define MAX_FDS 48
#define MAX_OFDS 768
#define MAX_INODES 768
#define MAX_DIRENTS 1536
#define MAX_MUTEXES 256
#define MAX_NAMES 256
#define MAX_PATHS 64
#define HOSTS 64

/* --- random numbers ------------------------------------------------------- */

static uint64_t rng_state;

uint64_t k_rand(uint64_t n) {
  uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  z ^= z >> 31;
  return n ? z % n : z;
}

/* --- the host's tables ------------------------------------------------------
 */

typedef struct inode {
  bool used, is_dir, tmpfs;
  long uid;
  unsigned mode;
  int nlink;
  int lock_ofd;           /* the open file that holds its flock, or -1 */
  int shared[8], nshared; /* the open files that hold a shared one */
  char *data, *durable;
  size_t len, durable_len;
  bool synced; /* durable == data */
} inode;

typedef struct dirent {
  bool used;
  int dir;
  char name[SIM_STR_MAX];
  int ino, durable_ino; /* 0: none (now, and as of the last sync) */
} dirent;

typedef struct ofd {
  int refs;
  int kind; /* 1 file, 2 folder, 3 socket */
  int ino;
  int name; /* sockets: the bound name */
} ofd;

typedef struct bound {
  bool used;
  long netns;
  char name[SIM_STR_MAX];
  int ofd;
  long pid, uid;
} bound;

typedef struct path_entry {
  bool used;
  long mntns;
  char path[SIM_STR_MAX];
  int ino;
} path_entry;

/* T_BORN: created, not startable until its creator has made its next call
 * (by then the process knows the thread). */
enum {
  T_FREE,
  T_READY,
  T_RUNNING,
  T_MUTEX,
  T_COND,
  T_SLEEP,
  T_JOIN,
  T_IDLE,
  T_EXITED,
  T_BORN
};

typedef struct thread {
  int state;
  long pid;
  int64_t tid;
  bool user; /* a driver thread: takes commands */
  sim_reply reply;
  int64_t key[3]; /* a mutex's (T_MUTEX), or a cond's then its mutex's */
  int64_t mkey[3];
  int64_t deadline; /* monotonic ns; 0 none */
  int64_t join;
  int64_t born_by;
  int64_t last_wall_ns;
  /* A signal handler running on it: the state to go back to. */
  int saved_state;
  sim_reply saved_reply;
  bool in_handler;
} thread;

typedef struct proc {
  bool used, alive;
  long pid;
  pid_t real;
  int sock;
  long netns, mntns, uid;
  int64_t started;      /* a token of this program: changes with execve */
  int64_t paused_until; /* real ns: not scheduled before (SIGSTOP, a VM) */
  char hostname[64];
  int fd[MAX_FDS]; /* ofd index + 1; 0 free */
  bool cloexec[MAX_FDS];
} proc;

typedef struct mutex {
  bool used;
  int64_t key[3];
  int64_t owner; /* tid; 0 free; -1 a thread that does not exist */
} mutex;

static k_config cfg;
static proc procs[MAX_PROCS];
static thread threads[MAX_THREADS];
static ofd ofds[MAX_OFDS];
static inode inodes[MAX_INODES];
static dirent dirents[MAX_DIRENTS];
static bound names[MAX_NAMES];
static path_entry paths[MAX_PATHS];
static mutex mutexes[MAX_MUTEXES];
static long next_pid, next_tid, next_shared_mutex, programs;
static int listen_fd = -1;
static char listen_name[64];
static int64_t mono_ns, wall_ns, boot;
/* True time, which no reboot starts again (the lease database's clock counts
 * from it), and each host's wall clock apart from the others' (by network
 * namespace: a host of its own). */
static int64_t real_ns, host_offset_ns[HOSTS];
static bool frozen;
static uint64_t steps;
static uint64_t trace_hash; /* every call and answer: two runs of one seed
                               must agree */
static char failure[512];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
  if (failure[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(failure, sizeof failure, fmt, ap);
  va_end(ap);
}

const char *k_failure(void) {
  return failure[0] ? failure : NULL;
}

uint64_t k_steps(void) {
  return steps;
}

long k_boots(void) {
  return (long)boot;
}

int k_path_ino(long mntns, const char *path);

int64_t k_wall_ns(void) {
  return wall_ns;
}

int64_t k_mono_ns(void) {
  return mono_ns;
}

int64_t k_real_ns(void) {
  return real_ns;
}

static proc *proc_of(long pid) {
  for (int i = 0; i < MAX_PROCS; i++)
    if (procs[i].used && procs[i].pid == pid) return &procs[i];
  return NULL;
}

bool k_alive(long pid) {
  proc *p = proc_of(pid);
  return p && p->alive;
}

static thread *thread_of(int64_t tid) {
  for (int i = 0; i < MAX_THREADS; i++)
    if (threads[i].state != T_FREE && threads[i].tid == tid) return &threads[i];
  return NULL;
}

static thread *new_thread(long pid, bool user) {
  for (int i = 0; i < MAX_THREADS; i++)
    if (threads[i].state == T_FREE) {
      memset(&threads[i], 0, sizeof threads[i]);
      threads[i].pid = pid;
      threads[i].tid = ++next_tid;
      threads[i].user = user;
      threads[i].state = T_READY;
      threads[i].reply.directive = START_THREAD;
      threads[i].reply.tid = (int32_t)threads[i].tid;
      return &threads[i];
    }
  fail("kernel: out of threads");
  return NULL;
}

/* --- time ------------------------------------------------------------------
 */

void k_advance(int64_t us) {
  mono_ns += us * 1000;
  real_ns += us * 1000;
  if (!frozen) wall_ns += us * 1000;
}

/* Time a system call takes: a few µs, now and then a preemption. */
static void tick_on(void) {
  int64_t ns = (int64_t)k_rand(3000);
  if (k_rand(400) == 0) ns += 100000 + (int64_t)k_rand(3000000);
  mono_ns += ns;
  real_ns += ns;
  if (!frozen) wall_ns += ns;
}

void k_clock_step(int64_t delta_us) {
  wall_ns += delta_us * 1000;
}

void k_clock_freeze(bool on) {
  frozen = on;
}

void k_host_clock_step(long netns, int64_t delta_us) {
  host_offset_ns[netns % HOSTS] += delta_us * 1000;
}

void k_pause(long pid, int64_t us) {
  proc *p = proc_of(pid);
  if (p && p->alive) p->paused_until = real_ns + us * 1000;
}

/* --- files -----------------------------------------------------------------
 */

static int new_inode(bool is_dir, long uid, unsigned mode, bool tmpfs) {
  for (int i = 1; i < MAX_INODES; i++)
    if (!inodes[i].used) {
      memset(&inodes[i], 0, sizeof inodes[i]);
      inodes[i].used = true;
      inodes[i].is_dir = is_dir;
      inodes[i].uid = uid;
      inodes[i].mode = mode | (is_dir ? S_IFDIR : S_IFREG);
      inodes[i].tmpfs = tmpfs;
      inodes[i].lock_ofd = -1;
      inodes[i].nshared = 0;
      inodes[i].synced = true;
      return i;
    }
  fail("kernel: out of inodes");
  return 0;
}

static void inode_gc(int ino) {
  inode *n = &inodes[ino];
  if (!n->used || n->nlink > 0) return;
  for (int i = 0; i < MAX_OFDS; i++)
    if (ofds[i].refs > 0 && ofds[i].ino == ino) return;
  for (int i = 0; i < MAX_PATHS; i++)
    if (paths[i].used && paths[i].ino == ino) return;
  /* An unlink not synced yet: the disk still has it, and a power cut
   * brings it back. */
  for (int i = 0; i < MAX_DIRENTS; i++)
    if (dirents[i].used && dirents[i].durable_ino == ino) return;
  free(n->data);
  free(n->durable);
  n->data = n->durable = NULL;
  n->len = n->durable_len = 0;
  n->used = false;
}

static dirent *lookup(int dir, const char *name) {
  for (int i = 0; i < MAX_DIRENTS; i++)
    if (dirents[i].used && dirents[i].dir == dir && dirents[i].ino &&
        strcmp(dirents[i].name, name) == 0)
      return &dirents[i];
  return NULL;
}

/* The entry `name` of `dir`, made if missing (with no inode yet). */
static dirent *entry(int dir, const char *name) {
  for (int i = 0; i < MAX_DIRENTS; i++)
    if (dirents[i].used && dirents[i].dir == dir &&
        strcmp(dirents[i].name, name) == 0)
      return &dirents[i];
  for (int i = 0; i < MAX_DIRENTS; i++)
    if (!dirents[i].used) {
      memset(&dirents[i], 0, sizeof dirents[i]);
      dirents[i].used = true;
      dirents[i].dir = dir;
      snprintf(dirents[i].name, sizeof dirents[i].name, "%s", name);
      return &dirents[i];
    }
  fail("kernel: out of directory entries");
  return &dirents[0];
}

static int path_ino(long mntns, const char *path) {
  for (int i = 0; i < MAX_PATHS; i++)
    if (paths[i].used && paths[i].mntns == mntns &&
        strcmp(paths[i].path, path) == 0)
      return paths[i].ino;
  return 0;
}

static void add_path(long mntns, const char *path, int ino) {
  for (int i = 0; i < MAX_PATHS; i++)
    if (!paths[i].used) {
      paths[i].used = true;
      paths[i].mntns = mntns;
      snprintf(paths[i].path, sizeof paths[i].path, "%s", path);
      paths[i].ino = ino;
      return;
    }
  fail("kernel: out of paths");
}

static bool shared_path(const char *path) {
  for (int i = 0; i < 4; i++)
    if (cfg.shared_paths[i] && strcmp(cfg.shared_paths[i], path) == 0)
      return true;
  return false;
}

/* A mount namespace's view: /dev/shm and /tmp are its own tmpfs, root's
 * and sticky; a shared state folder is one volume everywhere. */
static void mount_ns(long mntns) {
  if (path_ino(mntns, "/dev/shm")) return;
  add_path(mntns, "/dev/shm", new_inode(true, 0, 01777, true));
  add_path(mntns, "/tmp", new_inode(true, 0, 01777, true));
}

static bool may_write_dir(const proc *p, int dir) {
  const inode *d = &inodes[dir];
  return p->uid == 0 || d->uid == p->uid || (d->mode & 0002);
}

/* Sticky folders: only a file's owner (or the folder's, or root) removes
 * or replaces it. */
static bool may_remove(const proc *p, int dir, int ino) {
  const inode *d = &inodes[dir];
  if (!(d->mode & S_ISVTX)) return may_write_dir(p, dir);
  return p->uid == 0 || inodes[ino].uid == p->uid || d->uid == p->uid;
}

static void set_data(inode *n, const char *data, size_t len, size_t off) {
  size_t end = off + len;
  if (end > n->len) {
    n->data = realloc(n->data, end);
    memset(n->data + n->len, 0, end - n->len);
    n->len = end;
  }
  memcpy(n->data + off, data, len);
  n->synced = false;
}

/* --- descriptors
 * -------------------------------------------------------------- */

static int new_fd(proc *p, int kind, int ino, bool cloexec) {
  int o = -1;
  for (int i = 0; i < MAX_OFDS; i++)
    if (ofds[i].refs == 0) {
      o = i;
      break;
    }
  if (o < 0) {
    fail("kernel: out of open files");
    return -EMFILE;
  }
  for (int fd = 3; fd < MAX_FDS; fd++)
    if (!p->fd[fd]) {
      ofds[o] = (ofd){1, kind, ino, -1};
      p->fd[fd] = o + 1;
      p->cloexec[fd] = cloexec;
      return fd;
    }
  return -EMFILE;
}

static ofd *ofd_of(proc *p, int64_t fd) {
  if (fd < 0 || fd >= MAX_FDS || !p->fd[fd]) return NULL;
  return &ofds[p->fd[fd] - 1];
}

/* Drops open file o's shared flock of n, if it holds one. */
static void unshare_lock(inode *n, int o) {
  for (int i = 0; i < n->nshared; i++)
    if (n->shared[i] == o) n->shared[i--] = n->shared[--n->nshared];
}

static void ofd_release(int o) {
  ofd *f = &ofds[o];
  if (--f->refs > 0) return;
  if (f->kind == 3 && f->name >= 0) names[f->name].used = false;
  if (f->ino && inodes[f->ino].lock_ofd == o) inodes[f->ino].lock_ofd = -1;
  if (f->ino) unshare_lock(&inodes[f->ino], o);
  if (f->ino) inode_gc(f->ino);
}

static void close_fd(proc *p, int fd) {
  if (!p->fd[fd]) return;
  int o = p->fd[fd] - 1;
  p->fd[fd] = 0;
  ofd_release(o);
}

/* --- mutexes -----------------------------------------------------------------
 */

/* A mutex's key: a shared one by its id, a private one by its process and
 * address. */
static void mutex_key(const thread *t, int64_t a0, int64_t a1, int64_t key[3]) {
  key[0] = a0;
  key[1] = a0 ? 0 : t->pid;
  key[2] = a0 ? 0 : a1;
}

static mutex *mutex_of(const int64_t key[3], bool make) {
  for (int i = 0; i < MAX_MUTEXES; i++)
    if (mutexes[i].used && !memcmp(mutexes[i].key, key, sizeof mutexes[i].key))
      return &mutexes[i];
  if (!make) return NULL;
  for (int i = 0; i < MAX_MUTEXES; i++)
    if (!mutexes[i].used) {
      mutexes[i].used = true;
      memcpy(mutexes[i].key, key, sizeof mutexes[i].key);
      mutexes[i].owner = 0;
      return &mutexes[i];
    }
  fail("kernel: out of mutexes");
  return &mutexes[0];
}

static void ready(thread *t, int64_t ret) {
  t->state = T_READY;
  memset(&t->reply, 0, offsetof(sim_reply, data));
  t->reply.directive = RUN_THREAD;
  t->reply.tid = (int32_t)t->tid;
  t->reply.ret = ret;
}

/* Takes the mutex for t, or blocks t on it. A shared mutex whose holder
 * died is handed over (robust). */
static void lock_for(thread *t, const int64_t key[3]) {
  mutex *m = mutex_of(key, true);
  int64_t ret = 0;
  if (m->owner > 0) {
    thread *o = thread_of(m->owner);
    if (!o || o->state == T_EXITED) {
      if (key[0]) {
        m->owner = 0; /* its process died: robust */
        ret = EOWNERDEAD;
      }
    }
  }
  if (m->owner == 0) {
    m->owner = t->tid;
    ready(t, ret);
    return;
  }
  t->state = T_MUTEX;
  memcpy(t->key, key, sizeof t->key);
}

static void unlock(const int64_t key[3]) {
  mutex *m = mutex_of(key, false);
  if (!m) return;
  m->owner = 0;
  /* Whoever waits tries again, in an order the seed picks. */
  int waiting[MAX_THREADS], n = 0;
  for (int i = 0; i < MAX_THREADS; i++)
    if (threads[i].state == T_MUTEX &&
        !memcmp(threads[i].key, key, sizeof m->key))
      waiting[n++] = i;
  if (n) lock_for(&threads[waiting[k_rand((uint64_t)n)]], key);
}

/* --- processes --------------------------------------------------------------
 */

static void hash_in(uint64_t v) {
  trace_hash = (trace_hash ^ v) * UINT64_C(0x100000001b3);
}

uint64_t k_trace_hash(void) {
  return trace_hash;
}

static void send_reply(proc *p, const sim_reply *r) {
  hash_in((uint64_t)r->tid);
  hash_in((uint64_t)r->ret);
  hash_in((uint64_t)r->v[0]);
  size_t n = offsetof(sim_reply, data) + r->len;
  if (send(p->sock, r, n, MSG_NOSIGNAL) != (ssize_t)n)
    fail("kernel: process %ld is gone (sending)", p->pid);
}

static proc *new_proc(long netns, long mntns, long uid, const char *hostname) {
  for (int i = 0; i < MAX_PROCS; i++)
    if (!procs[i].used) {
      memset(&procs[i], 0, sizeof procs[i]);
      procs[i].used = procs[i].alive = true;
      procs[i].pid = ++next_pid;
      procs[i].netns = netns;
      procs[i].mntns = mntns;
      procs[i].uid = uid;
      procs[i].sock = -1;
      snprintf(procs[i].hostname, sizeof procs[i].hostname, "%s", hostname);
      mount_ns(mntns);
      return &procs[i];
    }
  fail("kernel: out of processes");
  return NULL;
}

/* A fresh program in process p, its first thread t: this executable run
 * again (sim_process_exec), so that nothing of the kernel's memory reaches
 * it. SIM_VALGRIND runs it under valgrind's memcheck. */
static void run_program(proc *p, thread *t) {
  int sv[2];
  p->started = (int64_t)++programs;
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
    fail("kernel: socketpair: %s", strerror(errno));
    return;
  }
  fcntl(sv[0], F_SETFD, FD_CLOEXEC);
  fflush(NULL);
  pid_t real = fork();
  if (real == 0) {
    char fd[16], pid[24], uid[24], tid[24];
    snprintf(fd, sizeof fd, "%d", sv[1]);
    snprintf(pid, sizeof pid, "%ld", p->pid);
    snprintf(uid, sizeof uid, "%ld", p->uid);
    snprintf(tid, sizeof tid, "%lld", (long long)t->tid);
    const char *claims = cfg.claims_by_file ? "file" : "socket";
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) _exit(13);
    self[n] = '\0';
    const char *vg = getenv("SIM_VALGRIND");
    if (vg && *vg) {
      execlp("valgrind", "valgrind", "-q", "--error-exitcode=99",
             "--exit-on-first-error=yes", self, "--process", fd, pid, uid,
             p->hostname, tid, claims, (char *)NULL);
    }
    execl(self, self, "--process", fd, pid, uid, p->hostname, tid, claims,
          (char *)NULL);
    _exit(14);
  }
  close(sv[1]);
  if (real < 0) {
    fail("kernel: fork: %s", strerror(errno));
    return;
  }
  p->real = real;
  p->sock = sv[0];
}

long k_spawn(long netns, long mntns, long uid, const char *hostname) {
  proc *p = new_proc(netns, mntns, uid, hostname);
  if (!p) return -1;
  thread *t = new_thread(p->pid, true);
  if (!t) return -1;
  run_program(p, t);
  sim_model_spawned(p->pid, netns, mntns, uid);
  return p->pid;
}

static void end_threads(long pid) {
  for (int i = 0; i < MAX_THREADS; i++)
    if (threads[i].state != T_FREE && threads[i].pid == pid)
      threads[i].state = T_EXITED;
}

/* Ends the real process of a simulated one: at once (SIGKILL), or, in a
 * build that measures coverage (SIM_COVERAGE), once it has written its
 * counts (it waits in a receive: SIGUSR2 dumps them and exits). */
static void end_real(long real) {
  if (real <= 0) return;
#ifdef SIM_COVERAGE
  kill(real, SIGUSR2);
  waitpid(real, NULL, 0);
#else
  kill(real, SIGKILL);
#endif
}

/* What the kernel does when a process dies: its descriptors close (so its
 * flocks and sockets go), its threads are gone, a shared lock it held is
 * handed to a waiter. */
/* The program of p has gone (its threads ended): its private locks with
 * it; a shared lock one of its threads held is handed to a waiter. */
static void drop_locks(proc *p) {
  for (int i = 0; i < MAX_MUTEXES; i++) {
    if (!mutexes[i].used) continue;
    if (mutexes[i].key[1] == p->pid && mutexes[i].key[0] == 0) {
      mutexes[i].used = false; /* its private locks */
      continue;
    }
    thread *o = mutexes[i].owner > 0 ? thread_of(mutexes[i].owner) : NULL;
    if (o && o->pid == p->pid) {
      /* A waiter takes it over, as a robust mutex's EOWNERDEAD. */
      for (int j = 0; j < MAX_THREADS; j++)
        if (threads[j].state == T_MUTEX &&
            !memcmp(threads[j].key, mutexes[i].key, sizeof mutexes[i].key)) {
          lock_for(&threads[j], mutexes[i].key);
          break;
        }
    }
  }
}

static void reap(proc *p) {
  for (int fd = 0; fd < MAX_FDS; fd++)
    close_fd(p, fd);
  end_threads(p->pid);
  drop_locks(p);
  end_real(p->real);
  if (p->sock >= 0) close(p->sock);
  p->sock = -1;
  p->real = 0;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

void k_kill(long pid) {
  proc *p = proc_of(pid);
  if (!p || !p->alive) return;
  p->alive = false;
  reap(p);
  sim_model_ended(pid, SIM_END_KILL);
}

void k_exec(long pid) {
  proc *p = proc_of(pid);
  if (!p || !p->alive) return;
  for (int fd = 0; fd < MAX_FDS; fd++)
    if (p->cloexec[fd]) close_fd(p, fd);
  end_threads(pid);
  drop_locks(p);
  end_real(p->real);
  if (p->sock >= 0) close(p->sock);
  p->sock = -1;
  p->real = 0;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  sim_model_ended(pid, SIM_END_EXEC);
  thread *t = new_thread(pid, true);
  if (t) run_program(p, t);
}

bool k_idle(long pid) {
  for (int i = 0; i < MAX_THREADS; i++)
    if (threads[i].state == T_IDLE && threads[i].pid == pid) return true;
  return false;
}

bool k_command(long pid, int64_t kind, int64_t slot, int64_t n, int64_t flag,
               const char *text) {
  for (int i = 0; i < MAX_THREADS; i++) {
    thread *t = &threads[i];
    if (t->state != T_IDLE || t->pid != pid) continue;
    ready(t, 0);
    t->reply.v[0] = kind;
    t->reply.v[1] = slot;
    t->reply.v[2] = n;
    t->reply.v[3] = flag;
    size_t len = text ? strlen(text) : 0;
    if (len > SIM_DATA_MAX - 1) len = SIM_DATA_MAX - 1;
    memcpy(t->reply.data, text ? text : "", len);
    t->reply.len = (uint32_t)len;
    sim_model_command(pid, t->tid, kind, slot, n, flag, text);
    return true;
  }
  return false;
}

bool k_signal(long pid, int64_t handler, int64_t slot) {
  int cand[MAX_THREADS], n = 0;
  for (int i = 0; i < MAX_THREADS; i++)
    if (threads[i].pid == pid && threads[i].user && !threads[i].in_handler &&
        threads[i].state == T_SLEEP)
      cand[n++] = i;
  if (!n) return false;
  thread *t = &threads[cand[k_rand((uint64_t)n)]];
  t->saved_state = t->state;
  t->saved_reply = t->reply;
  t->in_handler = true;
  ready(t, 0);
  t->reply.directive = RUN_HANDLER;
  t->reply.v[0] = handler;
  t->reply.v[1] = slot;
  if (handler == HANDLER_CLOSE) sim_model_closing(pid, slot);
  return true;
}

/* --- system calls ------------------------------------------------------------
 */

static void stat_reply(thread *t, int ino) {
  inode *n = &inodes[ino];
  ready(t, 0);
  t->reply.v[0] = 1 + (n->tmpfs ? 1 : 0);
  t->reply.v[1] = ino;
  t->reply.v[2] = n->mode;
  t->reply.v[3] = n->uid;
  t->reply.v[4] = n->nlink;
  t->reply.v[5] = (int64_t)n->len;
}

static int dir_of(proc *p, int64_t dirfd) {
  ofd *f = ofd_of(p, dirfd);
  return f && f->kind == 2 ? f->ino : 0;
}

static void sys_open(proc *p, thread *t, const sim_request *r) {
  const int flags = (int)r->a[1];
  const char *name = r->s[0];
  int ino;
  if (r->a[0] < 0) { /* a path of the mount namespace: folders only */
    ino = path_ino(p->mntns, name);
    if (!ino) {
      ready(t, -ENOENT);
      return;
    }
    ready(t, new_fd(p, 2, ino, true));
    return;
  }
  int dir = dir_of(p, r->a[0]);
  if (!dir) {
    ready(t, -EBADF);
    return;
  }
  dirent *e = lookup(dir, name);
  if (e && (flags & O_CREAT) && (flags & O_EXCL)) {
    ready(t, -EEXIST);
    return;
  }
  if (!e) {
    if (!(flags & O_CREAT)) {
      ready(t, -ENOENT);
      return;
    }
    if (!may_write_dir(p, dir)) {
      ready(t, -EACCES);
      return;
    }
    ino = new_inode(false, p->uid, (unsigned)r->a[2] & 0777, inodes[dir].tmpfs);
    e = entry(dir, name);
    e->ino = ino;
    inodes[ino].nlink = 1;
  }
  ino = e->ino;
  inode *n = &inodes[ino];
  if (n->is_dir) {
    if (!(flags & O_DIRECTORY) && (flags & O_ACCMODE) != O_RDONLY) {
      ready(t, -EISDIR);
      return;
    }
    {
      ready(t, new_fd(p, 2, ino, (flags & O_CLOEXEC) != 0));
      return;
    }
  }
  if (flags & O_DIRECTORY) {
    ready(t, -ENOTDIR);
    return;
  }
  const bool write = (flags & O_ACCMODE) != O_RDONLY;
  if (write && !(p->uid == 0 || n->uid == p->uid || (n->mode & 0002))) {
    ready(t, -EACCES);
    return;
  }
  ready(t, new_fd(p, 1, ino, (flags & O_CLOEXEC) != 0));
}

static void sys_stat(proc *p, thread *t, const sim_request *r) {
  if (r->a[0] >= 0 && !r->a[2]) {
    ofd *f = ofd_of(p, r->a[0]);
    if (!f || !f->ino) {
      ready(t, -EBADF);
      return;
    }
    {
      stat_reply(t, f->ino);
      return;
    }
  }
  if (r->a[0] < 0) {
    int ino = path_ino(p->mntns, r->s[0]);
    if (ino)
      stat_reply(t, ino);
    else
      ready(t, -ENOENT);
    return;
  }
  int dir = dir_of(p, r->a[0]);
  if (!dir) {
    ready(t, -EBADF);
    return;
  }
  dirent *e = lookup(dir, r->s[0]);
  if (e)
    stat_reply(t, e->ino);
  else
    ready(t, -ENOENT);
}

static void sys_mkdir(proc *p, thread *t, const sim_request *r) {
  if (path_ino(p->mntns, r->s[0])) {
    ready(t, -EEXIST);
    return;
  }
  int ino = 0;
  if (shared_path(r->s[0]))
    for (int i = 0; i < MAX_PATHS && !ino; i++)
      if (paths[i].used && strcmp(paths[i].path, r->s[0]) == 0)
        ino = paths[i].ino;
  if (!ino) ino = new_inode(true, p->uid, 0755, false);
  add_path(p->mntns, r->s[0], ino);
  ready(t, 0);
}

static void sys_flock(proc *p, thread *t, const sim_request *r) {
  ofd *f = ofd_of(p, r->a[0]);
  if (!f || !f->ino) {
    ready(t, -EBADF);
    return;
  }
  inode *n = &inodes[f->ino];
  const int o = p->fd[r->a[0]] - 1;
  /* flock: 1 exclusive, 2 shared (many at once, none beside an exclusive
   * one), 0 unlock; a lock of the other kind held by o is converted. */
  if (r->a[1] == 0 || r->a[1] == 2) {
    if (n->lock_ofd == o) n->lock_ofd = -1;
    unshare_lock(n, o);
  }
  if (r->a[1] == 0) {
    ready(t, 0);
    return;
  }
  bool others_share = false;
  for (int i = 0; i < n->nshared; i++)
    others_share |= n->shared[i] != o;
  if ((n->lock_ofd >= 0 && n->lock_ofd != o) ||
      (r->a[1] == 1 && others_share) || (r->a[1] == 2 && n->nshared == 8)) {
    if (getenv("SIM_DEBUG_LOCKS")) {
      fprintf(stderr, "flock busy: ino %d held by ofd %d (refs %d):", f->ino,
              n->lock_ofd, ofds[n->lock_ofd].refs);
      for (int i = 0; i < MAX_PROCS; i++)
        for (int fd = 0; procs[i].used && fd < MAX_FDS; fd++)
          if (procs[i].fd[fd] == n->lock_ofd + 1)
            fprintf(stderr, " pid %ld fd %d%s", procs[i].pid, fd,
                    procs[i].alive ? "" : " (dead)");
      fprintf(stderr, "\n");
    }
    ready(t, -EWOULDBLOCK);
    return;
  }
  if (r->a[1] == 2) {
    n->shared[n->nshared++] = o;
  } else {
    unshare_lock(n, o);
    n->lock_ofd = o;
  }
  ready(t, 0);
}

static void sys_pwrite(proc *p, thread *t, const sim_request *r) {
  ofd *f = ofd_of(p, r->a[0]);
  if (!f || f->kind != 1) {
    ready(t, -EBADF);
    return;
  }
  set_data(&inodes[f->ino], r->data, r->len, (size_t)r->a[1]);
  ready(t, r->len);
}

static void sys_pread(proc *p, thread *t, const sim_request *r) {
  ofd *f = ofd_of(p, r->a[0]);
  if (!f || f->kind != 1) {
    ready(t, -EBADF);
    return;
  }
  inode *n = &inodes[f->ino];
  size_t off = (size_t)r->a[1], want = (size_t)r->a[2];
  size_t have = off < n->len ? n->len - off : 0;
  if (want > have) want = have;
  if (want > SIM_DATA_MAX) want = SIM_DATA_MAX;
  ready(t, (int64_t)want);
  if (want) memcpy(t->reply.data, n->data + off, want);
  t->reply.len = (uint32_t)want;
}

static void sys_truncate(proc *p, thread *t, const sim_request *r) {
  ofd *f = ofd_of(p, r->a[0]);
  if (!f || f->kind != 1) {
    ready(t, -EBADF);
    return;
  }
  inode *n = &inodes[f->ino];
  if ((size_t)r->a[1] < n->len) n->len = (size_t)r->a[1];
  n->synced = false;
  ready(t, 0);
}

static void sys_fsync(proc *p, thread *t, const sim_request *r) {
  ofd *f = ofd_of(p, r->a[0]);
  if (!f || !f->ino) {
    ready(t, -EBADF);
    return;
  }
  inode *n = &inodes[f->ino];
  if (n->is_dir) {
    for (int i = 0; i < MAX_DIRENTS; i++)
      if (dirents[i].used && dirents[i].dir == f->ino) {
        const int was = dirents[i].durable_ino;
        dirents[i].durable_ino = dirents[i].ino;
        if (was && was != dirents[i].ino) inode_gc(was);
      }
  } else {
    free(n->durable);
    n->durable = malloc(n->len + 1);
    memcpy(n->durable, n->data ? n->data : "", n->len);
    n->durable_len = n->len;
    n->synced = true;
  }
  ready(t, 0);
}

static void sys_unlink(proc *p, thread *t, const sim_request *r) {
  int dir = dir_of(p, r->a[0]);
  if (!dir) {
    ready(t, -EBADF);
    return;
  }
  dirent *e = lookup(dir, r->s[0]);
  if (!e) {
    ready(t, -ENOENT);
    return;
  }
  if (!may_remove(p, dir, e->ino)) {
    ready(t, -EPERM);
    return;
  }
  int ino = e->ino;
  e->ino = 0;
  inodes[ino].nlink--;
  inode_gc(ino);
  ready(t, 0);
}

static void sys_rename(proc *p, thread *t, const sim_request *r) {
  int dir = dir_of(p, r->a[0]);
  if (!dir) {
    ready(t, -EBADF);
    return;
  }
  dirent *from = lookup(dir, r->s[0]);
  if (!from) {
    ready(t, -ENOENT);
    return;
  }
  if (!may_remove(p, dir, from->ino)) {
    ready(t, -EPERM);
    return;
  }
  dirent *to = lookup(dir, r->s[1]);
  if (to && !may_remove(p, dir, to->ino)) {
    ready(t, -EPERM);
    return;
  }
  int ino = from->ino;
  from->ino = 0;
  if (!to)
    to = entry(dir, r->s[1]);
  else {
    int old = to->ino;
    inodes[old].nlink--;
    to->ino = 0;
    inode_gc(old);
  }
  to->ino = ino;
  ready(t, 0);
}

static void sys_readdir(proc *p, thread *t, const sim_request *r) {
  int dir = dir_of(p, r->a[0]);
  if (!dir) {
    ready(t, -EBADF);
    return;
  }
  ready(t, 0);
  size_t at = 0;
  for (int i = 0; i < MAX_DIRENTS; i++) {
    if (!dirents[i].used || dirents[i].dir != dir || !dirents[i].ino) continue;
    size_t k = strlen(dirents[i].name) + 1;
    if (at + k > SIM_DATA_MAX) break;
    memcpy(t->reply.data + at, dirents[i].name, k);
    at += k;
  }
  t->reply.len = (uint32_t)at;
}

static void sys_bind(proc *p, thread *t, const sim_request *r) {
  for (int i = 0; i < MAX_NAMES; i++)
    if (names[i].used && names[i].netns == p->netns &&
        strcmp(names[i].name, r->s[0]) == 0) {
      ready(t, -EADDRINUSE);
      return;
    }
  int fd = new_fd(p, 3, 0, true);
  if (fd < 0) {
    ready(t, fd);
    return;
  }
  for (int i = 0; i < MAX_NAMES; i++)
    if (!names[i].used) {
      names[i] = (bound){true, p->netns, "", p->fd[fd] - 1, p->pid, p->uid};
      snprintf(names[i].name, sizeof names[i].name, "%s", r->s[0]);
      ofds[p->fd[fd] - 1].name = i;
      {
        ready(t, fd);
        return;
      }
    }
  fail("kernel: out of socket names");
  ready(t, -ENOMEM);
}

static void sys_peercred(proc *p, thread *t, const sim_request *r) {
  for (int i = 0; i < MAX_NAMES; i++)
    if (names[i].used && names[i].netns == p->netns &&
        strcmp(names[i].name, r->s[0]) == 0) {
      ready(t, 0);
      t->reply.v[0] = names[i].pid;
      t->reply.v[1] = names[i].uid;
      return;
    }
  ready(t, -ECONNREFUSED);
}

static void sys_unix_list(proc *p, thread *t) {
  ready(t, 0);
  size_t at = 0;
  for (int i = 0; i < MAX_NAMES; i++) {
    if (!names[i].used || names[i].netns != p->netns) continue;
    size_t k = strlen(names[i].name) + 1;
    if (at + k > SIM_DATA_MAX) break;
    memcpy(t->reply.data + at, names[i].name, k);
    at += k;
  }
  t->reply.len = (uint32_t)at;
}

static int64_t clock_read(thread *t, int kind) {
  if (kind == 0) {
    const proc *p = proc_of(t->pid);
    t->last_wall_ns = wall_ns + (p ? host_offset_ns[p->netns % HOSTS] : 0);
    return t->last_wall_ns;
  }
  if (kind == 1) return mono_ns;
  return mono_ns * 3 + boot * 7; /* the counter: 3 counts a ns */
}

static bool receive(proc *p, sim_request *req) {
  ssize_t n = recv(p->sock, req, sizeof *req, 0);
  if (n < (ssize_t)offsetof(sim_request, data)) {
    fail("kernel: process %ld crashed for real (%s)", p->pid,
         n < 0 ? strerror(errno) : "connection closed");
    return false;
  }
  return true;
}

/* fork: the child is a copy (descriptors shared, only the calling thread
 * in it); the real fork happens in the process, and both ends say they
 * run before anything else does. */
static void sys_fork(proc *p, thread *t) {
  proc *c = new_proc(p->netns, p->mntns, p->uid, p->hostname);
  if (!c) {
    ready(t, -EAGAIN);
    return;
  }
  c->alive = false; /* until it says it runs */
  for (int fd = 0; fd < MAX_FDS; fd++)
    if (p->fd[fd]) {
      c->fd[fd] = p->fd[fd];
      c->cloexec[fd] = p->cloexec[fd];
      ofds[p->fd[fd] - 1].refs++;
    }
  thread *ct = new_thread(c->pid, t->user);
  if (!ct) {
    ready(t, -EAGAIN);
    return;
  }
  /* Its private locks are copies: those the forking thread holds are the
   * child thread's; any other thread's stay held by nobody. */
  for (int i = 0; i < MAX_MUTEXES; i++) {
    if (!mutexes[i].used || mutexes[i].key[0] || mutexes[i].key[1] != p->pid)
      continue;
    int64_t key[3] = {0, c->pid, mutexes[i].key[2]};
    mutex *m = mutex_of(key, true);
    m->owner = mutexes[i].owner == t->tid ? ct->tid : mutexes[i].owner ? -1 : 0;
  }
  ready(t, c->pid);
  t->reply.directive = DO_FORK;
  t->reply.v[0] = ct->tid;
  t->state = T_RUNNING;
  send_reply(p, &t->reply);
  /* The parent's word, then the child's connection and word. */
  sim_request req;
  if (!receive(p, &req) || req.op != SYS_CHILD) {
    fail("kernel: fork of %ld went wrong", p->pid);
    return;
  }
  struct pollfd pfd = {listen_fd, POLLIN, 0};
  int fd = poll(&pfd, 1, 10000) == 1
               ? accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)
               : -1;
  if (fd < 0) {
    fail("kernel: accept: %s", strerror(errno));
    return;
  }
  c->sock = fd;
  c->real = (pid_t)req.a[0];
  sim_request hello;
  if (!receive(c, &hello) || hello.op != SYS_CHILD) {
    fail("kernel: the child of %ld did not say it runs", p->pid);
    return;
  }
  c->alive = true;
  c->started = (int64_t)++programs;
  ready(t, c->pid);
  ready(ct, 0);
  sim_model_forked(p->pid, c->pid);
}

/* Handles one request of thread t of process p. */
static void handle(proc *p, thread *t, const sim_request *r) {
  if (cfg.trace)
    fprintf(stderr, "  [%llu] pid %ld tid %lld op %d a0 %lld %s\n",
            (unsigned long long)steps, p->pid, (long long)t->tid, r->op,
            (long long)r->a[0], r->s[0]);
  int64_t key[3], mkey[3];
  hash_in((uint64_t)r->op);
  hash_in((uint64_t)r->a[0]);
  hash_in((uint64_t)mono_ns);
  for (int i = 0; i < MAX_THREADS; i++)
    if (threads[i].state == T_BORN && threads[i].born_by == t->tid)
      threads[i].state = T_READY;
  switch (r->op) {
  case SYS_CLOCK:
    ready(t, 0);
    t->reply.v[0] = clock_read(t, (int)r->a[0]);
    break;
  case SYS_SLEEP:
    t->state = T_SLEEP;
    t->deadline = r->a[0] * 1000;
    if (t->deadline <= mono_ns) ready(t, 0);
    break;
  case SYS_RANDOM:
    ready(t, 0);
    for (int64_t i = 0; i < r->a[0] && i < SIM_DATA_MAX; i++)
      t->reply.data[i] = (char)k_rand(256);
    t->reply.len = (uint32_t)r->a[0];
    break;
  case SYS_COUNTER_TRUSTED:
    ready(t, cfg.counter_trusted);
    break;
  case SYS_THREAD_CREATE: {
    thread *n = new_thread(p->pid, false);
    if (n) {
      n->state = T_BORN;
      n->born_by = t->tid;
    }
    ready(t, n ? n->tid : -1);
    break;
  }
  case SYS_THREAD_EXIT:
    t->state = T_EXITED;
    for (int i = 0; i < MAX_THREADS; i++)
      if (threads[i].state == T_JOIN && threads[i].join == t->tid)
        ready(&threads[i], 0);
    break;
  case SYS_JOIN: {
    thread *o = thread_of(r->a[0]);
    if (!o || o->state == T_EXITED) {
      ready(t, 0);
    } else {
      t->state = T_JOIN;
      t->join = r->a[0];
    }
    break;
  }
  case SYS_MUTEX_LOCK:
    mutex_key(t, r->a[0], r->a[1], key);
    lock_for(t, key);
    break;
  case SYS_MUTEX_UNLOCK:
    mutex_key(t, r->a[0], r->a[1], key);
    ready(t, 0);
    unlock(key);
    break;
  case SYS_MUTEX_SHARED:
    ready(t, ++next_shared_mutex);
    break;
  case SYS_COND_WAIT:
    mutex_key(t, r->a[2], r->a[3], mkey);
    t->state = T_COND;
    t->key[0] = 0;
    t->key[1] = p->pid;
    t->key[2] = r->a[1];
    memcpy(t->mkey, mkey, sizeof mkey);
    t->deadline = mono_ns + r->a[4] * 1000;
    unlock(mkey);
    break;
  case SYS_COND_SIGNAL:
    ready(t, 0);
    for (int i = 0; i < MAX_THREADS; i++)
      if (threads[i].state == T_COND && threads[i].key[1] == p->pid &&
          threads[i].key[2] == r->a[1]) {
        lock_for(&threads[i], threads[i].mkey);
        break;
      }
    break;
  case SYS_YIELD:
    ready(t, 0);
    break;
  case SYS_OPEN:
    sys_open(p, t, r);
    break;
  case SYS_MKDIR:
    sys_mkdir(p, t, r);
    break;
  case SYS_STAT:
    sys_stat(p, t, r);
    break;
  case SYS_CLOSE:
    if (r->a[0] >= 0 && r->a[0] < MAX_FDS) close_fd(p, (int)r->a[0]);
    ready(t, 0);
    break;
  case SYS_FLOCK:
    sys_flock(p, t, r);
    break;
  case SYS_PWRITE:
    sys_pwrite(p, t, r);
    break;
  case SYS_PREAD:
    sys_pread(p, t, r);
    break;
  case SYS_TRUNCATE:
    sys_truncate(p, t, r);
    break;
  case SYS_FSYNC:
    sys_fsync(p, t, r);
    break;
  case SYS_UNLINK:
    sys_unlink(p, t, r);
    break;
  case SYS_RENAME:
    sys_rename(p, t, r);
    break;
  case SYS_READDIR:
    sys_readdir(p, t, r);
    break;
  case SYS_REALPATH:
    if (!path_ino(p->mntns, r->s[0])) {
      ready(t, -ENOENT);
    } else {
      ready(t, 0);
      snprintf(t->reply.str, sizeof t->reply.str, "%s", r->s[0]);
    }
    break;
  case SYS_BIND:
    sys_bind(p, t, r);
    break;
  case SYS_PEERCRED:
    sys_peercred(p, t, r);
    break;
  case SYS_UNIX_LIST:
    sys_unix_list(p, t);
    break;
  case SYS_COMMAND:
    t->state = T_IDLE;
    break;
  case SYS_REPORT: {
    size_t bytes = (size_t)r->a[1] * sizeof(uint64_t);
    if (cfg.trace)
      fprintf(stderr, "  report pid %ld: status %lld, %lld values%s %s\n",
              p->pid, (long long)r->a[0], (long long)r->a[1],
              r->a[2] ? " (final)" : "", r->data + bytes);
    /* The IDs copied out: the request's bytes have no uint64_t alignment. */
    uint64_t ids[SIM_DATA_MAX / sizeof(uint64_t)];
    if (bytes) memcpy(ids, r->data, bytes);
    sim_model_report(p->pid, t->tid, r->a[0], r->a[3], ids, (size_t)r->a[1],
                     r->a[2] != 0, r->data + bytes, t->last_wall_ns);
    ready(t, 0);
    break;
  }
  case SYS_FORK:
    sys_fork(p, t);
    break;
  case SYS_HANDLER_DONE:
    t->in_handler = false;
    t->state = t->saved_state;
    t->reply = t->saved_reply;
    if (t->state == T_SLEEP && t->deadline <= mono_ns) ready(t, 0);
    break;
  case SYS_LEASE:
    ready(t, 0);
    leasedb_exec(p->pid, r, &t->reply);
    break;
  case SYS_PROC_TOKEN: {
    proc *q = proc_of(r->a[0]);
    ready(t, q && q->alive ? q->started : 0);
    break;
  }
  case SYS_EXIT:
    p->alive = false;
    reap(p);
    sim_model_ended(p->pid, SIM_END_EXIT);
    break;
  default:
    fail("kernel: unknown system call %d", r->op);
  }
}

/* Wakes sleepers and timed waits whose time has come. */
static void wake_due(void) {
  for (int i = 0; i < MAX_THREADS; i++) {
    thread *t = &threads[i];
    if (t->state == T_SLEEP && t->deadline <= mono_ns) ready(t, 0);
    if (t->state == T_COND && t->deadline <= mono_ns) lock_for(t, t->mkey);
  }
}

bool k_step(void) {
  if (failure[0]) return false;
  wake_due();
  int cand[MAX_THREADS], n = 0;
  for (int i = 0; i < MAX_THREADS; i++) {
    thread *t = &threads[i];
    if (t->state != T_READY) continue;
    proc *p = proc_of(t->pid);
    if (p && p->alive && p->paused_until <= real_ns) cand[n++] = i;
  }
  if (!n) {
    /* Move time on to the earliest sleeper, or a paused process's end. */
    int64_t next = INT64_MAX;
    for (int i = 0; i < MAX_PROCS; i++)
      if (procs[i].used && procs[i].alive && procs[i].paused_until > real_ns &&
          mono_ns + procs[i].paused_until - real_ns < next)
        next = mono_ns + procs[i].paused_until - real_ns;
    for (int i = 0; i < MAX_THREADS; i++)
      if ((threads[i].state == T_SLEEP || threads[i].state == T_COND) &&
          threads[i].deadline < next && k_alive(threads[i].pid))
        next = threads[i].deadline;
    if (next == INT64_MAX) return false;
    k_advance((next - mono_ns + 999) / 1000);
    return true;
  }
  thread *t = &threads[cand[k_rand((uint64_t)n)]];
  proc *p = proc_of(t->pid);
  steps++;
  tick_on();
  t->state = T_RUNNING;
  send_reply(p, &t->reply);
  static sim_request req;
  if (!receive(p, &req)) return false;
  thread *from = thread_of(req.tid);
  if (!from || from->pid != p->pid) {
    fail("kernel: a call from an unknown thread %d", req.tid);
    return false;
  }
  handle(p, from, &req);
  return true;
}

int k_stuck_threads(char *why, size_t cap) {
  int n = 0;
  for (int i = 0; i < MAX_THREADS; i++) {
    thread *t = &threads[i];
    if (t->state != T_MUTEX || !k_alive(t->pid)) continue;
    mutex *m = mutex_of(t->key, false);
    thread *o = m && m->owner > 0 ? thread_of(m->owner) : NULL;
    if (m && (m->owner < 0 || (o && o->state == T_EXITED))) {
      if (n == 0)
        snprintf(why, cap,
                 "thread %lld of process %ld waits for a lock "
                 "held by a thread that is gone",
                 (long long)t->tid, t->pid);
      n++;
    }
  }
  return n;
}

/* --- power cuts, attackers, inspection
 * ---------------------------------------- */

void k_reboot(void) {
  for (int i = 0; i < MAX_PROCS; i++)
    if (procs[i].used && procs[i].alive) {
      procs[i].alive = false;
      reap(&procs[i]);
      sim_model_ended(procs[i].pid, SIM_END_REBOOT);
    }
  for (int i = 0; i < MAX_NAMES; i++)
    names[i].used = false;
  for (int i = 0; i < MAX_MUTEXES; i++)
    mutexes[i].used = false;
  /* Folders: back to their synced entries; tmpfs empty. */
  for (int i = 0; i < MAX_DIRENTS; i++) {
    dirent *e = &dirents[i];
    if (!e->used) continue;
    if (inodes[e->dir].tmpfs) {
      e->used = false;
      continue;
    }
    e->ino = e->durable_ino;
  }
  for (int i = 1; i < MAX_INODES; i++) {
    inode *n = &inodes[i];
    if (!n->used || n->is_dir) continue;
    if (n->tmpfs) {
      n->nlink = 0;
      continue;
    }
    if (!n->synced) {
      /* Unsynced: the old contents, or the new torn at some byte. */
      if (k_rand(2) == 0 || n->len == 0) {
        free(n->data);
        n->data = malloc(n->durable_len + 1);
        memcpy(n->data, n->durable ? n->durable : "", n->durable_len);
        n->len = n->durable_len;
      } else {
        n->len = (size_t)k_rand(n->len);
      }
      n->synced = true;
    }
    n->lock_ofd = -1;
    n->nshared = 0;
    n->nlink = 0;
  }
  for (int i = 0; i < MAX_DIRENTS; i++)
    if (dirents[i].used && dirents[i].ino) inodes[dirents[i].ino].nlink++;
  for (int i = 1; i < MAX_INODES; i++)
    if (inodes[i].used && !inodes[i].is_dir) inode_gc(i);
  /* The monotonic clock starts again; the wall clock goes on (the RTC may
   * have drifted: the schedule steps it). */
  boot++;
  mono_ns = 5000000000LL + (int64_t)k_rand(1000000000);
}

int k_path_ino(long mntns, const char *path) {
  return path_ino(mntns, path);
}

uint64_t k_folder_identity(long mntns, const char *path) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (const char *c = path; *c; c++)
    h = (h ^ (unsigned char)*c) * 0x100000001b3;
  return shared_path(path)
             ? h
             : h ^ ((uint64_t)mntns * UINT64_C(0x9E3779B97F4A7C15));
}

static int file_at(long mntns, const char *dir, const char *name) {
  int d = path_ino(mntns, dir);
  dirent *e = d ? lookup(d, name) : NULL;
  return e ? e->ino : 0;
}

bool k_forge(long uid, long mntns, const char *dir, const char *name,
             const char *text, size_t len) {
  int d = path_ino(mntns, dir);
  if (!d) return false;
  dirent *e = lookup(d, name);
  int ino;
  if (e) {
    ino = e->ino;
    if (inodes[ino].uid != uid && uid != 0) return false;
  } else {
    ino = new_inode(false, uid, 0644, inodes[d].tmpfs);
    e = entry(d, name);
    e->ino = ino;
    inodes[ino].nlink = 1;
  }
  inodes[ino].len = 0;
  set_data(&inodes[ino], text, len, 0);
  return true;
}

size_t k_list(long mntns, const char *dir, char *buf, size_t cap) {
  int d = path_ino(mntns, dir);
  size_t at = 0;
  for (int i = 0; d && i < MAX_DIRENTS; i++) {
    if (!dirents[i].used || dirents[i].dir != d || !dirents[i].ino) continue;
    size_t k = strlen(dirents[i].name) + 1;
    if (at + k > cap) break;
    memcpy(buf + at, dirents[i].name, k);
    at += k;
  }
  return at;
}

size_t k_read(long mntns, const char *dir, const char *name, char *buf,
              size_t cap) {
  int ino = file_at(mntns, dir, name);
  if (!ino || !cap) return 0;
  size_t n = inodes[ino].len < cap - 1 ? inodes[ino].len : cap - 1;
  memcpy(buf, inodes[ino].data, n);
  buf[n] = '\0';
  return n;
}

/* --- life --------------------------------------------------------------------
 */

void k_init(const k_config *config) {
  cfg = *config;
  rng_state = cfg.seed;
  memset(procs, 0, sizeof procs);
  memset(threads, 0, sizeof threads);
  memset(ofds, 0, sizeof ofds);
  memset(dirents, 0, sizeof dirents);
  memset(names, 0, sizeof names);
  memset(paths, 0, sizeof paths);
  memset(mutexes, 0, sizeof mutexes);
  for (int i = 0; i < MAX_INODES; i++) {
    free(inodes[i].data);
    free(inodes[i].durable);
  }
  memset(inodes, 0, sizeof inodes);
  next_pid = 100;
  next_tid = 1000;
  next_shared_mutex = 0;
  programs = 0;
  failure[0] = '\0';
  steps = 0;
  trace_hash = UINT64_C(0xcbf29ce484222325);
  frozen = false;
  boot = 0;
  mono_ns = 5000000000LL + (int64_t)k_rand(1000000000);
  real_ns = 0;
  memset(host_offset_ns, 0, sizeof host_offset_ns);
  leasedb_reset();
  /* 2026-11-29, a random moment of the day. */
  wall_ns = (1795910400000LL + (int64_t)k_rand(86400000)) * 1000000;
  if (listen_fd < 0) {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    listen_fd =
        socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    snprintf(listen_name, sizeof listen_name, "sfc-sim-kernel/%d",
             (int)getpid());
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "%s", listen_name);
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                                 strlen(listen_name));
    if (bind(listen_fd, (struct sockaddr *)&addr, alen) != 0 ||
        listen(listen_fd, 16) != 0) {
      fprintf(stderr, "sim: cannot listen: %s\n", strerror(errno));
      exit(2);
    }
    setenv("SIM_KERNEL_SOCKET", listen_name, 1);
  }
  /* A connection a process of the last run left behind is not ours. */
  for (int fd; (fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0;)
    close(fd);
}

void k_shutdown(void) {
  for (int i = 0; i < MAX_PROCS; i++)
    if (procs[i].used) {
      end_real(procs[i].real);
      if (procs[i].sock >= 0) close(procs[i].sock);
      procs[i].sock = -1;
      procs[i].used = false;
    }
  while (waitpid(-1, NULL, 0) > 0) {
  }
}
