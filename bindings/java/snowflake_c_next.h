/*
 * snowflake_c_next.h — one next-ID call, and one batch, as the Java binding
 * answers them, shared by the JNI natives Native.next and Native.nextIds
 * (snowflake_c_jni.c) and the FFM entries (snowflake_c_ffm.c): the same logic
 * in both, compiled into each so that neither pays a call through the other.
 */
#ifndef SNOWFLAKE_C_NEXT_H
#define SNOWFLAKE_C_NEXT_H

#include <stddef.h>
#include <stdint.h>

#include "snowflake_c.h"

/* What snowflakec_next answers when it failed (no ID, no wait). */
#define SNOWFLAKEC_NEXT_FAILED INT64_MIN

/* The next ID (>= 0), -1 - wait_us when the caller must wait and call
 * again, or SNOWFLAKEC_NEXT_FAILED with *err filled, or with *unfit set to
 * an ID above INT64_MAX (Java IDs are positive longs; *unfit stays 0
 * otherwise). `now_us` is a clock reading, or INT64_MIN for the generator's
 * own clock: the live entry reads the clock after the state word, so that a
 * thread preempted in between never mistakes its stale reading for a
 * rollback. Never waits. */
static inline int64_t snowflakec_next(sfc_generator *gen, int64_t now_us,
                                      sfc_error *err, uint64_t *unfit) {
  uint64_t id = 0;
  int64_t wait_us = 0;
  sfc_status st = now_us == INT64_MIN
                      ? sfc_next_now(gen, &id, &wait_us, err)
                      : sfc_next_at(gen, now_us, &id, &wait_us, err);
  if (st == SFC_OK) {
    if (id > (uint64_t)INT64_MAX) {
      *unfit = id;
      return SNOWFLAKEC_NEXT_FAILED;
    }
    return (int64_t)id;
  }
  if (st == SFC_WAIT) {
    return -1 - (wait_us < 0 ? 0 : wait_us);
  }
  return SNOWFLAKEC_NEXT_FAILED;
}

/* What snowflakec_next_ids filled: `done` IDs, `wait_us` the wait the core
 * asked for (-1 when none), and `failed` with *err, or *unfit as in
 * snowflakec_next. */
typedef struct snowflakec_filled {
  size_t done;
  int64_t wait_us;
  int failed;
  sfc_error err;
  uint64_t unfit;
} snowflakec_filled;

/* IDs are issued into a buffer and handed to `put` chunk by chunk, so that
 * none above INT64_MAX reaches the caller's array (and JNI copies region by
 * region: a critical section on the array may hand out a copy, as under
 * -Xcheck:jni, whose write-back would overwrite what other threads wrote
 * meanwhile into other parts of it). */
enum { SNOWFLAKEC_FILL_CHUNK = 2048 };

typedef void (*snowflakec_put)(void *ctx, size_t at, const uint64_t *ids,
                               size_t n);

/* Issues `total` IDs (fewer on a wait or an error) to put(ctx, at, ...);
 * `now_us` as for snowflakec_next. */
static inline void snowflakec_next_ids(sfc_generator *gen, int64_t now_us,
                                       size_t total, snowflakec_put put,
                                       void *ctx, snowflakec_filled *f) {
  uint64_t buf[SNOWFLAKEC_FILL_CHUNK];
  int64_t wait_us = -1;
  sfc_status st = SFC_OK;
  f->done = 0;
  f->unfit = 0;
  while (f->done < total) {
    size_t want = total - f->done < SNOWFLAKEC_FILL_CHUNK
                      ? total - f->done
                      : SNOWFLAKEC_FILL_CHUNK;
    size_t got = 0;
    st = now_us == INT64_MIN
             ? sfc_next_ids_now(gen, buf, want, &got, &wait_us, &f->err)
             : sfc_next_ids_at(gen, now_us, buf, want, &got, &wait_us, &f->err);
    size_t fit = 0;
    while (fit < got && buf[fit] <= (uint64_t)INT64_MAX) {
      fit++;
    }
    put(ctx, f->done, buf, fit);
    f->done += fit;
    if (fit < got) {
      f->unfit = buf[fit];
      break;
    }
    if (st != SFC_OK) {
      break;
    }
  }
  f->wait_us = st == SFC_WAIT ? (wait_us < 0 ? 0 : wait_us) : -1;
  f->failed = f->unfit != 0 || (st != SFC_OK && st != SFC_WAIT);
}

#endif
