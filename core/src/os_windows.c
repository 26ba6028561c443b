/* The operating system layer for Windows (10 and later). */
#include "internal.h"

#if defined(_WIN32)

#include <bcrypt.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

/* 100 ns intervals from 1601-01-01 (FILETIME) to 1970-01-01. */
#define UNIX_EPOCH_100NS INT64_C(116444736000000000)

void sfc_os_wall(struct timespec *ts) {
  FILETIME ft;
  GetSystemTimePreciseAsFileTime(&ft);
  int64_t t =
      (int64_t)(((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime) -
      UNIX_EPOCH_100NS;
  ts->tv_sec = (time_t)(t / 10000000);
  ts->tv_nsec = (long)(t % 10000000) * 100;
}

/* Not yet: QueryPerformanceCounter's own source is not named. */
bool sfc_os_counter_trusted(const char *source) {
  (void)source;
  return false;
}

void sfc_os_monotonic(struct timespec *ts) {
  LARGE_INTEGER freq, count;
  QueryPerformanceFrequency(&freq);
  QueryPerformanceCounter(&count);
  ts->tv_sec = (time_t)(count.QuadPart / freq.QuadPart);
  ts->tv_nsec =
      (long)(count.QuadPart % freq.QuadPart * 1000000000 / freq.QuadPart);
}

/* The monotonic clock in microseconds, read here: the OS layer sits below
 * clock.c and calls nothing of it. */
static int64_t monotonic_us(void) {
  struct timespec ts;
  sfc_os_monotonic(&ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Sleep() counts whole milliseconds and may wake a scheduler tick late:
 * sleep while at least 2 ms are left, and leave the rest to the caller's
 * spin (sfc_pause spins the last 200 us). */
void sfc_os_sleep_until(int64_t deadline_us) {
  for (int64_t left; (left = deadline_us - monotonic_us()) >= 2000;)
    Sleep((DWORD)(left / 1000 - 1));
  for (int64_t left; (left = deadline_us - monotonic_us()) > 0;)
    SwitchToThread();
}

bool sfc_os_random(void *buf, size_t n) {
  return BCryptGenRandom(NULL, buf, (ULONG)n,
                         BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0;
}

uint64_t sfc_os_process_token(long pid) {
  (void)pid;
  return 0; /* no shared generators here */
}

long sfc_os_pid(void) {
  return (long)GetCurrentProcessId();
}

long long sfc_os_uid(void) {
  return -1; /* users are SIDs here: claims name pids only */
}

bool sfc_os_hostname(char *buf, size_t cap) {
  DWORD n = (DWORD)cap;
  return cap > 0 && GetComputerNameExA(ComputerNameDnsHostname, buf, &n);
}

void sfc_os_cond_init(sfc_cond *cond) {
  InitializeConditionVariable(cond);
}

void sfc_os_cond_wait_us(sfc_cond *cond, sfc_mutex *mutex, int64_t us) {
  SleepConditionVariableSRW(cond, mutex, (DWORD)((us + 999) / 1000), 0);
}

typedef struct start {
  void *(*fn)(void *);
  void *arg;
} start;

static DWORD WINAPI run_thread(LPVOID p) {
  start s = *(start *)p;
  free(p);
  s.fn(s.arg);
  return 0;
}

int sfc_thread_start(sfc_thread *t, void *(*fn)(void *), void *arg) {
  start *s = malloc(sizeof *s);
  if (!s) return ENOMEM;
  s->fn = fn;
  s->arg = arg;
  *t = CreateThread(NULL, 0, run_thread, s, 0, NULL);
  if (!*t) {
    free(s);
    return EAGAIN;
  }
  return 0;
}

void sfc_thread_join(sfc_thread t) {
  WaitForSingleObject(t, INFINITE);
  CloseHandle(t);
}

typedef struct once_call {
  void (*fn)(void);
} once_call;

static BOOL CALLBACK run_once(PINIT_ONCE flag, PVOID param, PVOID *context) {
  (void)flag;
  (void)context;
  ((once_call *)param)->fn();
  return TRUE;
}

void sfc_once(sfc_once_flag *flag, void (*fn)(void)) {
  once_call call = {fn};
  InitOnceExecuteOnce(flag, run_once, &call, NULL);
}

/* No fork on Windows: nothing to detect. */
void sfc_os_atfork(void (*prepare)(void), void (*parent)(void),
                   void (*child)(void)) {
  (void)prepare;
  (void)parent;
  (void)child;
}

void *sfc_os_aligned_alloc(size_t align, size_t size) {
  return _aligned_malloc(size, align);
}

void sfc_os_aligned_free(void *p) {
  _aligned_free(p);
}

#else
typedef int sfc_os_windows_unused; /* nothing to compile on this platform */
#endif
