/* libFuzzer harness: the UUIDv7 parser and its canonical JSON.
 *
 * Input: the text handed to sfc_uuid7_parse, its whole length (a NUL inside
 * is text like any other byte). Checks: a parsed UUID came from 32 or 36
 * bytes, its hex digits are the input's in lower case, version 7 and the
 * RFC 9562 variant; its fields fit their widths; its canonical text parses
 * back to the same UUID; the JSON starts with that text, fits
 * SFC_UUID7_JSON_MAX, and a short buffer is never overrun. A refusal is
 * SFC_INVALID_ARGUMENT with a message. */
#define _GNU_SOURCE
#include "fuzz.h"
#include "snowflake_c.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same(const sfc_uuid7 *a, const sfc_uuid7 *b) {
  return strcmp(a->text, b->text) == 0 && a->unix_ms == b->unix_ms &&
         a->rand_a == b->rand_a && a->rand_b == b->rand_b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A copy of exactly `size` bytes, so that AddressSanitizer sees any read
   * past the length the parser was given. */
  char *text = malloc(size ? size : 1);
  if (!text) return 0;
  memcpy(text, data, size);
  sfc_uuid7 u;
  sfc_error err;
  memset(&err, 0, sizeof err);
  sfc_status st = sfc_uuid7_parse(text, size, &u, &err);
  if (st != SFC_OK) {
    CHECK(st == SFC_INVALID_ARGUMENT && err.status == st);
    CHECK(err.message[0] != '\0');
    CHECK(strnlen(err.message, sizeof err.message) < sizeof err.message);
    free(text);
    return 0;
  }
  CHECK(size == 32 || size == 36);
  CHECK(strlen(u.text) == 36);
  /* The canonical text holds the input's hex digits, lower-cased, in
   * order, with the hyphens at 8, 13, 18 and 23. */
  size_t k = 0;
  for (size_t i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      CHECK(u.text[i] == '-');
      if (size == 36) CHECK(text[k++] == '-');
      continue;
    }
    CHECK(isxdigit((unsigned char)u.text[i]) &&
          !isupper((unsigned char)u.text[i]));
    CHECK(u.text[i] == tolower((unsigned char)text[k++]));
  }
  CHECK(k == size);
  CHECK(u.text[14] == '7');
  CHECK(strchr("89ab", u.text[19]) != NULL);
  CHECK(u.unix_ms >= 0 && u.unix_ms < (INT64_C(1) << 48));
  CHECK(u.rand_a < 4096);
  CHECK(u.rand_b < (UINT64_C(1) << 62));

  sfc_uuid7 again;
  CHECK(sfc_uuid7_parse(u.text, strlen(u.text), &again, &err) == SFC_OK);
  CHECK(same(&u, &again));

  char json[SFC_UUID7_JSON_MAX];
  size_t n = sfc_uuid7_json(&u, json, sizeof json);
  CHECK(n > 0 && n < sizeof json && strlen(json) == n);
  char want[64];
  snprintf(want, sizeof want,
           "{\"uuid\":\"%s\",\"version\":7,\"time_ms\":", u.text);
  CHECK(strncmp(json, want, strlen(want)) == 0);
  CHECK(json[n - 1] == '}');
  char small[24];
  CHECK(sfc_uuid7_json(&u, small, sizeof small) == n);
  CHECK(strnlen(small, sizeof small) < sizeof small);
  free(text);
  return 0;
}
