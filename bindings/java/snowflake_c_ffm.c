/*
 * snowflake_c_ffm.c — the FFM entry points of the Java binding (see
 * snowflake_c_ffm.h): the hot calls without a JNI transition. Types are
 * converted and errors kept, nothing else; the JNI glue throws them.
 */
#include "snowflake_c_ffm.h"

#include "snowflake_c_next.h"

#include <string.h>

/* The error of the last failed call on this thread: Java reads it at once,
 * on the same thread (Native.throwPending), before anything else runs. */
static _Thread_local snowflakec_ffm_error pending;

const snowflakec_ffm_error *snowflakec_ffm_pending(void) {
  return &pending;
}

static sfc_generator *gen_of(int64_t handle) {
  return (sfc_generator *)(intptr_t)handle;
}

/* Kept only on failure: a thread-local's address costs a call in a library
 * loaded at run time. */
static void keep(const sfc_error *err, uint64_t unfit) {
  if (unfit != 0) {
    pending.err.status = SFC_TIME_EXHAUSTED;
    pending.err.message[0] = '\0';
  } else {
    pending.err = *err;
  }
  pending.unfit = unfit;
}

int64_t snowflakec_ffm_next(int64_t handle, int64_t now_us) {
  sfc_error err;
  uint64_t unfit = 0;
  int64_t r = snowflakec_next(gen_of(handle), now_us, &err, &unfit);
  if (r == SNOWFLAKEC_NEXT_FAILED) {
    keep(&err, unfit);
  }
  return r;
}

static void copy_ids(void *dst, size_t at, const uint64_t *ids, size_t n) {
  memcpy((int64_t *)dst + at, ids, n * sizeof ids[0]);
}

int32_t snowflakec_ffm_next_ids(int64_t handle, int64_t now_us, int64_t *dst,
                                int32_t len, int64_t *out) {
  snowflakec_filled f;
  snowflakec_next_ids(gen_of(handle), now_us, len < 0 ? 0 : (size_t)len,
                      copy_ids, dst, &f);
  out[0] = (int64_t)f.done;
  out[1] = f.wait_us;
  if (f.failed) {
    keep(&f.err, f.unfit);
    return 1;
  }
  return 0;
}
