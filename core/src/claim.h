/* The host-wide claim's part of the core's shared declarations (claim.c,
 * claim_records.c, guard.c); included by internal.h only. What the claim's
 * files share among themselves alone is claim_parts.h. */
#ifndef SFC_CLAIM_H
#define SFC_CLAIM_H

/* claim.c — the host-wide claim of the integers a generator can issue;
 * claim_records.c — its hand-over record, written ahead. */
#define SFC_RECORD_MAX 8192
typedef struct sfc_claim {
  sfc_fd name;          /* the held name (claim_os_*.c), or SFC_NO_FD */
  sfc_fd record;        /* our hand-over record, locked while held */
  sfc_fd record_write;  /* a shared generator's: the same file unlocked,
                           which its processes write through */
  sfc_fd range;         /* the name that tells our range to others' scans */
  sfc_fd ranked;        /* until settled: that name with our rank after it */
  uint64_t rank;        /* the rank in `ranked` */
  sfc_dir records;      /* the host-wide folder of records */
  uint64_t mask, value; /* the bits every ID fixes: the pattern */
  uint64_t lowest;      /* the lowest integer it may issue from now on */
  uint64_t taking;      /* while it is being taken: a random rank, else 0 */
  bool contested;       /* refused by one still taking, ranked before us */
  long refuser;         /* last refusal's pid: -1 unnamed, 0 none */
  size_t size;          /* the record's fixed size */
  char hex[34];         /* "<mask>.<value>": the name */
  char where[160];      /* what the name is, for stats and messages */
  char other[160];      /* a refusal's other generator, as far as known */
  char user[SFC_TAG_MAX];
  char layout_id[17]; /* the layout's and epoch's hash */
  char record_name[112];
  char records_path[64];
} sfc_claim;

struct sfc_generator;
SFC_INTERNAL void sfc_claim_init(sfc_claim *c);
SFC_INTERNAL bool sfc_claim_held(const sfc_claim *c);
/* Takes the claim of `g`'s integers with node bits `bits`. SFC_OK: taken,
 * every record that can meet it merged into *handed; or SFC_OK and *held,
 * *who as far as known (sfc_claim_refuse says so); or SFC_STATE_ERROR. */
SFC_INTERNAL sfc_status sfc_claim_take(sfc_claim *c,
                                       const struct sfc_generator *g,
                                       uint64_t bits, sfc_saved *handed,
                                       bool *held, sfc_holder *who,
                                       sfc_error *err);
/* The claim taken is settled once its generator is whole: others' scans
 * see the range alone, and its record says settled (a refusal for good),
 * rather than a rank (one still taking, which may yet fail and let go:
 * they look again). */
SFC_INTERNAL sfc_status sfc_claim_settle(sfc_claim *c,
                                         const struct sfc_generator *g,
                                         sfc_error *err);
/* claim_records.c: writes the record: open (how far the holder may issue) or
 * closed (what it issued). */
SFC_INTERNAL sfc_status sfc_claim_write(sfc_claim *c,
                                        const struct sfc_generator *g,
                                        const sfc_saved *s, bool closed,
                                        sfc_error *err);
/* The refusal of a value held elsewhere: SFC_WORKER_UNAVAILABLE naming the
 * holder. */
SFC_INTERNAL sfc_status sfc_claim_refuse(const sfc_claim *c,
                                         const struct sfc_generator *g,
                                         sfc_holder *who, sfc_error *err);
/* Lets go; first writes `last` (what was issued) as the closed record.
 * NULL: the record written ahead stands. */
SFC_INTERNAL void sfc_claim_release(sfc_claim *c, const struct sfc_generator *g,
                                    const sfc_saved *last);
/* In a forked child: closes its copies of the claim's descriptors and
 * removes nothing (the parent holds the claim still, or let go itself). */
SFC_INTERNAL void sfc_claim_drop(sfc_claim *c);
/* In a forked process of a shared generator: closes its copies of what
 * holds the claim, leaving the struct (shared memory) as it is. */
SFC_INTERNAL void sfc_claim_drop_copies(const sfc_claim *c);

#endif
