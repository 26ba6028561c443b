/* What the claim's files share among themselves (claim.c, claim_pattern.c);
 * included by them only, after internal.h. */
#ifndef SFC_CLAIM_PARTS_H
#define SFC_CLAIM_PARTS_H

/* claim_pattern.c — the integers a generator can issue. */
/* The bits every ID of the layout fixes, given its node bits. */
SFC_INTERNAL void sfc_pattern_of(const sfc_layout *l, uint64_t bits,
                                 uint64_t *mask, uint64_t *value);
/* Two patterns fix no bit differently: some integer fits both. */
SFC_INTERNAL bool sfc_pattern_meets(uint64_t m1, uint64_t v1, uint64_t m2,
                                    uint64_t v2);
/* The largest integer a pattern allows. */
SFC_INTERNAL uint64_t sfc_pattern_top(uint64_t mask);
/* The lowest integer the layout can issue from now on: its tick of a day
 * ago, the sequence and the rest at zero. */
SFC_INTERNAL uint64_t sfc_pattern_lowest(const sfc_layout *l);
/* Two ranges of integers, ends included, share one. */
SFC_INTERNAL bool sfc_pattern_overlap(uint64_t lo1, uint64_t hi1, uint64_t lo2,
                                      uint64_t hi2);
/* "<mask>.<value>" or "<mask>.<value>.<lowest>": 16 hex digits each;
 * false when `hex` is neither. */
SFC_INTERNAL bool sfc_pattern_parse(const char *hex, uint64_t *mask,
                                    uint64_t *value, uint64_t *lowest);

#endif
