/* The operating system layer for WebAssembly: one thread, no processes, no
 * files. The host gives the clocks and the randomness as imports of the
 * module "snowflake_c" (the JavaScript loader: Date.now() and
 * performance.now() in µs, crypto.getRandomValues). No sleeping either: a
 * binding waits in its host's own idiom on the core's SFC_WAIT. */
#include "internal.h"

#if defined(__wasm__)

#include <errno.h>
#include <stdlib.h>

SFC_WASM_IMPORT("wall_us") int64_t sfc_wasm_wall_us(void);
SFC_WASM_IMPORT("monotonic_us") int64_t sfc_wasm_monotonic_us(void);
/* Fills buf[0..n) with random bytes; 1 when done, 0 when the host has none. */
SFC_WASM_IMPORT("random") int sfc_wasm_random(void *buf, size_t n);

static void to_timespec(int64_t us, struct timespec *ts) {
  int64_t s = us / 1000000, r = us % 1000000;
  if (r < 0) {
    s -= 1;
    r += 1000000;
  }
  ts->tv_sec = (time_t)s;
  ts->tv_nsec = (long)r * 1000;
}

void sfc_os_wall(struct timespec *ts) {
  to_timespec(sfc_wasm_wall_us(), ts);
}

void sfc_os_monotonic(struct timespec *ts) {
  to_timespec(sfc_wasm_monotonic_us(), ts);
}

/* Blocking an instance's only thread would freeze its host (and a host's
 * frozen clock would never reach the deadline): returns at once. */
void sfc_os_sleep_until(int64_t deadline_us) {
  (void)deadline_us;
}

bool sfc_os_random(void *buf, size_t n) {
  return sfc_wasm_random(buf, n) == 1;
}

/* One process: the instance. */
/* No processor counter reaches a module. */
bool sfc_os_counter_trusted(const char *source) {
  (void)source;
  return false;
}

uint64_t sfc_os_process_token(long pid) {
  (void)pid;
  return 0;
}

long sfc_os_pid(void) {
  return 1;
}

long long sfc_os_uid(void) {
  return -1;
}

/* No host name: node value 'host' is refused, saying so. */
bool sfc_os_hostname(char *buf, size_t cap) {
  (void)buf;
  (void)cap;
  return false;
}

/* No threads: a state_dir's keeper is never started (files_wasm.c refuses
 * the state_dir first). */
int sfc_thread_start(sfc_thread *t, void *(*fn)(void *), void *arg) {
  (void)t;
  (void)fn;
  (void)arg;
  return ENOSYS;
}

void sfc_thread_join(sfc_thread t) {
  (void)t;
}

void sfc_once(sfc_once_flag *flag, void (*fn)(void)) {
  if (*flag) return;
  *flag = 1;
  fn();
}

/* No fork. */
void sfc_os_atfork(void (*prepare)(void), void (*parent)(void),
                   void (*child)(void)) {
  (void)prepare;
  (void)parent;
  (void)child;
}

void *sfc_os_aligned_alloc(size_t align, size_t size) {
  return aligned_alloc(align, (size + align - 1) / align * align);
}

void sfc_os_aligned_free(void *p) {
  free(p);
}

void sfc_os_cond_init(sfc_cond *cond) {
  *cond = 0;
}

void sfc_os_cond_wait_us(sfc_cond *cond, sfc_mutex *mutex, int64_t us) {
  (void)cond;
  (void)mutex;
  (void)us;
}

#else
typedef int sfc_os_wasm_unused; /* nothing to compile on this platform */
#endif
