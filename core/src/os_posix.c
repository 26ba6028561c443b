/* The operating system layer for Linux (glibc from 2.17, musl) and macOS. */
#include "internal.h"

#if !defined(_WIN32) && !defined(__wasm__) && !defined(SFC_SIM)

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/syscall.h>
#endif
#if defined(__APPLE__)
#include <sys/random.h>
#endif

/* The monotonic clock in microseconds, read here: the OS layer sits below
 * clock.c and calls nothing of it. */
static int64_t monotonic_us(void) {
  struct timespec ts;
  sfc_os_monotonic(&ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void sfc_os_sleep_until(int64_t deadline_us) {
#if defined(__APPLE__)
  /* No clock_nanosleep: sleep what is left, again after each signal. */
  for (int64_t left; (left = deadline_us - monotonic_us()) > 0;) {
    struct timespec ts = {(time_t)(left / 1000000),
                          (long)(left % 1000000) * 1000};
    nanosleep(&ts, NULL);
  }
#else
  struct timespec ts = {(time_t)(deadline_us / 1000000),
                        (long)(deadline_us % 1000000) * 1000};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
#endif
}

/* /dev/urandom, for systems or sandboxes without the calls below. */
static bool read_urandom(void *buf, size_t n) {
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < n) {
    ssize_t k = read(fd, (char *)buf + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    done += (size_t)k;
  }
  close(fd);
  return done == n;
}

bool sfc_os_random(void *buf, size_t n) {
#if defined(__APPLE__)
  if (n <= 256 && getentropy(buf, n) == 0) return true;
#elif defined(__linux__) && defined(SYS_getrandom)
  /* The system call itself: glibc has a wrapper only from 2.25. Non-blocking
   * (1 = GRND_NONBLOCK): early in boot, /dev/urandom below is enough. */
  if (syscall(SYS_getrandom, buf, n, 1) == (long)n) return true;
#endif
  return read_urandom(buf, n);
}

/* Linux names the clock's source in sysfs; the kernel moves off the
 * counter by itself when it finds it unsteady (its watchdog) or unlike
 * across processors. macOS: not yet trusted. */
bool sfc_os_counter_trusted(const char *source) {
#if defined(__linux__) && SFC_HAVE_CPU_COUNTER
#if defined(__x86_64__)
  static const char want[] = "tsc\n";
#else
  static const char want[] = "arch_sys_counter\n";
#endif
  if (!source)
    source = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
  int fd = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  char buf[64];
  ssize_t n;
  do
    n = read(fd, buf, sizeof buf);
  while (n < 0 && errno == EINTR);
  close(fd);
  return n == (ssize_t)sizeof want - 1 && memcmp(buf, want, (size_t)n) == 0;
#else
  (void)source;
  return false;
#endif
}

long sfc_os_pid(void) {
  return (long)getpid();
}

uint64_t sfc_os_process_token(long pid) {
#if defined(__linux__)
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  /* Field 22, the start time, counted after the command's closing
   * parenthesis (the command may hold spaces). */
  char *p = strrchr(buf, ')');
  if (!p) return 0;
  unsigned long long start = 0;
  for (int field = 2; p && field < 22; field++)
    p = strchr(p + 1, ' ');
  if (!p || sscanf(p + 1, "%llu", &start) != 1) return 0;
  return start + 1;
#else
  /* Alive, as kill(2) tells; no start time to tell a reused pid by. */
  return kill((pid_t)pid, 0) == 0 || errno == EPERM ? 1 : 0;
#endif
}

long long sfc_os_uid(void) {
  return (long long)geteuid();
}

bool sfc_os_hostname(char *buf, size_t cap) {
  if (cap == 0 || gethostname(buf, cap - 1) != 0) return false;
  buf[cap - 1] = '\0';
  return true;
}

int sfc_thread_start(sfc_thread *t, void *(*fn)(void *), void *arg) {
  return pthread_create(t, NULL, fn, arg);
}

void sfc_thread_join(sfc_thread t) {
  pthread_join(t, NULL);
}

void sfc_once(sfc_once_flag *flag, void (*fn)(void)) {
  pthread_once(flag, fn);
}

bool sfc_mutex_init_shared(sfc_mutex *m) {
  pthread_mutexattr_t a;
  if (pthread_mutexattr_init(&a) != 0) return false;
  bool ok = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0;
#if !defined(__APPLE__)
  /* Where the kernel keeps no robust list (musl asks it first), the lock
   * is made as on macOS. */
  (void)pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
#endif
  ok = ok && pthread_mutex_init(m, &a) == 0;
  pthread_mutexattr_destroy(&a);
  return ok;
}

void sfc_mutex_locked_orphan(sfc_mutex *m, int error) {
#if !defined(__APPLE__)
  if (error == EOWNERDEAD) pthread_mutex_consistent(m);
#else
  (void)m;
  (void)error;
#endif
}

void sfc_os_atfork(void (*prepare)(void), void (*parent)(void),
                   void (*child)(void)) {
  pthread_atfork(prepare, parent, child);
}

void *sfc_os_aligned_alloc(size_t align, size_t size) {
  return aligned_alloc(align, (size + align - 1) / align * align);
}

void sfc_os_aligned_free(void *p) {
  free(p);
}

void sfc_os_cond_init(sfc_cond *cond) {
#if defined(__APPLE__)
  pthread_cond_init(cond, NULL); /* waits are relative there */
#else
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(cond, &attr);
  pthread_condattr_destroy(&attr);
#endif
}

void sfc_os_cond_wait_us(sfc_cond *cond, sfc_mutex *mutex, int64_t us) {
#if defined(__APPLE__)
  struct timespec rel = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  pthread_cond_timedwait_relative_np(cond, mutex, &rel);
#else
  int64_t at = monotonic_us() + us;
  struct timespec ts = {(time_t)(at / 1000000), (long)(at % 1000000) * 1000};
  pthread_cond_timedwait(cond, mutex, &ts);
#endif
}

#else
typedef int sfc_os_posix_unused; /* nothing to compile on this platform */
#endif
