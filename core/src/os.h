/* The operating system behind one small interface: clocks, waits,
 * randomness, the process id, the host name and the keeper's timed wake-up.
 * os_posix.c implements it for Linux (glibc from 2.17, musl) and macOS; the
 * rest of the core has no #ifdef for these. (The state folder's files use
 * the POSIX *at() calls directly, in state.c.) */
#ifndef SFC_OS_H
#define SFC_OS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The hot path's one clock read, inlined: a vDSO call on Linux. */
static inline void sfc_os_wall(struct timespec *ts) {
  clock_gettime(CLOCK_REALTIME, ts);
}
static inline void sfc_os_monotonic(struct timespec *ts) {
  clock_gettime(CLOCK_MONOTONIC, ts);
}

/* Sleeps until the monotonic clock reads `deadline_us`: a signal that
 * interrupts the sleep cannot stretch it. */
SFC_INTERNAL void sfc_os_sleep_until(int64_t deadline_us);
/* Fills buf from the system's random source; false if there is none. */
SFC_INTERNAL bool sfc_os_random(void *buf, size_t n);
SFC_INTERNAL long sfc_os_pid(void);
/* The host name, NUL-terminated; false if it cannot be read. */
SFC_INTERNAL bool sfc_os_hostname(char *buf, size_t cap);
/* A condition variable whose timed waits follow the monotonic clock, so
 * that a wall-clock step neither stalls nor hurries the keeper. */
SFC_INTERNAL void sfc_os_cond_init(pthread_cond_t *cond);
SFC_INTERNAL void sfc_os_cond_wait_us(pthread_cond_t *cond,
                                      pthread_mutex_t *mutex, int64_t us);

#endif
