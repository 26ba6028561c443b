/* The SFC_WAIT loop: the core says how long to wait, the host waits its
 * own way (letting other threads run), and the call asks again. */
#include <stdlib.h>

#include "snowflake_c_host.h"

static int64_t pause_us(int64_t wait_us) {
  return wait_us > SFK_MAX_PAUSE_US ? SFK_MAX_PAUSE_US : wait_us;
}

uint64_t *sfk_ids_alloc(size_t n, sfc_error *err) {
  uint64_t *ids;
  if (n > SFK_BATCH_MAX) {
    sfk_fail(err, SFC_INVALID_ARGUMENT,
             "a batch takes at most %zu IDs, asked for %zu; split it",
             SFK_BATCH_MAX, n);
    return NULL;
  }
  if (!(ids = (uint64_t *)malloc((n ? n : 1) * sizeof *ids)))
    sfk_fail(err, SFC_OUT_OF_MEMORY, "out of memory for a batch of %zu IDs", n);
  return ids;
}

sfc_status sfk_next_id(const sfk_host *h, sfc_generator *const *gen,
                       uint64_t *id, sfc_error *err) {
  int64_t wait_us = 0;
  sfc_status st;
  *id = 0;
  while ((st = sfc_next_now(*gen, id, &wait_us, err)) == SFC_WAIT)
    if (h->wait(h->ctx, pause_us(wait_us), err) != 0) return err->status;
  return st;
}

sfc_status sfk_next_ids(const sfk_host *h, sfc_generator *const *gen,
                        uint64_t *ids, size_t n, size_t *filled,
                        sfc_error *err) {
  *filled = 0;
  for (;;) {
    size_t got = 0;
    int64_t wait_us = 0;
    sfc_status st =
        sfc_next_ids_now(*gen, ids + *filled, n - *filled, &got, &wait_us, err);
    *filled += got;
    if (st != SFC_WAIT) return st;
    if (h->wait(h->ctx, pause_us(wait_us), err) != 0) return err->status;
  }
}
