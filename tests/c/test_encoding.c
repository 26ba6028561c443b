/* The string forms: names, formatting and parsing against a slow reference,
 * every error, and the order of the fixed strings of a million generated
 * IDs (bytewise order must be the IDs' order, in every encoding). */
#include "check.h"

static const char *const NAMES[SFC_ENCODING_COUNT] = {
    "dec", "hex", "base32", "base36", "base58", "base62"};
static const char *const DIGITS[SFC_ENCODING_COUNT] = {
    "0123456789",
    "0123456789abcdef",
    "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
    "0123456789abcdefghijklmnopqrstuvwxyz",
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"};
static const size_t WIDTH[SFC_ENCODING_COUNT] = {20, 16, 13, 13, 11, 11};

/* The reference: the digits of `id` by repeated division, the slow way. */
static void reference(uint64_t id, int e, int shortest, char *out) {
  size_t base = strlen(DIGITS[e]);
  char tmp[80];
  size_t n = 0;
  do {
    tmp[n++] = DIGITS[e][id % base];
    id /= base;
  } while (id);
  while (!shortest && n < WIDTH[e])
    tmp[n++] = DIGITS[e][0];
  for (size_t i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  out[n] = '\0';
}

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void test_names(void) {
  sfc_error err;
  for (int e = 0; e < SFC_ENCODING_COUNT; e++) {
    const char *name = sfc_encoding_name((sfc_encoding)e);
    CHECK(name && strcmp(name, NAMES[e]) == 0, "name %d", e);
    sfc_encoding got = SFC_ENCODING_COUNT;
    CHECK_STATUS(sfc_encoding_by_name(NAMES[e], strlen(NAMES[e]), &got, &err),
                 SFC_OK, err);
    CHECK(got == (sfc_encoding)e, "by name %s", NAMES[e]);
  }
  CHECK(sfc_encoding_name((sfc_encoding)SFC_ENCODING_COUNT) == NULL, "past");
  CHECK(sfc_encoding_name((sfc_encoding)-1) == NULL, "negative");
  const char *bad[] = {"BASE62", "base6", "base620", "base64", "", " hex"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    sfc_encoding got = SFC_ENCODING_HEX;
    CHECK_STATUS(sfc_encoding_by_name(bad[i], strlen(bad[i]), &got, &err),
                 SFC_INVALID_ARGUMENT, err);
    CHECK(got == SFC_ENCODING_HEX, "output untouched for '%s'", bad[i]);
    CHECK(strstr(err.message, "base58") && strstr(err.message, "dec"),
          "message lists the names: %s", err.message);
  }
  sfc_encoding got;
  CHECK_STATUS(sfc_encoding_by_name("hex\0", 4, &got, &err),
               SFC_INVALID_ARGUMENT, err);
  CHECK_STATUS(sfc_encoding_by_name(NULL, 0, &got, &err), SFC_INVALID_ARGUMENT,
               err);
}

/* One ID, every form (flags 0: the default, dec's shortest and the others'
 * fixed width; SFC_FORMAT_FIXED; SFC_FORMAT_SHORTEST), against the
 * reference and back. */
static void round_trip(uint64_t id) {
  static const unsigned FLAGS[] = {0, SFC_FORMAT_FIXED, SFC_FORMAT_SHORTEST};
  for (int e = 0; e < SFC_ENCODING_COUNT; e++) {
    for (int f = 0; f < 3; f++) {
      int shortest = FLAGS[f] == SFC_FORMAT_SHORTEST ||
                     (FLAGS[f] == 0 && e == SFC_ENCODING_DEC);
      char want[80], got[SFC_ENCODED_MAX];
      reference(id, e, shortest, want);
      size_t n = sfc_id_format(id, (sfc_encoding)e, FLAGS[f], got, sizeof got);
      CHECK(n == strlen(want) && strcmp(got, want) == 0,
            "%s %" PRIu64 " flags=%u: '%s', wanted '%s'", NAMES[e], id,
            FLAGS[f], got, want);
      uint64_t back = ~id;
      sfc_error err;
      CHECK_STATUS(sfc_id_parse(got, n, (sfc_encoding)e, &back, &err), SFC_OK,
                   err);
      CHECK(back == id, "%s '%s' parsed to %" PRIu64, NAMES[e], got, back);
    }
  }
}

static void test_round_trips(void) {
  const uint64_t edges[] = {0,
                            1,
                            9,
                            10,
                            15,
                            16,
                            31,
                            32,
                            57,
                            58,
                            61,
                            62,
                            UINT64_C(266300479548424192),
                            (uint64_t)INT64_MAX,
                            (uint64_t)INT64_MAX + 1,
                            UINT64_MAX - 1,
                            UINT64_MAX};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
    round_trip(edges[i]);
  for (int i = 0; i < 64; i++) {
    round_trip(UINT64_C(1) << i);
    round_trip((UINT64_C(1) << i) - 1);
  }
  for (int i = 0; i < 20000; i++)
    round_trip(rng() >> (rng() % 64));
}

static void test_format_buffers(void) {
  char buf[SFC_ENCODED_MAX];
  memset(buf, 'x', sizeof buf);
  CHECK(sfc_id_format(1, (sfc_encoding)SFC_ENCODING_COUNT, 0, buf,
                      sizeof buf) == 0,
        "unknown encoding");
  CHECK(sfc_id_format(1, SFC_ENCODING_HEX, 0, buf, 0) == 0, "cap 0");
  CHECK(sfc_id_format(1, SFC_ENCODING_HEX, 0, buf, 16) == 0, "no room for NUL");
  CHECK(sfc_id_format(1, SFC_ENCODING_HEX, 0, buf, 17) == 16 &&
            strcmp(buf, "0000000000000001") == 0,
        "exact cap: %s", buf);
  CHECK(sfc_id_format(255, SFC_ENCODING_HEX, SFC_FORMAT_SHORTEST, buf, 3) ==
                2 &&
            strcmp(buf, "ff") == 0,
        "shortest in a small buffer: %s", buf);
  CHECK(sfc_id_format(256, SFC_ENCODING_HEX, SFC_FORMAT_SHORTEST, buf, 3) == 0,
        "shortest that does not fit");
  CHECK(sfc_id_format(UINT64_MAX, SFC_ENCODING_DEC, 0, buf, sizeof buf) == 20,
        "SFC_ENCODED_MAX holds the longest");
  /* dec's default is the shortest; its fixed width only when asked. */
  CHECK(sfc_id_format(0, SFC_ENCODING_DEC, 0, buf, 2) == 1 &&
            strcmp(buf, "0") == 0,
        "dec 0 by default in a small buffer: %s", buf);
  CHECK(sfc_id_format(0, SFC_ENCODING_DEC, SFC_FORMAT_FIXED, buf, 20) == 0,
        "fixed dec that does not fit");
  CHECK(sfc_id_format(0, SFC_ENCODING_DEC, SFC_FORMAT_FIXED, buf, 21) == 20 &&
            strcmp(buf, "00000000000000000000") == 0,
        "fixed dec 0: %s", buf);
  CHECK(sfc_id_format(61, SFC_ENCODING_BASE62, 0, buf, sizeof buf) == 11 &&
            strcmp(buf, "0000000000z") == 0,
        "base62's default is its fixed width: %s", buf);
  /* Both flags, or any other bit, is refused whatever the room. */
  for (int e = 0; e < SFC_ENCODING_COUNT; e++) {
    memset(buf, 'x', sizeof buf);
    CHECK(sfc_id_format(5, (sfc_encoding)e,
                        SFC_FORMAT_SHORTEST | SFC_FORMAT_FIXED, buf,
                        sizeof buf) == 0,
          "%s: both flags", NAMES[e]);
    CHECK(sfc_id_format(5, (sfc_encoding)e, 4u, buf, sizeof buf) == 0,
          "%s: an unknown flag", NAMES[e]);
    CHECK(sfc_id_format(5, (sfc_encoding)e, SFC_FORMAT_SHORTEST | 8u, buf,
                        sizeof buf) == 0,
          "%s: shortest with an unknown flag", NAMES[e]);
    CHECK(buf[0] == 'x', "%s: nothing written for bad flags", NAMES[e]);
  }
}

/* A parse error: its status, and the words its message must hold. */
static void parse_fails(const char *text, size_t len, sfc_encoding e,
                        const char *must1, const char *must2) {
  sfc_error err;
  uint64_t id = 12345;
  CHECK_STATUS(sfc_id_parse(text, len, e, &id, &err), SFC_INVALID_ARGUMENT,
               err);
  CHECK(id == 12345, "output untouched");
  CHECK(!must1 || strstr(err.message, must1), "'%s' not in: %s", must1,
        err.message);
  CHECK(!must2 || strstr(err.message, must2), "'%s' not in: %s", must2,
        err.message);
}

static void parse_ok(const char *text, sfc_encoding e, uint64_t want) {
  sfc_error err;
  uint64_t id = ~want;
  CHECK_STATUS(sfc_id_parse(text, strlen(text), e, &id, &err), SFC_OK, err);
  CHECK(id == want, "%s '%s': %" PRIu64 ", wanted %" PRIu64, NAMES[e], text, id,
        want);
}

static void test_parse(void) {
  /* Case and Crockford's aliases. */
  parse_ok("FFFFFFFFFFFFFFFF", SFC_ENCODING_HEX, UINT64_MAX);
  parse_ok("aBcD", SFC_ENCODING_HEX, 0xabcd);
  parse_ok("fzzzzzzzzzzzz", SFC_ENCODING_BASE32, UINT64_MAX);
  parse_ok("0I1L", SFC_ENCODING_BASE32, 32 * 32 + 32 + 1);
  parse_ok("oil", SFC_ENCODING_BASE32, 32 + 1);
  parse_ok("3W5E11264SGSF", SFC_ENCODING_BASE36, UINT64_MAX);
  parse_ok("Zz", SFC_ENCODING_BASE36, 35 * 36 + 35);
  parse_ok("00000000000000000000", SFC_ENCODING_DEC, 0);
  parse_ok("1111111111", SFC_ENCODING_BASE58, 0);
  /* base58 and base62 tell the cases apart. */
  parse_ok("z", SFC_ENCODING_BASE62, 61);
  parse_ok("Z", SFC_ENCODING_BASE62, 35);
  parse_ok("z", SFC_ENCODING_BASE58, 57);
  parse_ok("Z", SFC_ENCODING_BASE58, 32);

  for (int e = 0; e < SFC_ENCODING_COUNT; e++)
    parse_fails("", 0, (sfc_encoding)e, "empty", NAMES[e]);
  parse_fails(NULL, 0, SFC_ENCODING_HEX, "empty", "hex");
  parse_fails("1", 1, (sfc_encoding)SFC_ENCODING_COUNT, "unknown encoding",
              "base62");
  parse_fails("12-4", 4, SFC_ENCODING_HEX, "'-' at position 2", "hex");
  parse_fails("abcU", 4, SFC_ENCODING_BASE32, "'U' at position 3", NULL);
  parse_fails("0O", 2, SFC_ENCODING_BASE58, "'0' at position 0", NULL);
  parse_fails("1O", 2, SFC_ENCODING_BASE58, "'O' at position 1", NULL);
  parse_fails("1I", 2, SFC_ENCODING_BASE58, "'I' at position 1", NULL);
  parse_fails("1l", 2, SFC_ENCODING_BASE58, "'l' at position 1", NULL);
  parse_fails("ab_", 3, SFC_ENCODING_BASE62, "'_' at position 2", NULL);
  parse_fails("a\x01", 2, SFC_ENCODING_BASE62, "'\\x01' at position 1", NULL);
  parse_fails("5\0garbage", 9, SFC_ENCODING_DEC, "NUL byte at position 1",
              NULL);
  parse_fails("\xc3\xa9", 2, SFC_ENCODING_BASE62, "'\\xC3' at position 0",
              NULL);
  /* Past 2^64 - 1: the largest fixed text plus one, and the full width. */
  parse_fails("18446744073709551616", 20, SFC_ENCODING_DEC, "2^64 - 1",
              "18446744073709551615");
  parse_fails("10000000000000000", 17, SFC_ENCODING_HEX, "at most 16", "17");
  parse_fails("G000000000000", 13, SFC_ENCODING_BASE32, "2^64 - 1",
              "FZZZZZZZZZZZZ");
  parse_fails("3w5e11264sgsg", 13, SFC_ENCODING_BASE36, "2^64 - 1", NULL);
  parse_fails("jpXCZedGfVR", 11, SFC_ENCODING_BASE58, "2^64 - 1",
              "jpXCZedGfVQ");
  parse_fails("LygHa16AHYG", 11, SFC_ENCODING_BASE62, "2^64 - 1",
              "LygHa16AHYF");
  parse_fails("zzzzzzzzzzz", 11, SFC_ENCODING_BASE62, "2^64 - 1", NULL);
  /* A bad character is named even after the value overflowed. */
  parse_fails("zzzzzzzzzz-", 11, SFC_ENCODING_BASE62, "'-' at position 10",
              NULL);
  parse_fails("000000000000000000001", 21, SFC_ENCODING_DEC, "at most 20",
              NULL);
  parse_fails("000000000000", 12, SFC_ENCODING_BASE62, "at most 11", NULL);
}

static int cmp_text(const void *a, const void *b) {
  return memcmp(a, b, SFC_ENCODED_MAX);
}

/* Sorts the fixed strings of `ids` bytewise and checks that they come out
 * in the IDs' order, in every encoding. `ids` must be strictly increasing;
 * the strings are shuffled first so that the sort does the work. */
static void check_sorts(const uint64_t *ids, size_t n, const char *what) {
  char(*text)[SFC_ENCODED_MAX] = calloc(n, SFC_ENCODED_MAX);
  if (!text) exit(99);
  for (int e = 0; e < SFC_ENCODING_COUNT; e++) {
    for (size_t i = 0; i < n; i++)
      sfc_id_format(ids[i], (sfc_encoding)e, SFC_FORMAT_FIXED, text[i],
                    SFC_ENCODED_MAX);
    for (size_t i = n - 1; i > 0; i--) {
      size_t j = (size_t)(rng() % (i + 1));
      char tmp[SFC_ENCODED_MAX];
      memcpy(tmp, text[i], sizeof tmp);
      memcpy(text[i], text[j], sizeof tmp);
      memcpy(text[j], tmp, sizeof tmp);
    }
    qsort(text, n, SFC_ENCODED_MAX, cmp_text);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t id = 0;
      sfc_error err;
      if (strlen(text[i]) != WIDTH[e] ||
          sfc_id_parse(text[i], WIDTH[e], (sfc_encoding)e, &id, &err) !=
              SFC_OK ||
          id != ids[i])
        wrong++;
    }
    CHECK(wrong == 0, "%s: %zu of %zu %s strings out of order", NAMES[e], wrong,
          n, what);
  }
  free(text);
}

static void test_sort_order(void) {
  enum { N = 200000 };
  uint64_t *ids = malloc(N * sizeof *ids);
  if (!ids) exit(99);
  sfc_layout l = check_layout("time:41@1ms,shard:10,seq:12", 1704067200000);
  sfc_error err;
  sfc_generator *g = NULL;
  sfc_status st = SFC_WORKER_UNAVAILABLE;
  /* Another test process may hold a shard of this layout: take the next. */
  for (int64_t shard = 977; st == SFC_WORKER_UNAVAILABLE && shard < 1024;
       shard++) {
    sfc_node_value node[] = {{"shard", shard, SFC_SOURCE_EXPLICIT}};
    sfc_options opts;
    sfc_options_init(&opts);
    sfc_options_set_nodes(&opts, node, 1);
    st = sfc_generator_new(&l, &opts, &g, &err);
  }
  CHECK_STATUS(st, SFC_OK, err);
  if (st != SFC_OK) {
    free(ids);
    return;
  }
  size_t filled = 0;
  CHECK_STATUS(sfc_next_ids(g, ids, N, &filled, &err), SFC_OK, err);
  sfc_generator_free(g);
  CHECK(filled == N, "filled %zu", filled);
  check_sorts(ids, filled, "generated");

  /* The whole 64-bit range, top bit included: sorted, without repeats. */
  for (size_t i = 0; i < N; i++)
    ids[i] = rng() >> (rng() % 8 == 0 ? rng() % 64 : 0);
  size_t dups = check_duplicates(ids, N), k = 0;
  for (size_t i = 0; i < N; i++)
    if (i == 0 || ids[i] != ids[k - 1]) ids[k++] = ids[i];
  CHECK(k == N - dups, "dedup");
  check_sorts(ids, k, "random");
  free(ids);
}

int main(void) {
  test_names();
  test_round_trips();
  test_format_buffers();
  test_parse();
  test_sort_order();
  return check_summary();
}
