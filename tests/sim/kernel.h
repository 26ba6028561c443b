/* The simulated host's kernel: processes (real ones, driven one thread at a
 * time), threads, descriptors, files with crash semantics, abstract sockets
 * per network namespace, folders per mount namespace, users, clocks. Every
 * choice it makes comes from its seed. */
#ifndef SIM_KERNEL_H
#define SIM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

typedef struct k_config {
  uint64_t seed;
  bool counter_trusted; /* the host's clock runs on the CPU counter */
  bool claims_by_file;  /* the claim is a lock file (macOS, the BSDs) */
  bool trace;           /* print every system call */
  /* State folders that are one volume in every mount namespace. */
  const char *shared_paths[4];
} k_config;

/* What the kernel tells the model (model.c) as things happen. */
typedef struct k_proc_info {
  long pid, netns, mntns, uid;
} k_proc_info;

void k_init(const k_config *cfg);
/* Kills every process and frees everything. */
void k_shutdown(void);

/* A new process (a fresh program): its pid, or -1. */
long k_spawn(long netns, long mntns, long uid, const char *hostname);
bool k_alive(long pid);
/* Hands a command to an idle user thread of `pid`; false if none is idle. */
bool k_command(long pid, int64_t kind, int64_t slot, int64_t n, int64_t flag,
               const char *text);
/* Whether `pid` has a user thread waiting for a command. */
bool k_idle(long pid);
/* Runs one thread until its next system call; false when none can run and
 * no sleeper can be woken (time is moved on to the earliest sleeper). */
bool k_step(void);
/* Ends a process as SIGKILL does (any ending that runs no code of it). */
void k_kill(long pid);
/* execve: descriptors without close-on-exec survive, a fresh program runs
 * under the same pid. */
void k_exec(long pid);
/* Runs `handler` on a user thread of `pid` that sleeps in a wait (as a
 * binding's signal check between waits); false if none sleeps. */
bool k_signal(long pid, int64_t handler, int64_t slot);
/* The host's clocks. */
void k_clock_step(int64_t delta_us);
void k_clock_freeze(bool frozen);
void k_advance(int64_t us);
int64_t k_wall_ns(void);
int64_t k_mono_ns(void);
/* True time since the run began: no reboot starts it again. */
int64_t k_real_ns(void);
/* The wall clock of the processes of one network namespace (a host of
 * its own) stepped apart from the others'. */
void k_host_clock_step(long netns, int64_t delta_us);
/* A process not scheduled for `us` (SIGSTOP, a VM paused, a long GC). */
void k_pause(long pid, int64_t us);
/* A power cut: every process dies, tmpfs and sockets are gone, files keep
 * only what was synced (an unsynced write may be torn), the monotonic
 * clock starts again. */
void k_reboot(void);
/* Rewrites a record file an attacker (uid) can write: see kernel.c. */
bool k_forge(long uid, long mntns, const char *dir, const char *name,
             const char *text, size_t len);
/* Lists a folder's files of a mount namespace: name\0 … into buf. */
size_t k_list(long mntns, const char *dir, char *buf, size_t cap);
/* Reads a file's current contents. */
size_t k_read(long mntns, const char *dir, const char *name, char *buf,
              size_t cap);
/* Reboots so far. */
long k_boots(void);
/* A folder's inode in a mount namespace (0: none): its identity. */
int k_path_ino(long mntns, const char *path);
/* A state folder's identity: one volume wherever it is shared. */
uint64_t k_folder_identity(long mntns, const char *path);
/* A hash of every call and answer so far: the same seed, the same hash. */
uint64_t k_trace_hash(void);
/* The number of steps so far. */
uint64_t k_steps(void);
/* Why the run must stop (a process crashed for real, a deadlock), or
 * NULL. */
const char *k_failure(void);
/* Threads blocked on a lock whose holder is gone: a deadlock. */
int k_stuck_threads(char *why, size_t cap);

/* The kernel's random numbers (the seed's): 0..n-1. */
uint64_t k_rand(uint64_t n);

#endif
