/*
 * snowflake_c_ffm.h — the entry points Java 22+ calls by FFM downcalls
 * (java/src/main/java22/io/snowflakec/Calls.java), beside the JNI natives of
 * the same library. They take and return plain numbers and native memory
 * only; an error is kept for the calling thread, and the JNI native
 * Native.throwPending throws it.
 */
#ifndef SNOWFLAKE_C_FFM_H
#define SNOWFLAKE_C_FFM_H

#include <jni.h>
#include <stdint.h>

#include "snowflake_c.h"

/* What snowflakec_ffm_next answers when it failed (no ID, no wait):
 * SNOWFLAKEC_NEXT_FAILED of snowflake_c_next.h. */
#define SNOWFLAKEC_FFM_FAILED INT64_MIN

/* The next ID (>= 0), -1 - wait_us when the caller must wait and call
 * again, or SNOWFLAKEC_FFM_FAILED with the error kept for this thread.
 * `handle` is the generator's address (0 once closed), `now_us` a clock
 * reading or INT64_MIN for the generator's own clock. Never waits, never
 * calls back into Java. */
JNIEXPORT int64_t snowflakec_ffm_next(int64_t handle, int64_t now_us);

/* Fills dst[0, len) as Native.nextIds does: out[0] gets the count filled
 * and out[1] the wait asked for (or -1). Returns 0, or 1 with the error kept
 * for this thread (the IDs counted in out[0] stay valid). */
JNIEXPORT int32_t snowflakec_ffm_next_ids(int64_t handle, int64_t now_us,
                                          int64_t *dst, int32_t len,
                                          int64_t *out);

/* The error kept by the last failed entry on this thread. */
typedef struct snowflakec_ffm_error {
  sfc_error err;
  uint64_t unfit; /* non-zero: an ID above INT64_MAX, instead of err */
} snowflakec_ffm_error;

const snowflakec_ffm_error *snowflakec_ffm_pending(void);

#endif
