/* The claim on the integers: the bits every ID of a generator fixes (its
 * pattern), whether two patterns meet, and the range of integers a
 * generator can issue from now on.
 *
 * A generator fixes some bits of every ID it issues — its node fields, and
 * the zeros above its layout's top — and leaves the rest free (time,
 * clock, sequence); two generators can meet exactly when their fixed bits
 * agree wherever both fix one. The claim is that pattern: "<mask>.<value>",
 * 16 hex digits each. Epochs, time units, field names and roles, folders,
 * users and environments play no part, but for one fact of time: a
 * generator's integers grow with its clock, so from now on it can issue
 * only those from its tick of a day ago (the largest step back of the clock
 * it may ride out with a clock bump) up to its layout's largest; two whose
 * ranges do not overlap never meet. */
#include "internal.h"

#include "claim_parts.h"

#include <stdlib.h>
#include <string.h>

void sfc_pattern_of(const sfc_layout *l, uint64_t bits, uint64_t *mask,
                    uint64_t *value) {
  uint64_t m = l->total_bits >= 64 ? 0 : ~UINT64_C(0) << l->total_bits;
  for (unsigned i = 1; i < l->field_count; i++)
    if ((int)i != l->seq_index && (int)i != l->clock_index)
      m |= l->fields[i].max << l->fields[i].shift;
  *mask = m;
  *value = bits & m;
}

bool sfc_pattern_meets(uint64_t m1, uint64_t v1, uint64_t m2, uint64_t v2) {
  return ((v1 ^ v2) & m1 & m2) == 0;
}

/* Its top bits fixed at zero: the time field is first, so no node bit is
 * above it. */
uint64_t sfc_pattern_top(uint64_t mask) {
  unsigned zeros = 0;
  while (zeros < 64 && (mask >> (63 - zeros) & 1))
    zeros++;
  return zeros >= 64 ? 0 : UINT64_MAX >> zeros;
}

#define DAY_US INT64_C(86400000000)
uint64_t sfc_pattern_lowest(const sfc_layout *l) {
  const int64_t since = sfc_wall_us() - DAY_US - l->epoch_ms * 1000;
  if (since <= 0) return 0;
  uint64_t tick = (uint64_t)(since / l->unit_us);
  if (tick > l->fields[0].max) tick = l->fields[0].max;
  return tick << l->fields[0].shift;
}

bool sfc_pattern_overlap(uint64_t lo1, uint64_t hi1, uint64_t lo2,
                         uint64_t hi2) {
  return lo1 <= hi2 && lo2 <= hi1;
}

bool sfc_pattern_parse(const char *hex, uint64_t *mask, uint64_t *value,
                       uint64_t *lowest) {
  const size_t n = strlen(hex);
  if ((n != SFC_PATTERN_HEX && n != SFC_RANGE_HEX) ||
      strspn(hex, "0123456789abcdef") != 16 || hex[16] != '.' ||
      strspn(hex + 17, "0123456789abcdef") != 16 ||
      (n != SFC_PATTERN_HEX &&
       (hex[SFC_PATTERN_HEX] != '.' ||
        strspn(hex + SFC_PATTERN_HEX + 1, "0123456789abcdef") != 16)))
    return false;
  char m[17], v[17], w[17] = "0";
  memcpy(m, hex, 16);
  memcpy(v, hex + 17, 16);
  m[16] = v[16] = '\0';
  if (n != SFC_PATTERN_HEX) {
    memcpy(w, hex + SFC_PATTERN_HEX + 1, 16);
    w[16] = '\0';
  }
  *mask = strtoull(m, NULL, 16);
  *value = strtoull(v, NULL, 16);
  *lowest = strtoull(w, NULL, 16);
  return true;
}
