/* The encodings as data (sfc_encoding_at), which bindings format and parse
 * by: each row against the alphabets as documented, every byte's value
 * against an independent rule, and the table driving a formatter and a
 * parser of this test's own that must agree with sfc_id_format and
 * sfc_id_parse. */
#include "check.h"

#include <ctype.h>

static const char *const NAMES[SFC_ENCODING_COUNT] = {
    "dec", "hex", "base32", "base36", "base58", "base62"};
static const char *const DIGITS[SFC_ENCODING_COUNT] = {
    "0123456789",
    "0123456789abcdef",
    "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
    "0123456789abcdefghijklmnopqrstuvwxyz",
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"};
static const unsigned WIDTH[SFC_ENCODING_COUNT] = {20, 16, 13, 13, 11, 11};
/* hex, base32 and base36 are read in any case. */
static const int ANY_CASE[SFC_ENCODING_COUNT] = {0, 1, 1, 1, 0, 0};

static uint64_t rng_state = UINT64_C(0x2545f4914f6cdd1d);
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* A byte's digit by the documented rule, or -1. */
static int expected_value(int e, int b) {
  const char *digits = DIGITS[e];
  for (int d = 0; digits[d]; d++) {
    if (digits[d] == b) return d;
    if (ANY_CASE[e] && tolower((unsigned char)digits[d]) == tolower(b))
      return d;
  }
  if (e == SFC_ENCODING_BASE32) { /* Crockford's aliases */
    if (b == 'I' || b == 'i' || b == 'L' || b == 'l') return 1;
    if (b == 'O' || b == 'o') return 0;
  }
  return -1;
}

static void test_rows(void) {
  for (int e = 0; e < SFC_ENCODING_COUNT; e++) {
    const sfc_encoding_info *row = sfc_encoding_at((size_t)e);
    CHECK(row != NULL, "row %d", e);
    if (!row) continue;
    CHECK(row->encoding == (sfc_encoding)e, "row %d is its encoding", e);
    CHECK(strcmp(row->name, NAMES[e]) == 0, "name %s", row->name);
    CHECK(row->name == sfc_encoding_name((sfc_encoding)e),
          "the same name as sfc_encoding_name for %s", NAMES[e]);
    CHECK(strcmp(row->digits, DIGITS[e]) == 0, "digits of %s", NAMES[e]);
    CHECK(row->radix == strlen(DIGITS[e]), "radix of %s", NAMES[e]);
    CHECK(row->width == WIDTH[e], "width of %s", NAMES[e]);
    /* Every encoding but dec formats at its fixed width by default. */
    CHECK(row->fixed_by_default == (e != SFC_ENCODING_DEC),
          "fixed_by_default of %s", NAMES[e]);
    /* The fixed width is the fewest digits that hold 2^64 - 1. */
    unsigned need = 0;
    for (uint64_t v = UINT64_MAX; v; v /= row->radix)
      need++;
    CHECK(row->width == need, "%s needs %u digits", NAMES[e], need);
    int valid = 0;
    for (int b = 0; b < 256; b++) {
      int want = expected_value(e, b);
      CHECK(row->values[b] == want, "%s: byte %d is %d, want %d", NAMES[e], b,
            row->values[b], want);
      valid += want >= 0;
    }
    for (unsigned d = 0; d < row->radix; d++)
      CHECK(row->values[(unsigned char)row->digits[d]] == (int)d,
            "%s: digit %u reads back", NAMES[e], d);
    CHECK(valid >= (int)row->radix, "%s: %d valid bytes", NAMES[e], valid);
  }
  CHECK(sfc_encoding_at(SFC_ENCODING_COUNT) == NULL, "past the last");
  CHECK(sfc_encoding_at((size_t)-1) == NULL, "far past the last");
}

/* Formats by the table alone, as a binding does. */
static size_t table_format(const sfc_encoding_info *row, uint64_t id,
                           int shortest, char *out) {
  char tmp[80];
  size_t n = 0;
  do {
    tmp[n++] = row->digits[id % row->radix];
    id /= row->radix;
  } while (id);
  while (!shortest && n < row->width)
    tmp[n++] = row->digits[0];
  for (size_t i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  out[n] = '\0';
  return n;
}

/* Parses by the table alone; 0 for text the core must refuse. */
static int table_parse(const sfc_encoding_info *row, const char *text,
                       size_t len, uint64_t *id) {
  if (len == 0 || len > row->width) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    int d = row->values[(unsigned char)text[i]];
    if (d < 0) return 0;
    if (v > (UINT64_MAX - (unsigned)d) / row->radix) return 0;
    v = v * row->radix + (unsigned)d;
  }
  *id = v;
  return 1;
}

/* IDs at every digit count's edges, and random ones. */
static uint64_t sample(const sfc_encoding_info *row, int i) {
  static const uint64_t fixed[] = {0, 1, INT64_MAX, (uint64_t)INT64_MAX + 1,
                                   UINT64_MAX};
  int nf = (int)(sizeof fixed / sizeof fixed[0]);
  if (i < nf) return fixed[i];
  i -= nf;
  if (i < 2 * (int)row->width) { /* radix^k - 1 and radix^k */
    uint64_t p = 1;
    for (int k = 0; k < i / 2 + 1 && p <= UINT64_MAX / row->radix; k++)
      p *= row->radix;
    return i % 2 ? p : p - 1;
  }
  return rng() >> (rng() % 64);
}

static void test_agrees_with_core(void) {
  sfc_error err;
  for (int e = 0; e < SFC_ENCODING_COUNT; e++) {
    const sfc_encoding_info *row = sfc_encoding_at((size_t)e);
    for (int i = 0; i < 20000; i++) {
      uint64_t id = sample(row, i);
      /* The default (no flag) by the row's fixed_by_default, the fixed
       * width and the shortest form. */
      static const unsigned FLAGS[] = {0, SFC_FORMAT_FIXED,
                                       SFC_FORMAT_SHORTEST};
      for (int f = 0; f < 3; f++) {
        int shortest =
            FLAGS[f] ? FLAGS[f] == SFC_FORMAT_SHORTEST : !row->fixed_by_default;
        char ours[80], core[SFC_ENCODED_MAX];
        size_t n = table_format(row, id, shortest, ours);
        size_t m =
            sfc_id_format(id, (sfc_encoding)e, FLAGS[f], core, sizeof core);
        CHECK(n == m && strcmp(ours, core) == 0, "%s format %llu: %s vs %s",
              row->name, (unsigned long long)id, ours, core);
      }
    }
    /* Random texts of the alphabet's bytes and a few others: both read
     * them the same, or both refuse. */
    for (int i = 0; i < 20000; i++) {
      char text[24];
      size_t len = (size_t)(rng() % (row->width + 2));
      for (size_t k = 0; k < len; k++) {
        uint64_t r = rng();
        text[k] = r % 50 ? row->digits[(r >> 8) % row->radix]
                         : (char)((r >> 8) % 256);
      }
      uint64_t ours = 0, core = 0;
      int ok = table_parse(row, text, len, &ours);
      sfc_status st = sfc_id_parse(text, len, (sfc_encoding)e, &core, &err);
      CHECK(ok == (st == SFC_OK), "%s parse of %zu bytes: table %d, core %d",
            row->name, len, ok, (int)st);
      CHECK(!ok || ours == core, "%s parse: same ID", row->name);
    }
  }
}

int main(void) {
  test_rows();
  test_agrees_with_core();
  return check_summary();
}
