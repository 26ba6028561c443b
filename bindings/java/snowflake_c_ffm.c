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

/* IDs go through a buffer, so that none above INT64_MAX reaches dst. */
enum { FILL_CHUNK = 2048 };

int32_t snowflakec_ffm_next_ids(int64_t handle, int64_t now_us, int64_t *dst,
                                int32_t len, int64_t *out) {
  sfc_generator *gen = gen_of(handle);
  const int from_clock = now_us == INT64_MIN;
  uint64_t buf[FILL_CHUNK];
  size_t done = 0;
  const size_t total = len < 0 ? 0 : (size_t)len;
  int64_t wait_us = -1;
  sfc_error err;
  sfc_status st = SFC_OK;
  uint64_t unfit = 0;
  while (done < total) {
    size_t want = total - done < FILL_CHUNK ? total - done : FILL_CHUNK;
    size_t got = 0;
    st = from_clock
             ? sfc_next_ids_now(gen, buf, want, &got, &wait_us, &err)
             : sfc_next_ids_at(gen, now_us, buf, want, &got, &wait_us, &err);
    size_t fit = 0;
    while (fit < got && buf[fit] <= (uint64_t)INT64_MAX) {
      fit++;
    }
    memcpy(dst + done, buf, fit * sizeof buf[0]);
    done += fit;
    if (fit < got) {
      unfit = buf[fit];
      break;
    }
    if (st != SFC_OK) {
      break;
    }
  }
  out[0] = (int64_t)done;
  out[1] = st == SFC_WAIT ? (wait_us < 0 ? 0 : wait_us) : -1;
  if (unfit != 0 || (st != SFC_OK && st != SFC_WAIT)) {
    keep(&err, unfit);
    return 1;
  }
  return 0;
}
