/* What the claim's files share among themselves (claim.c, claim_records.c,
 * claim_text.c, claim_pattern.c); included by them only, after
 * internal.h. */
#ifndef SFC_CLAIM_PARTS_H
#define SFC_CLAIM_PARTS_H

/* claim_pattern.c — the integers a generator can issue. */
/* The length of a pattern's text, "<mask>.<value>": 16 hex digits each. */
#define SFC_PATTERN_HEX 33
/* A range name's: "<mask>.<value>.<lowest>". */
#define SFC_RANGE_HEX (SFC_PATTERN_HEX + 17)
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

/* claim_text.c — a hand-over record's text. */
#define SFC_RECORD_PREFIX "snowflake-c-" /* the records' file names */
typedef struct sfc_record {
  char spec[SFC_SPEC_MAX];
  long long epoch;
  unsigned shape[6]; /* time, clock, sequence: bits and shift each */
  long pid;
  bool open;
  uint64_t taking; /* its holder is taking it, at this rank; 0 settled */
  sfc_saved saved;
} sfc_record;
/* The record's text, padded with newlines to the claim's fixed size (a
 * write over the same blocks cannot fail for want of space); 0 when it
 * does not fit. */
SFC_INTERNAL size_t sfc_record_text(const sfc_claim *c,
                                    const struct sfc_generator *g,
                                    const sfc_saved *s, bool closed, char *buf,
                                    size_t cap);
/* Room for the longest record of the generator's layout. */
SFC_INTERNAL size_t sfc_record_size(const struct sfc_generator *g);
/* Parses a record's text (modified in place): NULL, or what is wrong. */
SFC_INTERNAL const char *sfc_record_parse(char *buf, size_t n, sfc_record *out);

/* claim_records.c — the hand-over records in their folder
 * (sfc_claim_write is claim.h's). */
/* Our record file, locked, and every record that can meet ours merged
 * into *handed; then renewed with what it hands on, as our own. *held
 * (and *who, c->other as far as known) when a live holder's record shows
 * that it can meet ours. */
SFC_INTERNAL sfc_status sfc_claim_records_open(sfc_claim *c,
                                               const struct sfc_generator *g,
                                               sfc_saved *handed, bool *held,
                                               sfc_holder *who, sfc_error *err);
/* Our record says "taking" (our rank) until its generator is whole, as the
 * claim's ranked name does: then it says settled, the rest as it was. */
SFC_INTERNAL sfc_status sfc_claim_records_settle(sfc_claim *c,
                                                 const struct sfc_generator *g,
                                                 sfc_error *err);
/* The layout of a live holder of `pattern` ("<mask>.<value>"), from its
 * record, for the refusal: "<spec> (epoch <ms>)"; "" when none says. */
SFC_INTERNAL void sfc_claim_holder_layout(const char *pattern, char *out,
                                          size_t cap);

#endif
