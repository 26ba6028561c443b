/* The core's one place for what a compiler offers beyond ISO C11: GCC and
 * Clang's attributes and builtins, MSVC's keywords and intrinsics, each with
 * a plain C11 meaning for any other compiler. Everything else in the core
 * is standard C11 (checked with -std=c11 -pedantic-errors by tests/run),
 * with POSIX or Windows calls in the operating system's files only.
 * Included first, before any C library header, by internal.h. */
#ifndef SFC_COMPAT_H
#define SFC_COMPAT_H

/* MSVC: the C library's standard functions (getenv, strerror, sscanf) and
 * POSIX's strdup without the warnings that ask for Microsoft's own
 * variants; and no warning for the padding that the hot word's _Alignas(64)
 * asks for on purpose. */
#if defined(_MSC_VER)
#ifndef _CRT_SECURE_NO_WARNINGS
#define _CRT_SECURE_NO_WARNINGS
#endif
#ifndef _CRT_NONSTDC_NO_DEPRECATE
#define _CRT_NONSTDC_NO_DEPRECATE
#endif
#pragma warning(disable : 4324)
#endif

#include <stdbool.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define SFC_GNU_C 1
#else
#define SFC_GNU_C 0
#endif

/* Shared by the core's files, not exported from the shared library (ELF
 * and Mach-O visibility; a DLL exports only what it is told to). */
#if SFC_GNU_C
#define SFC_INTERNAL __attribute__((visibility("hidden")))
#else
#define SFC_INTERNAL
#endif

/* Branch weights for the hot path, and printf-style argument checking. */
#if SFC_GNU_C
#define SFC_LIKELY(x) __builtin_expect(!!(x), 1)
#define SFC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SFC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SFC_LIKELY(x) (x)
#define SFC_UNLIKELY(x) (x)
#define SFC_PRINTF(f, a)
#endif

/* A function inlined into its callers whatever the optimizer's budget (the
 * hot path's steps), and one never inlined (the cold path, kept out of
 * them): `static SFC_ALWAYS_INLINE int f(void)`. */
#if SFC_GNU_C
#define SFC_ALWAYS_INLINE inline __attribute__((always_inline))
#define SFC_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define SFC_ALWAYS_INLINE __forceinline
#define SFC_NOINLINE __declspec(noinline)
#else
#define SFC_ALWAYS_INLINE inline
#define SFC_NOINLINE
#endif

/* The CPU's spin-wait hint: a hyper-threaded sibling has the core
 * meanwhile, and leaving the loop costs no pipeline flush. Nothing where
 * there is none. The simulated host of tests/sim has its own. */
#if defined(SFC_SIM)
void sfc_sim_cpu_pause(void);
static inline void sfc_cpu_pause(void) {
  sfc_sim_cpu_pause();
}
#elif SFC_GNU_C && (defined(__x86_64__) || defined(__i386__))
static inline void sfc_cpu_pause(void) {
  __builtin_ia32_pause();
}
#elif SFC_GNU_C && defined(__aarch64__)
static inline void sfc_cpu_pause(void) {
  __asm__ __volatile__("yield");
}
#elif defined(_MSC_VER) &&                                                     \
    (defined(_M_X64) || defined(_M_IX86) || defined(_M_ARM64))
#include <intrin.h>
static inline void sfc_cpu_pause(void) {
#if defined(_M_ARM64)
  __yield();
#else
  _mm_pause();
#endif
}
#else
static inline void sfc_cpu_pause(void) {}
#endif

/* A point where the simulated host of tests/sim may run another thread:
 * between the core's steps on memory other threads share (the state word,
 * the marks), which no system call separates. Nothing elsewhere. */
#if defined(SFC_SIM)
void sfc_sim_step(void);
#define sfc_step() sfc_sim_step()
#else
#define sfc_step() ((void)0)
#endif

/* Spin-wait hints after a lost compare-and-swap on the state word (next.c,
 * and the published fast rule): about 2.5 us on a recent x86-64. The
 * simulated host needs only the one scheduling point. */
#if defined(SFC_SIM)
#define SFC_CONTENDED_PAUSES 1
#else
#define SFC_CONTENDED_PAUSES 256
#endif

/* The processor's own counter, read in user space without a fence (a few
 * cycles early is early, which only shortens a deadline): x86-64's time
 * stamp counter, arm64's virtual counter. SFC_HAVE_CPU_COUNTER 0 where
 * there is none; counter.c decides whether it may be trusted. */
#if defined(SFC_SIM)
#define SFC_HAVE_CPU_COUNTER 1
uint64_t sfc_sim_cpu_counter(void);
static inline uint64_t sfc_cpu_counter(void) {
  return sfc_sim_cpu_counter();
}
#elif SFC_GNU_C && defined(__x86_64__)
#define SFC_HAVE_CPU_COUNTER 1
static inline uint64_t sfc_cpu_counter(void) {
  return __builtin_ia32_rdtsc();
}
#elif SFC_GNU_C && defined(__aarch64__)
#define SFC_HAVE_CPU_COUNTER 1
static inline uint64_t sfc_cpu_counter(void) {
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
#else
#define SFC_HAVE_CPU_COUNTER 0
static inline uint64_t sfc_cpu_counter(void) {
  return 0;
}
#endif

/* WebAssembly: a function the host provides, an import of the module
 * "snowflake_c" (os_wasm.c's clocks and randomness). */
#if defined(__wasm__)
#define SFC_WASM_IMPORT(name)                                                  \
  __attribute__((import_module("snowflake_c"), import_name(name)))
#endif

/* a + b and a * b, exactly, in 64 bits: false (and *out untouched) when
 * the result does not fit in an int64_t, where a 128-bit type would have
 * been needed. */
static inline bool sfc_add_i64(int64_t a, int64_t b, int64_t *out) {
  if (b > 0 ? a > INT64_MAX - b : a < INT64_MIN - b) return false;
  *out = a + b;
  return true;
}

static inline bool sfc_mul_i64(int64_t a, int64_t b, int64_t *out) {
  if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
            : (b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a))
    return false;
  *out = a * b;
  return true;
}

#endif
