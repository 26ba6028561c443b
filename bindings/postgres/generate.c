/* next_id and next_ids: IDs of the server's shared generator. The core's
 * non-blocking entries say how long to wait when a tick's sequence has run
 * out or the clock stepped back a little; the wait happens here, so that a
 * cancelled query stops waiting. */
#include "snowflake_c_pg.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(sfc_pg_next_id);
PG_FUNCTION_INFO_V1(sfc_pg_next_ids);

/* Waits in slices, so that a long wait (rollback=wait with a large
 * max_wait) still answers a cancel within 10 ms. */
static void pause_for(int64_t wait_us) {
  CHECK_FOR_INTERRUPTS();
  sfc_pause(wait_us < 10000 ? wait_us : 10000);
}

Datum sfc_pg_next_id(PG_FUNCTION_ARGS) {
  sfc_generator *gen = sfc_pg_shared_generator();
  uint64_t id;
  int64_t wait_us;
  sfc_error err;
  sfc_status st;
  while ((st = sfc_next_now(gen, &id, &wait_us, &err)) == SFC_WAIT)
    pause_for(wait_us);
  if (st != SFC_OK) sfc_pg_raise(&err);
  PG_RETURN_INT64(sfc_pg_id_result(id));
}

/* The IDs, made on the first call, returned one per call. */
typedef struct batch {
  uint64_t *ids;
  size_t n;
  size_t next;
} batch;

static batch *make_batch(FunctionCallInfo fcinfo, MemoryContext mcxt) {
  sfc_generator *gen = sfc_pg_shared_generator();
  int32 n = PG_GETARG_INT32(0);
  batch *b;
  size_t filled = 0;
  if (n < 0)
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "next_ids: n must be 0 or more, not %d.", n);
  if ((Size)n > MaxAllocSize / sizeof(uint64_t))
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "next_ids: n must be at most %zu, not %d.",
                        (size_t)(MaxAllocSize / sizeof(uint64_t)), n);
  b = MemoryContextAllocZero(mcxt, sizeof *b);
  b->n = (size_t)n;
  b->ids = MemoryContextAlloc(mcxt, sizeof(uint64_t) * (b->n ? b->n : 1));
  while (filled < b->n) {
    size_t got = 0;
    int64_t wait_us;
    sfc_error err;
    sfc_status st = sfc_next_ids_now(gen, b->ids + filled, b->n - filled, &got,
                                     &wait_us, &err);
    filled += got;
    if (st == SFC_WAIT)
      pause_for(wait_us);
    else if (st != SFC_OK)
      sfc_pg_raise(&err);
  }
  return b;
}

Datum sfc_pg_next_ids(PG_FUNCTION_ARGS) {
  FuncCallContext *fctx;
  batch *b;
  if (SRF_IS_FIRSTCALL()) {
    fctx = SRF_FIRSTCALL_INIT();
    fctx->user_fctx = make_batch(fcinfo, fctx->multi_call_memory_ctx);
  }
  fctx = SRF_PERCALL_SETUP();
  b = fctx->user_fctx;
  if (b->next < b->n)
    SRF_RETURN_NEXT(fctx, Int64GetDatum(sfc_pg_id_result(b->ids[b->next++])));
  SRF_RETURN_DONE(fctx);
}
