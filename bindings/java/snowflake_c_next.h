/*
 * snowflake_c_next.h — one next-ID call as the Java binding answers it,
 * shared by the JNI native Native.next (snowflake_c_jni.c) and the FFM entry
 * snowflakec_ffm_next (snowflake_c_ffm.c): the same logic in both, compiled
 * into each so that neither pays a call through the other.
 */
#ifndef SNOWFLAKE_C_NEXT_H
#define SNOWFLAKE_C_NEXT_H

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

#endif
