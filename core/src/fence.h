/* A leased node value's fence (fence.c, lease.c): the bound that the
 * lease puts on the IDs a generator may issue; included by internal.h
 * only. */
#ifndef SFC_FENCE_H
#define SFC_FENCE_H

struct sfc_generator;

/* Under g->lock, but `limit` is read by the mark's update. */
typedef struct sfc_fence {
  bool on;             /* the node value is leased */
  bool lost;           /* another holder took it: stopped for good */
  int64_t horizon;     /* tick: no ID past it (the row's, written ahead) */
  int64_t deadline_us; /* monotonic: no ID from then on */
  /* The lower of the horizon and the deadline's image on the generator's
   * clock, in ticks; -1: none may be issued. Joins the mark, so that the
   * hot path compares once for both. */
  int64_t limit;
  _Atomic bool wanted; /* a call reached the horizon: renew early */
} sfc_fence;

/* What a lease hands the generator it creates. */
typedef struct sfc_lease_start {
  uint64_t value;  /* the node value leased */
  int64_t after;   /* the previous holder's horizon: start past it */
  int64_t horizon; /* ours, and our deadline */
  int64_t deadline_us;
} sfc_lease_start;

/* generator.c: sfc_generator_new with the lease's value and start. */
SFC_INTERNAL sfc_status sfc_generator_new_leased(const sfc_layout *layout,
                                                 const sfc_options *opts,
                                                 const sfc_lease_start *lease,
                                                 struct sfc_generator **out,
                                                 sfc_error *err);

/* fence.c: a renewal moved the horizon and the deadline (under g->lock). */
SFC_INTERNAL void sfc_fence_set(struct sfc_generator *g, int64_t horizon,
                                int64_t deadline_us);
/* The value was taken by another holder: no ID ever again. */
SFC_INTERNAL void sfc_fence_lose(struct sfc_generator *g);
/* A live call needs `tick`, past the fence's limit (under g->lock):
 * SFC_RETRY when the deadline's image allows it after all, SFC_WAIT while
 * a renewal may still move the horizon, or SFC_LEASE_EXPIRED. */
SFC_INTERNAL sfc_status sfc_fence_reached(struct sfc_generator *g, int64_t tick,
                                          int64_t *wait_us, sfc_error *err);

#endif
